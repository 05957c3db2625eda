#!/usr/bin/env bash
# The PrairieLearn entrypoint of the memlab question for lab @LAB_DIR@ (./memlab package
# prairielearn @PROGRAM@ OUT wrote it; handouts/instructor/platforms.md in the memlab checkout).
# It runs in the grader image, where the instructor's memlab checkout is /memlab, built:
#   /grade/student/kernels.cu      the student's file (pl-file-editor or pl-file-upload)
#   /grade/tests/rubric            the grading cases, hidden ones included (tests/ stays on the server)
#   /grade/results/results.json    what PrairieLearn reads back
# The question's rubric replaces the image's copy, so the cases can change without a new image.
set -uo pipefail
mkdir -p /grade/results
results=/grade/results/results.json
log=/grade/results/grader.log

# The grader writes results for every submission it grades, refused ones included. When it stops
# before (no kernels.cu, a file over 256 KiB, no rubric), this says why, as not gradable.
not_gradable() { # reason
  local reason=$1
  reason=${reason//\\/\\\\}
  reason=${reason//\"/\\\"}
  printf '{"gradable": false, "format_errors": ["%s"]}\n' "$reason" >"$results"
}

if ! cp /grade/tests/rubric /memlab/labs/@LAB_DIR@/rubric; then
  not_gradable "The question has no tests/rubric: ask the course staff."
  exit 0
fi
cd /memlab || exit 1
status=0
./memlab grade @PROGRAM@ /grade/student/kernels.cu --format prairielearn --out "$results" \
  2>"$log" || status=$?
cat "$log" >&2 # the job's output, for the course staff
if [[ ! -s $results ]]; then
  reason=$(tail -n 1 "$log" | tr -d '\000-\037\177')
  not_gradable "Not graded (exit status $status): ${reason:-the grader stopped without a reason}"
fi
# A partial score exits 1: the job itself still succeeded.
exit 0

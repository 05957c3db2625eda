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
# before (no kernels.cu, a folder or a link by that name, a file over 256 KiB: exit 2; no
# rubric), the student gets a score of 0 with the grader's one line, as PrairieLearn shows a file
# it cannot grade: gradable false (the attempt is not used), the line as the message and the
# format error.
not_gradable() { # reason
  local reason=$1
  reason=${reason//\\/\\\\}
  reason=${reason//\"/\\\"}
  printf '{"gradable": false, "score": 0, "message": "%s", "format_errors": ["%s"]}\n' \
    "$reason" "$reason" >"$results"
}

if ! cp /grade/tests/rubric /memlab/labs/@LAB_DIR@/rubric; then
  not_gradable "The question has no tests/rubric: ask the course staff."
  exit 0
fi
if ! cd /memlab; then
  not_gradable "The grader image has no memlab checkout in /memlab: ask the course staff."
  exit 0
fi
status=0
./memlab grade @PROGRAM@ /grade/student/kernels.cu --format prairielearn --out "$results" \
  2>"$log" || status=$?
cat "$log" >&2 # the job's output, for the course staff
if [[ ! -s $results ]]; then
  # The last line is the grader's reason: printable ASCII only, so the JSON stays JSON.
  reason=$(tail -n 1 "$log" | LC_ALL=C tr -cd '\040-\176')
  not_gradable "Not graded, score 0 (exit status $status): ${reason:-the grader stopped without a reason}"
fi
# A partial score exits 1: the job itself still succeeded.
exit 0

#!/usr/bin/env bash
# test_grade_planted: grades one planted submission on the GPU and compares with what it expects.
#   tests/grade/test_grade_planted.sh PATH/TO/memlab_grade PATH/TO/memlab_skeleton \
#       PATH/TO/PROGRAM labs/NN_PROGRAM/plants/NAME.plant
#
# The plant (tests/grade/plant.sh writes it as kernels.cu) is graded by the lab's built program.
# Its directives (tests/grade/README.md):
#   expect fail CASE... | all      these cases must fail; every other case must pass
#   expect either CASE...          these may go either way (the reason in a comment)
#   expect refused                 the grader refuses the file before compiling it: score 0;
#                                  graded in every --format, none may show the rubric's text
#   expect absent TEXT             TEXT is nowhere in the grader's stdout, stderr or results
#   expect shown TEXT              TEXT is in the results (the text format)
# A case that is not graded (no counters, no compute-sanitizer on this host) fails the test with
# the grader's reason. No plant may bring the rubric's own lines (its comments, its case and
# check lines as written) into the grader's output. Prints the score. Exits 77 (skipped)
# without a CUDA device.
set -uo pipefail
usage="usage: test_grade_planted.sh MEMLAB_GRADE MEMLAB_SKELETON PROGRAM PLANT"
grade=${1:?$usage}
skeleton=${2:?$usage}
program=${3:?$usage}
plant=${4:?$usage}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lab=$(basename "$(dirname "$(dirname "$plant")")") # labs/NN_PROGRAM/plants/NAME.plant
lab=${lab#[0-9][0-9]_}
name=$(basename "$plant" .plant)

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no CUDA device: test skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The directives stand before a "file" line (a "from file" plant's submission follows it).
header=$(awk '/^file[ \t\r]*$/ { exit } { print }' "$plant")
must_fail=$(awk '$1 == "expect" && $2 == "fail" { for (i = 3; i <= NF; i++) print $i }' <<<"$header")
either=$(awk '$1 == "expect" && $2 == "either" { for (i = 3; i <= NF; i++) print $i }' <<<"$header")
refused=$(awk '$1 == "expect" && $2 == "refused" { print "yes" }' <<<"$header")
[[ -n $refused ]] && must_fail=all
absent=$(sed -n 's/^expect absent[ \t]\{1,\}//p' <<<"$header")
shown=$(sed -n 's/^expect shown[ \t]\{1,\}//p' <<<"$header")

# What would show if the compiler ever read the rubric: its comments, case and check lines.
rubric=$(echo "$root"/labs/[0-9][0-9]_"$lab"/rubric)
awk '
  /^#/ && NF > 4 { sub(/^#[ \t]*/, ""); print; next }
  $1 == "case" || $1 == "check" { print }
' "$rubric" >"$work/rubric_text"

"$root/tests/grade/plant.sh" "$plant" "$skeleton" >"$work/kernels.cu" || exit 1
started=$SECONDS
"$grade" --root "$root" "$lab" "$work/kernels.cu" --program "$program" --format text \
  --out "$work/result.txt" >"$work/out" 2>"$work/err"
status=$?
seconds=$((SECONDS - started))
if [[ $status -eq 3 ]] && grep -q 'no usable CUDA device' "$work/result.txt"; then
  echo "no usable CUDA device: test skipped"
  exit 77
fi
if [[ $status -eq 2 ]]; then
  echo "FAIL: the grader refused: $(cat "$work/err")"
  exit 1
fi

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# No rubric text, and nothing that must stay absent, in any output of any format.
outputs=("$work/out" "$work/err" "$work/result.txt")
if [[ -n $refused ]]; then
  grep -q 'refused before it was compiled' "$work/result.txt" || fail "the grader did not refuse the file"
  for format in gradescope prairielearn; do
    "$grade" --root "$root" "$lab" "$work/kernels.cu" --program "$program" --format "$format" \
      --out "$work/result.$format" >"$work/out.$format" 2>"$work/err.$format"
    [[ $? -eq 1 ]] || fail "--format $format: exit status is not 1"
    outputs+=("$work/result.$format" "$work/out.$format" "$work/err.$format")
  done
  grep -q '"score":[[:space:]]*0,' "$work/result.gradescope" || fail "Gradescope score is not 0"
  grep -q '"gradable":[[:space:]]*false' "$work/result.prairielearn" || fail "PrairieLearn gradable is not false"
fi
for output in "${outputs[@]}"; do
  if grep -qF -f "$work/rubric_text" "$output"; then
    fail "rubric text in $(basename "$output"): $(grep -F -f "$work/rubric_text" "$output" | head -n 2)"
  fi
  while IFS= read -r text; do
    [[ -z $text ]] || ! grep -qF -- "$text" "$output" || fail "'$text' is in $(basename "$output")"
  done <<<"$absent"
done
while IFS= read -r text; do
  [[ -z $text ]] || grep -qF -- "$text" "$work/result.txt" || fail "the results do not show '$text'"
done <<<"$shown"

# "case NAME: PASS|FAIL|NOT GRADED, S / P points"
sed -n 's/^case \([^:]*\): \(PASS\|FAIL\|NOT GRADED\),.*/\1 \2/p' "$work/result.txt" |
  sed 's/NOT GRADED/NOT_GRADED/' >"$work/outcomes"
[[ -s $work/outcomes ]] || { echo "FAIL: no case in the grader's output"; cat "$work/result.txt"; exit 1; }

while read -r case outcome; do
  if grep -qx -- "$case" <<<"$either"; then
    continue
  elif [[ $outcome == NOT_GRADED ]]; then
    fail "$case was not graded on this host"
  elif grep -qx -- "$case\|all" <<<"$must_fail"; then
    [[ $outcome == FAIL ]] || fail "$case passed, the rubric should fail it"
  else
    [[ $outcome == PASS ]] || fail "$case failed, the rubric should pass it"
  fi
done <"$work/outcomes"
for case in $must_fail $either; do
  [[ $case == all ]] || grep -q "^$case " "$work/outcomes" || fail "$plant names case $case, which the rubric does not have"
done

echo "$lab $name: $(sed -n 's/^score: //p' "$work/result.txt"), graded in $((seconds)) s"
if ((failures > 0)); then
  echo "--- the grader's report:"
  cat "$work/result.txt"
  exit 1
fi

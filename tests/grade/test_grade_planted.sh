#!/usr/bin/env bash
# test_grade_planted: grades one planted submission on the GPU and compares with what it expects.
#   tests/grade/test_grade_planted.sh PATH/TO/memlab_grade PATH/TO/memlab_skeleton \
#       tests/grade/PROGRAM/NAME.plant [BUILD_DIR]
#
# The .plant file says which cases must fail ("expect fail CASE..." or "expect fail all"), which
# may go either way ("expect either CASE...", with the reason in a comment); every other case
# must pass. A case that is not graded (no counters, no compute-sanitizer on this host) fails the
# test with the grader's reason. Prints the score. Exits 77 (skipped) without a CUDA device.
# BUILD_DIR (absolute) keeps the harness and the reference solution between the tests of a lab.
set -uo pipefail
grade=${1:?usage: test_grade_planted.sh MEMLAB_GRADE MEMLAB_SKELETON PLANT}
skeleton=${2:?usage: test_grade_planted.sh MEMLAB_GRADE MEMLAB_SKELETON PLANT}
plant=${3:?usage: test_grade_planted.sh MEMLAB_GRADE MEMLAB_SKELETON PLANT}
build_options=()
if [[ -n ${4:-} ]]; then
  mkdir -p "$4"
  build_options=(--build-dir "$4")
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
program=$(basename "$(dirname "$plant")")
name=$(basename "$plant" .plant)

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no CUDA device: test skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$root/tests/grade/plant.sh" "$plant" "$skeleton" >"$work/$program.cu" || exit 1
"$grade" --root "$root" "$program" "$work/$program.cu" --format text --out "$work/result.txt" \
  "${build_options[@]}" >/dev/null 2>"$work/err"
status=$?
if [[ $status -eq 3 ]] && grep -q 'no usable CUDA device' "$work/result.txt"; then
  echo "no usable CUDA device: test skipped"
  exit 77
fi
if [[ $status -eq 2 ]]; then
  echo "FAIL: the grader refused: $(cat "$work/err")"
  exit 1
fi

# "case NAME: PASS|FAIL|NOT GRADED, S / P points"
sed -n 's/^case \([^:]*\): \(PASS\|FAIL\|NOT GRADED\),.*/\1 \2/p' "$work/result.txt" |
  sed 's/NOT GRADED/NOT_GRADED/' >"$work/outcomes"
must_fail=$(awk '$1 == "expect" && $2 == "fail" { for (i = 3; i <= NF; i++) print $i }' "$plant")
either=$(awk '$1 == "expect" && $2 == "either" { for (i = 3; i <= NF; i++) print $i }' "$plant")
[[ -s $work/outcomes ]] || { echo "FAIL: no case in the grader's output"; cat "$work/result.txt"; exit 1; }

failures=0
while read -r case outcome; do
  if grep -qx -- "$case" <<<"$either"; then
    continue
  elif [[ $outcome == NOT_GRADED ]]; then
    echo "FAIL: $case was not graded on this host"
    failures=$((failures + 1))
  elif grep -qx -- "$case\|all" <<<"$must_fail"; then
    [[ $outcome == FAIL ]] || { echo "FAIL: $case passed, the rubric should fail it"; failures=$((failures + 1)); }
  else
    [[ $outcome == PASS ]] || { echo "FAIL: $case failed, the rubric should pass it"; failures=$((failures + 1)); }
  fi
done <"$work/outcomes"
for case in $must_fail $either; do
  [[ $case == all ]] || grep -q "^$case " "$work/outcomes" || {
    echo "FAIL: $plant names case $case, which the rubric does not have"
    failures=$((failures + 1))
  }
done

echo "$program $name: $(sed -n 's/^score: //p' "$work/result.txt")"
if ((failures > 0)); then
  echo "--- the grader's report:"
  cat "$work/result.txt"
  exit 1
fi

#!/usr/bin/env bash
# test_grade_cli: the grader as an instructor meets it, no GPU needed.
#   tests/unit/test_grade_cli.sh PATH/TO/memlab_grade
# Bad usage and malformed rubric or --cases files get one line on stderr, nothing on stdout and
# exit status 2. End to end on the coalescing lab: a submission with a syntax error scores 0 with
# the compiler's message (Gradescope) and is not gradable with it (PrairieLearn); without a CUDA
# device (hidden from the grader with CUDA_VISIBLE_DEVICES=) nothing is graded and the reason is
# given, also for a single case.
set -uo pipefail
grade=${1:?usage: test_grade_cli.sh MEMLAB_GRADE}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_refused() { # description, arguments...
  local what=$1
  shift
  "$grade" "$@" >"$work/out" 2>"$work/err"
  local status=$?
  [[ $status -eq 2 ]] || fail "$what: exit $status, expected 2"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "$what: stderr has $(wc -l <"$work/err") lines, expected 1: $(cat "$work/err")"
  [[ ! -s $work/out ]] || fail "$what: wrote to stdout"
}

# A tree with one lab whose rubric is set by each check.
fake=$work/fake
mkdir -p "$fake/labs/01_toy"
echo 'int main(void) { return 0; }' >"$fake/labs/01_toy/toy.cu"
cp "$fake/labs/01_toy/toy.cu" "$work/submission.cu"
printf 'case fine 1 visible --n 1\ncheck correct\n' >"$fake/labs/01_toy/rubric"

expect_refused "no arguments"
expect_refused "one argument" toy
expect_refused "unknown option" --root "$fake" toy "$work/submission.cu" --bogus
expect_refused "bad format" --root "$fake" toy "$work/submission.cu" --format xml
expect_refused "--out without a value" --root "$fake" toy "$work/submission.cu" --out
expect_refused "unwritable --out" --root "$fake" toy "$work/submission.cu" --out /nonexistent/r.json
expect_refused "unknown lab" --root "$fake" nolab "$work/submission.cu"
expect_refused "missing submission" --root "$fake" toy "$work/nothing.cu"
expect_refused "unknown case" --root "$fake" toy "$work/submission.cu" --case nope
expect_refused "relative --build-dir" --root "$fake" toy "$work/submission.cu" --build-dir rel
expect_refused "missing --cases file" --root "$fake" toy "$work/submission.cu" --cases "$work/none"

printf 'case fine 1 visible --n 1\ncheck correct\ncase broken 2 visible\ncheck gld_efficiency >> 5\n' \
  >"$fake/labs/01_toy/rubric"
expect_refused "malformed rubric" --root "$fake" toy "$work/submission.cu"
grep -q "labs/01_toy/rubric:4: a check is" "$work/err" || fail "malformed rubric: message is '$(cat "$work/err")'"
expect_refused "--check-rubric" --check-rubric "$fake/labs/01_toy/rubric"

printf 'case fine 1 visible --n 1\ncheck correct\n' >"$fake/labs/01_toy/rubric"
printf '# hidden cases\ncase fine 3 hidden --n 99\ncheck correct\n' >"$work/hidden"
expect_refused "a --cases file repeating a name" --root "$fake" toy "$work/submission.cu" --cases "$work/hidden"
grep -q "hidden:2: case 'fine' is defined twice" "$work/err" || fail "duplicate case: message is '$(cat "$work/err")'"
printf 'case other 3 hidden --n 99\n' >"$work/hidden"
expect_refused "a --cases file without checks" --root "$fake" toy "$work/submission.cu" --cases "$work/hidden"
rm -rf "$fake"

# Every lab's rubric reads; the student pack's copy keeps its visible cases only.
for rubric in "$root"/labs/*/rubric; do
  [[ -e $rubric ]] || continue
  "$grade" --check-rubric "$rubric" || fail "$rubric does not read"
  "$grade" --visible-cases "$rubric" >"$work/visible" || fail "--visible-cases $rubric"
  hidden=$(awk '$1 == "case" && $4 != "visible" { print $2 }' "$rubric")
  for name in $hidden; do
    ! grep -qw "$name" "$work/visible" || fail "--visible-cases keeps hidden case $name of $rubric"
  done
  visible=$(awk '$1 == "case" && $4 == "visible" { print $2 }' "$rubric")
  for name in $visible; do
    grep -q "^case $name " "$work/visible" || fail "--visible-cases drops visible case $name of $rubric"
  done
  "$grade" --check-rubric "$work/visible" || fail "the visible part of $rubric does not read"
done

# ---- end to end on the coalescing lab: the builds need nvcc and make, not a GPU ------------------
export MEMLAB_CUDA_ARCH=${MEMLAB_CUDA_ARCH:-75}
build=$work/build
lab=$root/labs/04_coalescing/coalescing.cu

# A syntax error: score 0 with the compiler's message. It is appended, not made by editing a
# line of the lab, so that it is planted in the student pack too, where the lab's solution lines
# are TODOs. The declaration after it puts the error on a numbered line.
cp "$lab" "$work/coalescing.cu"
printf '__device__ int planted_syntax_error = 1 /* no semicolon */\n__device__ int after_the_error;\n' \
  >>"$work/coalescing.cu"
"$grade" --root "$root" coalescing "$work/coalescing.cu" --format gradescope --out "$work/gs.json" \
  --build-dir "$build" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 1 ]] || fail "compile error: exit $status, expected 1 ($(tail -n 3 "$work/err"))"
grep -q '"score":[[:space:]]*0,' "$work/gs.json" || fail "compile error: Gradescope score is not 0"
grep -q 'did not compile' "$work/gs.json" || fail "compile error: Gradescope output does not say so"
grep -q 'coalescing.cu([0-9]*): error' "$work/gs.json" || fail "compile error: no compiler message in results.json"
grep -q 'score: 0 / ' "$work/out" || fail "compile error: the text summary is not on stdout"
"$grade" --root "$root" coalescing "$work/coalescing.cu" --format prairielearn --out "$work/pl.json" \
  --build-dir "$build" >/dev/null 2>&1
grep -q '"gradable":[[:space:]]*false' "$work/pl.json" || fail "compile error: PrairieLearn gradable is not false"
grep -q '"format_errors"' "$work/pl.json" || fail "compile error: PrairieLearn has no format_errors"
grep -q 'error: expected' "$work/pl.json" || fail "compile error: no compiler message for PrairieLearn"
grep -q '"score"' "$work/pl.json" && fail "compile error: PrairieLearn has a score"

# The lab as it is (the solution; in the student pack its student version), but no device: not
# gradable, the reason given, no point.
cp "$lab" "$work/coalescing.cu"
CUDA_VISIBLE_DEVICES= "$grade" --root "$root" coalescing "$work/coalescing.cu" --format gradescope \
  --out "$work/gs.json" --build-dir "$build" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 3 ]] || fail "no device: exit $status, expected 3 ($(tail -n 3 "$work/err"))"
grep -q '"score":[[:space:]]*0,' "$work/gs.json" || fail "no device: Gradescope score is not 0"
grep -q 'NOT GRADED: the grading host has no usable CUDA device' "$work/gs.json" ||
  fail "no device: Gradescope output does not give the reason"
grep -q '"status":[[:space:]]*"passed"' "$work/gs.json" && fail "no device: a case passed"
grep -q 'NOT GRADED' "$work/out" || fail "no device: the text does not say NOT GRADED"
CUDA_VISIBLE_DEVICES= "$grade" --root "$root" coalescing "$work/coalescing.cu" --format prairielearn \
  --out "$work/pl.json" --build-dir "$build" >/dev/null 2>&1
grep -q '"gradable":[[:space:]]*false' "$work/pl.json" || fail "no device: PrairieLearn gradable is not false"
grep -q 'no usable CUDA device' "$work/pl.json" || fail "no device: PrairieLearn gives no reason"

# One case, as a GitHub Classroom step runs it: its exit status says it was not graded.
CUDA_VISIBLE_DEVICES= "$grade" --root "$root" coalescing "$work/coalescing.cu" --case strided_correct \
  --build-dir "$build" >"$work/out" 2>/dev/null
status=$?
[[ $status -eq 3 ]] || fail "one case, no device: exit $status, expected 3"
grep -q '^case strided_correct: NOT GRADED' "$work/out" || fail "one case: the text does not show it"
[[ $(grep -c '^case ' "$work/out") -eq 1 ]] || fail "one case: more than one case in the text"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "grade cli: all checks passed"

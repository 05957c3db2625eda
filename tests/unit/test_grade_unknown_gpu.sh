#!/usr/bin/env bash
# test_grade_unknown_gpu: ./memlab grade warns once, before grading a class, when neither a
# profile nor memlab's table knows the GPU (memlab_calibrate --status exits 1), and grades all
# the same; it says nothing where the GPU is known (0) or there is none (3), nor in a student
# pack, and does not ask at all for one kernels.cu (a platform's grading of a lone submission).
# The calibrate tool and the grader are stand-ins that record how they were called.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

tree=$work/tree
mkdir -p "$tree/build/tools" "$tree/build/labs" "$tree/tools"
cp "$root/memlab" "$tree/"
cp "$root/tools/lib.sh" "$tree/tools/"
cp -R "$root/labs" "$tree/labs"
grader=$work/grader
cat >"$grader" <<'GRADER'
#!/usr/bin/env bash
echo "graded: $*"
GRADER
chmod +x "$grader"
echo 'int x;' >"$work/kernels.cu"
mkdir "$work/class"
cp "$work/kernels.cu" "$work/class/ada.cu"

# calibrate_exits STATUS: the stand-in's --status exit status.
calibrate_exits() {
  printf '#!/usr/bin/env bash\necho asked >>%s\n[[ " $* " == *" --status "* ]] || exit 9\nexit %s\n' \
    "$work/asked" "$1" >"$tree/build/tools/memlab_calibrate"
  chmod +x "$tree/build/tools/memlab_calibrate"
}
grade() { # [SUBMISSIONS] (default: the class folder)
  (cd "$tree" && MEMLAB_BUILD=$tree/build MEMLAB_GRADE=$grader ./memlab grade coalescing \
    "${1:-$work/class}") >"$work/out" 2>"$work/err"
}

calibrate_exits 1
grade || fail "grading on an unknown GPU exited $?"
[[ $(grep -c 'warning: memlab knows nothing of this GPU' "$work/err") -eq 1 ]] ||
  fail "an unknown GPU: not one warning: $(cat "$work/err")"
grep -q 'run ./memlab calibrate once on this host' "$work/err" || fail "the warning names no fix"
grep -q "^graded: --root $tree --program $tree/build/labs/coalescing coalescing $work/class$" "$work/out" ||
  fail "an unknown GPU: the grader did not run as asked: $(cat "$work/out")"

for status in 0 3; do
  calibrate_exits "$status"
  grade || fail "grading with calibrate --status $status exited $?"
  [[ ! -s $work/err ]] || fail "calibrate --status $status: a warning: $(cat "$work/err")"
  grep -q '^graded: ' "$work/out" || fail "calibrate --status $status: the grader did not run"
done

calibrate_exits 1
rm -f "$work/asked"
grade "$work/kernels.cu" || fail "grading one kernels.cu exited $?"
[[ ! -e $work/asked && ! -s $work/err ]] || fail "one kernels.cu: calibrate was asked, or a warning"
grep -q "^graded: .* coalescing $work/kernels.cu$" "$work/out" || fail "one kernels.cu: not graded"

touch "$tree/STUDENT.md"
grade || fail "a student pack's grading exited $?"
[[ ! -s $work/err ]] || fail "a student pack warned of the GPU: $(cat "$work/err")"

((failures == 0)) && echo "test_grade_unknown_gpu: every case passed"
exit $((failures > 0))

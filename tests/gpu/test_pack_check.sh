#!/usr/bin/env bash
# test_pack_check (GPU): a student pack's ./memlab test on the pack as handed out, then with the
# instructor's solutions copied in.
#   tests/gpu/test_pack_check.sh PATH/TO/memlab_skeleton PATH/TO/memlab_grade
# As handed out, the TODO kernels are wrong: one plain line a lab ("lab NN PROGRAM: ... FAIL
# ..."), and a non-zero exit. With every lab's labs/NN_LAB/kernels.cu replaced by the
# instructor's, every line says all variants are correct and the exit status is 0. The pack
# builds on its own (MEMLAB_CUDA_ARCH: this GPU's), reusing nothing of the instructor's build.
# MEMLAB_PACK_CHECK_LOG=FILE keeps both outputs there (the closing note quotes them).
set -uo pipefail
skeleton=${1:?usage: test_pack_check.sh MEMLAB_SKELETON MEMLAB_GRADE}
grade=${2:?usage: test_pack_check.sh MEMLAB_SKELETON MEMLAB_GRADE}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ -e $root/STUDENT.md ]]; then
  echo "a student pack cannot make a pack: test skipped"
  exit 77
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: test skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
log=${MEMLAB_PACK_CHECK_LOG:-$work/log}
: >"$log"

unset MEMLAB_PACK_KEEP MEMLAB_BUILD MEMLAB_NO_BUILD
MEMLAB_SKELETON=$skeleton MEMLAB_GRADE=$grade "$root/memlab" student-pack "$work/pack.tar.gz" \
  >/dev/null || { echo "FAIL: ./memlab student-pack failed"; exit 1; }
tar -xzf "$work/pack.tar.gz" -C "$work" || { echo "FAIL: the pack does not unpack"; exit 1; }
pack=$work/memlab
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d '.')
labs=$(find "$root/labs" -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9]_*' | wc -l)

pack_test() { # LABEL: runs the pack's ./memlab test, output in $work/out and the log
  (cd "$pack" && MEMLAB_CUDA_ARCH=$arch ./memlab test) >"$work/out" 2>&1
  local status=$?
  { echo "== ./memlab test, $1: exit $status"; cat "$work/out"; } >>"$log"
  return $status
}

pack_test "the kernels as handed out"
status=$?
((status == 1)) || fail "as handed out, the pack's ./memlab test exited $status, not 1: $(tail -5 "$work/out")"
[[ $(grep -c '^lab [0-9][0-9] ' "$work/out") -eq $labs ]] ||
  fail "as handed out, not one line for each of the $labs labs: $(cat "$work/out")"
grep -q '^lab [0-9][0-9] [a-z_]*: .*FAIL' "$work/out" ||
  fail "as handed out, no lab's line says FAIL: $(cat "$work/out")"

for kernels in "$root"/labs/[0-9][0-9]_*/kernels.cu; do
  cp "$kernels" "$pack/labs/$(basename "$(dirname "$kernels")")/kernels.cu"
done
pack_test "the instructor's kernels copied in"
status=$?
((status == 0)) || fail "with the solutions, the pack's ./memlab test exited $status: $(cat "$work/out")"
grep -qx "memlab: $labs of $labs labs done (every variant matches the CPU reference)" "$work/out" ||
  fail "with the solutions, not every lab done: $(cat "$work/out")"
if grep -q 'FAIL' "$work/out"; then fail "with the solutions, a line says FAIL: $(cat "$work/out")"; fi

((failures == 0)) && echo "test_pack_check: the pack's ./memlab test judged both kernels right"
exit $((failures > 0))

#!/usr/bin/env bash
# test_skeleton_compiles: a lab's student kernels.cu keeps every line number and compiles.
#   tests/unit/test_skeleton_compiles.sh PATH/TO/memlab_skeleton PATH/TO/LAB_PROGRAM labs/NN_PROGRAM
# kernels.cu goes through the generator (as the student pack and the student build do), then the
# lab program compiles it the way it compiles any --kernels file (--save-kernels, one
# architecture, no GPU needed): a region whose removal breaks the build needs a // STUB: line.
# The host program is the instructor's and ships whole: it must hold no solution region.
set -uo pipefail
usage="usage: test_skeleton_compiles.sh MEMLAB_SKELETON LAB_PROGRAM LAB_DIRECTORY"
skeleton=${1:?$usage}
lab_program=${2:?$usage}
lab=${3:?$usage}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
directory=$(basename "$lab")
program=${directory#[0-9][0-9]_}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $program: $*"; failures=$((failures + 1)); }

[[ -e $lab/kernels.cu ]] || { echo "FAIL: $program: no kernels.cu in $lab"; exit 1; }
"$skeleton" "$lab/kernels.cu" -o "$work/kernels.cu" || fail "the generator refused kernels.cu"
[[ $(wc -l <"$lab/kernels.cu") -eq $(wc -l <"$work/kernels.cu") ]] ||
  fail "kernels.cu: the student version has another line count"
! grep -q 'SOLUTION' "$work/kernels.cu" || fail "kernels.cu: a solution marker is left in the student version"
regions=$("$skeleton" --regions "$lab/kernels.cu" | wc -l)
# A student pack's kernels.cu is the student version already, with no region left.
[[ -e $root/STUDENT.md ]] || ((regions > 0)) || fail "kernels.cu has no solution region: the student version would be the solution"

for file in "$lab"/*.cu "$lab"/*.h; do
  [[ -e $file && $(basename "$file") != kernels.cu ]] || continue
  [[ -z $("$skeleton" --regions "$file") ]] ||
    fail "$(basename "$file") holds a solution region: only kernels.cu may (the host program ships whole)"
done

MEMLAB_CUDA_ARCH=75 "$lab_program" --kernels "$work/kernels.cu" --save-kernels "$work/kernels.fatbin" \
  >"$work/compile.log" 2>&1 || {
  cat "$work/compile.log"
  fail "the student version of kernels.cu does not compile (add // STUB: lines to the regions it needs)"
}
[[ -s $work/kernels.fatbin ]] || fail "--save-kernels wrote no fatbin"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "$program: the student kernels.cu keeps its $regions regions' line numbers and compiles"

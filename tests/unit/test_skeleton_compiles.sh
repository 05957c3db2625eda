#!/usr/bin/env bash
# test_skeleton_compiles: a lab's student version keeps every line number and compiles.
#   tests/unit/test_skeleton_compiles.sh PATH/TO/memlab_skeleton PATH/TO/nvcc labs/NN_PROGRAM
# Every .cu, .cuh and .h of the lab goes through the generator (as the student pack and the
# student build do), then the program's source is compiled on its own (nvcc -c, one
# architecture): a region whose removal breaks the build needs a // STUB: line.
set -uo pipefail
skeleton=${1:?usage: test_skeleton_compiles.sh MEMLAB_SKELETON NVCC LAB_DIRECTORY}
nvcc=${2:?usage: test_skeleton_compiles.sh MEMLAB_SKELETON NVCC LAB_DIRECTORY}
lab=${3:?usage: test_skeleton_compiles.sh MEMLAB_SKELETON NVCC LAB_DIRECTORY}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
directory=$(basename "$lab")
program=${directory#[0-9][0-9]_}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $program: $*"; failures=$((failures + 1)); }

regions=0
for file in "$lab"/*.cu "$lab"/*.cuh "$lab"/*.h; do
  [[ -e $file ]] || continue
  name=$(basename "$file")
  "$skeleton" "$file" -o "$work/$name" || {
    fail "the generator refused $name"
    continue
  }
  [[ $(wc -l <"$file") -eq $(wc -l <"$work/$name") ]] || fail "$name: the student version has another line count"
  ! grep -q 'SOLUTION' "$work/$name" || fail "$name: a solution marker is left in the student version"
  regions=$((regions + $("$skeleton" --regions "$file" | wc -l)))
done
# A student pack's sources are student versions already, with no region left.
[[ -e $root/STUDENT.md ]] || ((regions > 0)) || fail "no solution region: the student version would be the solution"

if [[ -e $work/$program.cu ]]; then
  "$nvcc" -c -arch=sm_75 -I"$root/common" -I"$root/profiling" "$work/$program.cu" -o "$work/$program.o" \
    >"$work/nvcc.log" 2>&1 || {
    cat "$work/nvcc.log"
    fail "the student version of $program.cu does not compile (add // STUB: lines to the regions it needs)"
  }
else
  fail "no $program.cu in $lab"
fi

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "$program: the student version keeps its $regions regions' line numbers and compiles"

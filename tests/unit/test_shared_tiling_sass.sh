#!/usr/bin/env bash
# test_shared_tiling_sass: the shared loads nvcc emits for lab 02's tiled kernels are the ones its
# access model counts (predict_tiled_shared and predict_coarsened_shared in shared_tiling.cu):
# per phase, tiled16 and tiled32 read Ms[ty][i .. i+3] with one 16-byte load (LDS.128) and
# Ns[i][tx] with one 4-byte load per i; coarsened reads 16 bytes at a time, 4 loads a step of 8.
# A toolkit that stops vectorizing (or unrolls differently) changes the counts, so the model's
# shared-load predictions would be wrong: this test fails loudly instead.
#   tests/unit/test_shared_tiling_sass.sh NVCC "ARCHITECTURES"   (e.g. "75 80 86 89 90")
# Exit 77 when the toolkit has no cuobjdump to read SASS with.
set -uo pipefail
nvcc=${1:?usage: test_shared_tiling_sass.sh NVCC ARCHITECTURES}
architectures=${2:?usage: test_shared_tiling_sass.sh NVCC ARCHITECTURES}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lab=$root/labs/02_shared_tiling
cuobjdump=$(dirname "$nvcc")/cuobjdump
[[ -x $cuobjdump ]] || cuobjdump=$(command -v cuobjdump) || {
  echo "SKIP: no cuobjdump beside $nvcc or on the PATH (a toolkit without it cannot show SASS)"
  exit 77
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# Prints "KERNEL BITS COUNT" for every shared load width of every kernel in the SASS file:
# LDS is 32 bits, LDS.64 and LDS.128 (LDS.U.128 on older GPUs) say their width.
count_shared_loads() {
  awk '/Function :/ { kernel = $3 }
       match($0, /LDS(\.U)?(\.(8|16|32|64|128|U8|S8|U16|S16))?[ ]/) {
         op = substr($0, RSTART, RLENGTH - 1); bits = 32
         if (op ~ /128/) bits = 128; else if (op ~ /64/) bits = 64
         else if (op ~ /(8|16)$/) bits = 16
         count[kernel " " bits]++
       }
       END { for (key in count) print key, count[key] }' "$1" | sort
}

expect() { # architecture kernel bits count
  local found
  found=$(awk -v k="$2" -v b="$3" '$1 == k && $2 == b { print $3 }' "$work/counts-$1")
  [[ ${found:-0} -eq $4 ]] ||
    { echo "FAIL: sm_$1 $2: ${found:-0} shared loads of $3 bits, the model counts $4"; failures=$((failures + 1)); }
}

for architecture in $architectures; do
  architecture=${architecture%%-*} # 90-real -> 90
  "$nvcc" -arch="sm_$architecture" -cubin -I "$lab" -o "$work/kernels.cubin" "$lab/kernels.cu" ||
    { echo "FAIL: nvcc could not compile labs/02_shared_tiling/kernels.cu for sm_$architecture"; exit 1; }
  "$cuobjdump" -sass "$work/kernels.cubin" >"$work/sass" ||
    { echo "FAIL: cuobjdump -sass failed for sm_$architecture"; exit 1; }
  count_shared_loads "$work/sass" >"$work/counts-$architecture"
  # One phase of each kernel, its inner loop unrolled whole: width / 4 row reads of Ms, width
  # reads of Ns.
  expect "$architecture" matmul_tiled16 128 4
  expect "$architecture" matmul_tiled16 32 16
  expect "$architecture" matmul_tiled32 128 8
  expect "$architecture" matmul_tiled32 32 32
  # 8 steps of a phase, each 2 x 4 values of the M tile and 2 x 4 of the N tile.
  expect "$architecture" matmul_coarsened 128 32
  expect "$architecture" matmul_coarsened 32 0
  echo "sm_$architecture: $(tr '\n' ';' <"$work/counts-$architecture")"
done
[[ $failures -eq 0 ]] || exit 1
echo "PASS: the tiled kernels' shared loads are the ones the model counts"

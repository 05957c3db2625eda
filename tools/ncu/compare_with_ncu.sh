#!/usr/bin/env bash
# Checks that memlab's counter values equal Nsight Compute's for the coalescing lab's kernels at
# a size that no cache holds (256 MiB per buffer), where ./memlab check uses small ones.
#
#   tools/ncu/compare_with_ncu.sh BUILD_DIR
#
# For each case, runs the lab once with its own profiler (JSON report) and once under ncu with
# the same arguments and the same Perfworks names, then prints both values and their difference,
# judged as ./memlab check judges them. Needs a GPU and ncu on PATH. Exit status 1 if any value
# disagrees.
set -uo pipefail
build=${1:?usage: tools/ncu/compare_with_ncu.sh BUILD_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/tools/ncu/ncu_floor.sh"
counters=$build/tools/memlab_counters
lab=$build/labs/coalescing
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cases=(
  "--variant coalesced --n 67108867"
  "--variant strided --n 67108864 --stride 1"
  "--variant strided --n 67108864 --stride 2"
  "--variant strided --n 67108864 --stride 4"
  "--variant strided --n 67108864 --stride 8"
  "--variant strided --n 67108864 --stride 32"
  "--variant offset --n 67108864 --offset 1"
  "--variant offset --n 67108864 --offset 8"
  "--variant broadcast --n 67108864"
)

write_floor=$(ncu_write_floor "$lab" "$counters") || exit 2
echo "ncu's write floor: $write_floor DRAM bytes written by a read-only sweep of twice the L2 (the most of $FLOOR_RUNS runs)"
# Every case fills inputs of the same size (about 2^26 floats): one read floor serves them all.
# shellcheck disable=SC2086
read_floor=$(ncu_read_floor "$lab" "$counters" ${cases[0]} --seed 7) || exit 2
echo "read floor: $read_floor DRAM bytes read by the input fill, a launch that reads no data"
status=0
index=0
for arguments in "${cases[@]}"; do
  index=$((index + 1))
  report=$work/memlab-$index.json
  # shellcheck disable=SC2086 # the arguments are words on purpose
  "$lab" $arguments --seed 7 --reps 1 --warmup 0 --format json --out "$report" >/dev/null ||
    { echo "coalescing $arguments failed" >&2; exit 2; }
  read -r variant kernel names < <("$counters" variants "$report")
  # The second launch, after the harness's L2 flush, as ./memlab check profiles it.
  # shellcheck disable=SC2086
  ncu --clock-control none --csv --print-units base --metrics "$names" \
    --kernel-name-base mangled --kernel-name "$kernel" --launch-skip 1 --launch-count 1 \
    "$lab" $arguments --seed 7 --reps 1 --warmup 0 --metrics none \
    >"$work/ncu-$index.csv" 2>"$work/ncu-$index.log" || { cat "$work/ncu-$index.log" >&2; exit 2; }
  echo "== coalescing $arguments"
  "$counters" compare "$report" "$variant" "$work/ncu-$index.csv" "$write_floor" "$read_floor" || status=1
done
exit $status

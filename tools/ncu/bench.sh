#!/usr/bin/env bash
# ./memlab bench BUILD_DIR [OUT.json]: a benchmark of the suite, not a test.
#
#   1. Each lab's runs in labs/NN_PROGRAM/bench.args (one per line; every variant at default
#      sizes without the file): the variant closest to its ceiling (the device-to-device copy
#      measured in the same run, or cuBLAS for the tiling lab; its own peak where the file has a
#      line "# ceiling: peak", as lab 09's has for the host link). The file leaves out variants
#      that move less memory than they count, such as a warp reading one address.
#   2. What counters cost: memlab's wall time to collect every variant's default counters
#      (the counter_seconds of its report: opening the profiler, every collection with its
#      replay launches, closing it), beside Nsight Compute collecting the same Perfworks names
#      on the same kernels (each variant under ncu minus the same run without). A difference of
#      two whole runs would not do for memlab: its CPU reference alone varies by more than the
#      collection costs (aos_soa: 24 to 26 s a run, about 1 s of it counters).
#
# Prints a table and writes it as JSON (default bench.json). Exits 3 without a GPU.
set -uo pipefail
build=${1:?usage: tools/ncu/bench.sh BUILD_DIR [OUT.json]}
out=${2:-bench.json}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
counters=$build/tools/memlab_counters
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "memlab bench: needs a CUDA GPU and none was found (nvidia-smi -L failed)" >&2
  exit 3
fi
command -v ncu >/dev/null 2>&1 ||
  { echo "memlab bench: ncu not found: put the CUDA toolkit's bin directory on PATH" >&2; exit 2; }

# Seconds the command takes, wall clock; its output is dropped.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || echo "memlab bench: failed: $*" >&2
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

quick=(--reps 1 --warmup 0)
rows=$work/rows.tsv
: >"$rows"
printf '%-16s %-22s %8s %-8s %12s %12s %8s\n' lab best_variant percent ceiling memlab_s ncu_s ratio
for directory in "$root"/labs/[0-9][0-9]_*/; do
  program=$(basename "$directory")
  program=${program#[0-9][0-9]_}
  lab=$build/labs/$program

  runs=("")
  [[ -f $directory/bench.args ]] &&
    mapfile -t runs < <(grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$directory/bench.args")
  timed=()
  for index in "${!runs[@]}"; do
    timed+=("$work/$program-time-$index.json")
    # shellcheck disable=SC2086 # the arguments are words on purpose
    "$lab" ${runs[$index]} --metrics none --format json --out "${timed[-1]}" >/dev/null 2>&1 ||
      echo "memlab bench: $program ${runs[$index]} exited non-zero" >&2
  done
  # "# ceiling: peak" in bench.args: the lab's variants are measured against their own peak
  # (lab 09: the host link), not the device-to-device copy.
  by_peak=()
  grep -q '^# ceiling: peak' "$directory/bench.args" 2>/dev/null && by_peak=(--peak)
  read -r best percent ceiling < <("$counters" best "${by_peak[@]}" "${timed[@]}")

  "$lab" "${quick[@]}" --format json --out "$work/$program-counters.json" >/dev/null 2>&1 ||
    echo "memlab bench: $program with counters exited non-zero" >&2
  memlab_cost=$("$counters" counter-seconds "$work/$program-counters.json") || memlab_cost=nan

  # A lab whose counters are all the driver's unified-memory records (lab 09) has nothing
  # Nsight Compute reads: its ncu seconds and ratio are "-", not a comparison with nothing.
  ncu_cost=-
  while read -r variant kernel names; do
    [[ $ncu_cost == - ]] && ncu_cost=0
    profiled=$(seconds ncu --metrics "$names" --kernel-name-base mangled --kernel-name "$kernel" \
      --launch-count 1 "$lab" --variant "$variant" "${quick[@]}" --metrics none)
    plain=$(seconds "$lab" --variant "$variant" "${quick[@]}" --metrics none)
    ncu_cost=$(awk -v total="$ncu_cost" -v a="$profiled" -v b="$plain" 'BEGIN { printf "%.3f", total + a - b }')
  done < <("$counters" variants "$work/$program-counters.json")

  ratio=$(awk -v a="$memlab_cost" -v b="$ncu_cost" \
    'BEGIN { if (b == "-") print "-"; else if (a != "nan" && b > 0) printf "%.2f", a / b; else print "nan" }')
  printf '%-16s %-22s %8s %-8s %12s %12s %8s\n' "$program" "$best" "$percent" "$ceiling" \
    "$memlab_cost" "$ncu_cost" "$ratio"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$program" "$best" "$percent" "$ceiling" "$memlab_cost" \
    "$ncu_cost" >>"$rows"
done
"$counters" bench-json "$rows" >"$out" && echo "memlab bench: wrote $out"

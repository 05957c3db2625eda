#!/usr/bin/env bash
# tools/ncu/dram_background.sh BUILD_DIR [ROUNDS]: how much DRAM traffic a launch that touches no
# memory shows under Nsight Compute, by the kernel's duration (dram_background.cu says why).
# Prints, per duration, the launches' least, median and largest dram__bytes_read.sum and largest
# dram__bytes_write.sum (ROUNDS launches each, 12 by default). Needs nvcc, ncu and a GPU whose
# counters this user may read; BUILD_DIR's memlab_counters reads ncu's CSV.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
build=${1:?usage: tools/ncu/dram_background.sh BUILD_DIR [ROUNDS]}
rounds=${2:-12}
counters=$build/tools/memlab_counters
[[ -x $counters ]] || { echo "dram_background.sh: $counters is not built" >&2; exit 2; }
# 5 launches a round, 3 metrics each: memlab_counters reads up to 1024 values.
[[ $rounds =~ ^[0-9]+$ ]] && ((rounds >= 1 && rounds <= 60)) ||
  { echo "dram_background.sh: ROUNDS must be a whole number from 1 to 60, not '$rounds'" >&2; exit 2; }
command -v nvcc >/dev/null && command -v ncu >/dev/null ||
  { echo "dram_background.sh: needs nvcc and ncu on the PATH (the CUDA toolkit's bin)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d '.')
nvcc -O2 -arch="sm_$arch" -o "$work/dram_background" "$(dirname "$0")/dram_background.cu"
ncu --clock-control none --csv --print-units base \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
  "$work/dram_background" "$rounds" >"$work/ncu.csv"
# One value a launch, in launch order: launch i of a round spins for the (i % 5)-th duration.
for metric in dram__bytes_read.sum dram__bytes_write.sum gpu__time_duration.sum; do
  "$counters" ncu-values "$work/ncu.csv" "$metric" >"$work/$metric"
done
paste "$work/dram__bytes_read.sum" "$work/dram__bytes_write.sum" "$work/gpu__time_duration.sum" |
  awk '
    { d = (NR - 1) % 5 + 1; n[d]++; reads[d, n[d]] = $1; time[d] += $3
      if ($2 + 0 > writes[d]) writes[d] = $2 + 0 }
    END {
      split("0 2e4 2e5 2e6 2e7", label, " ")
      printf "%-8s %10s %6s %12s %12s %12s %14s\n", "cycles", "mean ns", "runs", "least read",
             "median read", "most read", "most written"
      for (d = 1; d <= 5; d++) {
        for (i = 1; i <= n[d]; i++) for (j = i + 1; j <= n[d]; j++)
          if (reads[d, j] + 0 < reads[d, i] + 0) { t = reads[d, i]; reads[d, i] = reads[d, j]; reads[d, j] = t }
        printf "%-8s %10.0f %6d %12d %12d %12d %14d\n", label[d], time[d] / n[d], n[d],
               reads[d, 1], reads[d, int((n[d] + 1) / 2)], reads[d, n[d]], writes[d]
      }
    }'

#!/usr/bin/env bash
# tools/ncu/dram_background.sh [ROUNDS]: how much DRAM traffic a launch that touches no memory
# shows under Nsight Compute, by the kernel's duration (dram_background.cu says why). Prints, per
# duration, the launches' least, median and largest dram__bytes_read.sum and largest
# dram__bytes_write.sum. Needs nvcc, ncu and a GPU whose counters this user may read.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
rounds=${1:-12}
[[ $rounds =~ ^[0-9]+$ ]] && ((rounds >= 1 && rounds <= 1000)) ||
  { echo "dram_background.sh: ROUNDS must be a whole number from 1 to 1000, not '$rounds'" >&2; exit 2; }
command -v nvcc >/dev/null && command -v ncu >/dev/null ||
  { echo "dram_background.sh: needs nvcc and ncu on the PATH (the CUDA toolkit's bin)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d '.')
nvcc -O2 -arch="sm_$arch" -o "$work/dram_background" "$(dirname "$0")/dram_background.cu"
ncu --clock-control none --csv --print-units base \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
  "$work/dram_background" "$rounds" >"$work/ncu.csv"
# One row a launch and metric: "ID","...","Metric Name","Metric Unit","Metric Value". Launch i
# of a round spins for the i-th duration, so ID % 5 names it.
awk -F'","' 'NR > 1 && $0 ~ /spin_without_memory/ {
    id = $1; gsub(/"/, "", id); value = $NF; gsub(/[",]/, "", value)
    for (i = 1; i <= NF; i++) if ($i ~ /^(dram__bytes|gpu__time)/) name = $i
    row[id, name] = value; ids[id] = 1
  }
  END {
    split("0 2e4 2e5 2e6 2e7", label, " ")
    for (id in ids) {
      d = id % 5 + 1; n[d]++
      reads[d, n[d]] = row[id, "dram__bytes_read.sum"]
      if (row[id, "dram__bytes_write.sum"] + 0 > writes[d]) writes[d] = row[id, "dram__bytes_write.sum"] + 0
      time[d] += row[id, "gpu__time_duration.sum"]
    }
    printf "%-8s %10s %6s %12s %12s %12s %14s\n", "cycles", "mean ns", "runs", "least read", "median read", "most read", "most written"
    for (d = 1; d <= 5; d++) {
      for (i = 1; i <= n[d]; i++) for (j = i + 1; j <= n[d]; j++)
        if (reads[d, j] + 0 < reads[d, i] + 0) { t = reads[d, i]; reads[d, i] = reads[d, j]; reads[d, j] = t }
      printf "%-8s %10.0f %6d %12d %12d %12d %14d\n", label[d], time[d] / n[d], n[d], reads[d, 1], reads[d, int((n[d] + 1) / 2)], reads[d, n[d]], writes[d]
    }
  }' "$work/ncu.csv"

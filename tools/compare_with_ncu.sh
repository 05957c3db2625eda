#!/usr/bin/env bash
# Checks that memlab's counter values equal Nsight Compute's for the same kernels.
#
#   tools/compare_with_ncu.sh BUILD_DIR
#
# For each case, runs the lab once with its own profiler (JSON report) and once under ncu with
# the same arguments and the same Perfworks names, then prints both values and their difference.
# Needs a GPU, ncu on PATH and python3. Exit status 1 if any value differs by more than 1%.
set -euo pipefail
build=${1:?usage: tools/compare_with_ncu.sh BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cases=(
  "coalescing copy_coalesced --variant coalesced --n 67108867"
  "coalescing copy_strided --variant strided --n 67108864 --stride 1"
  "coalescing copy_strided --variant strided --n 67108864 --stride 2"
  "coalescing copy_strided --variant strided --n 67108864 --stride 4"
  "coalescing copy_strided --variant strided --n 67108864 --stride 8"
  "coalescing copy_strided --variant strided --n 67108864 --stride 32"
  "coalescing copy_offset --variant offset --n 67108864 --offset 1"
  "coalescing copy_offset --variant offset --n 67108864 --offset 8"
  "coalescing copy_broadcast --variant broadcast --n 67108864"
)

status=0
index=0
for entry in "${cases[@]}"; do
  read -r program kernel arguments <<<"$entry"
  index=$((index + 1))
  # shellcheck disable=SC2086
  "$build/labs/$program" $arguments --seed 7 --reps 1 --warmup 0 --format json \
    --out "$work/memlab-$index.json" >/dev/null
  names=$(python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
names = []
for full in report["records"][0]["metrics"]:
    for part in full.split(" / "):
        if part not in names:
            names.append(part)
print(",".join(names))' "$work/memlab-$index.json")
  # shellcheck disable=SC2086
  ncu --clock-control none --csv --print-units base --metrics "$names" --kernel-name "regex:^$kernel" --launch-count 1 \
    "$build/labs/$program" $arguments --seed 7 --reps 1 --warmup 0 --metrics none \
    >"$work/ncu-$index.csv" 2>"$work/ncu-$index.log" || { cat "$work/ncu-$index.log" >&2; exit 2; }
  python3 - "$work/memlab-$index.json" "$work/ncu-$index.csv" "$program $arguments" <<'PY' || status=1
import csv, json, math, sys
report = json.load(open(sys.argv[1]))
rows = [line for line in open(sys.argv[2]) if line.startswith('"')]
ncu = {}
for row in csv.DictReader(rows):
    ncu[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
worst = 0.0
print(f"== {sys.argv[3]}")
for full, metric in report["records"][0]["metrics"].items():
    parts = full.split(" / ")
    theirs = ncu[parts[0]] / ncu[parts[1]] if len(parts) == 2 else ncu[parts[0]]
    ours = metric["measured"]
    difference = abs(ours - theirs) / abs(theirs) if theirs else abs(ours)
    worst = max(worst, difference)
    print(f"  {metric['alias']:32} memlab {ours:16.6g}  ncu {theirs:16.6g}  diff {100 * difference:7.3f}%")
sys.exit(0 if worst <= 0.01 else 1)
PY
done
exit $status

#!/usr/bin/env bash
# test_cases_limits: under --cases (the grader's path) no case inherits a device limit an
# earlier case set. Coalescing's --l2_fetch 128 case, then a case with the driver's own fetch
# granularity (--l2_fetch 0): the second case's predicted DRAM bytes must be those of the same
# run in a process of its own (the model reads the granularity when the device opens). Only
# predictions are compared, so the kernels need not be right.
#   tests/gpu/test_cases_limits.sh PROGRAM BUILD   (PROGRAM: the coalescing lab; BUILD/tools/memlab_report)
set -uo pipefail
program=${1:?usage: test_cases_limits.sh COALESCING_PROGRAM BUILD}
report_tool=${2:?usage: test_cases_limits.sh COALESCING_PROGRAM BUILD}/tools/memlab_report
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run="--variant strided --n 100000 --stride 33 --reps 1 --warmup 0 --metrics dram_read_bytes --format json"
printf '%s\n' "$run --l2_fetch 128 --out $work/first.json" "$run --l2_fetch 0 --out $work/second.json" \
  >"$work/cases"
"$program" --cases "$work/cases" >"$work/cases.log" 2>&1
# shellcheck disable=SC2086 # the run's words
"$program" $run --l2_fetch 0 --out "$work/alone.json" >"$work/alone.log" 2>&1

# predicted DRAM bytes of REPORT's strided record (the CSV's column by its header's name)
predicted() {
  "$report_tool" csv "$1" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "dram_read_bytes_predicted") c = i }
                                     NR > 1 && $2 == "strided" { print $c }'
}
first=$(predicted "$work/first.json") second=$(predicted "$work/second.json")
alone=$(predicted "$work/alone.json")
echo "predicted DRAM reads: --l2_fetch 128 case $first, then --l2_fetch 0 case $second; alone $alone"
if [[ -z $second || -z $alone || -z $first ]]; then
  echo "FAIL: a run wrote no prediction"; tail -n 3 "$work/cases.log" "$work/alone.log" "$work"/*.stderr 2>/dev/null
  exit 1
fi
[[ $first != "$alone" ]] || { echo "FAIL: --l2_fetch 128 predicted what the default does: the test proves nothing"; exit 1; }
[[ $second == "$alone" ]] || { echo "FAIL: the case after --l2_fetch 128 predicted $second, alone $alone"; exit 1; }
echo "test_cases_limits: passed"

#!/usr/bin/env bash
# unit_counters: memlab_counters, which ./memlab check and bench trust to judge memlab against
# Nsight Compute, on a hand-made report and ncu CSV: agreement and disagreement at each
# tolerance's edge, the DRAM-write and DRAM-read floors, bad input.
#
#   test_counters.sh MEMLAB_COUNTERS
set -uo pipefail
counters=${1:?usage: test_counters.sh MEMLAB_COUNTERS}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A report with one variant: a count, a ratio, a percentage and the DRAM bytes written.
report() {
  cat >"$work/report.json" <<JSON
{"lab": "coalescing", "records": [{"variant": "copy", "params": {"n": 1}, "resources": {"kernel": "_Z4copyPfPKfm"},
  "metrics": {
    "dram__bytes_read.sum": {"alias": "dram_read_bytes", "unit": "bytes", "measured": $1},
    "smsp__sass_inst_executed_op_shared_ld.sum / smsp__inst_executed_op_shared_ld.sum":
      {"alias": "wavefronts_per_shared_load", "unit": "wavefronts", "measured": $2},
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct":
      {"alias": "gld_efficiency", "unit": "%", "measured": $3},
    "dram__bytes_write.sum": {"alias": "dram_write_bytes", "unit": "bytes", "measured": $4}}}]}
JSON
}
cat >"$work/ncu.csv" <<'CSV'
==PROF== Connected to process 1
"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","copy","dram__bytes_read.sum","byte","1,000,000"
"0","copy","dram__bytes_write.sum","byte","50,000,000"
"0","copy","smsp__inst_executed_op_shared_ld.sum","inst","1,000"
"0","copy","smsp__sass_inst_executed_op_shared_ld.sum","wavefront","4,000"
"0","copy","smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct","%","50"
CSV

expect() {  # expect STATUS DESCRIPTION MEASURED... [WRITE_FLOOR [READ_FLOOR]]
  local want=$1 what=$2
  report "$3" "$4" "$5" "$6"
  "$counters" compare "$work/report.json" copy "$work/ncu.csv" "${7:-0}" "${8:-0}" >"$work/out" 2>&1
  local got=$?
  [[ $got == "$want" ]] || { fail "$what: exit $got, expected $want"; cat "$work/out"; }
}

expect 0 "equal values" 1000000 4 50 50000000
expect 0 "counts 0.9% apart" 1009000 4 50 50000000
expect 1 "counts 1.1% apart" 1011000 4 50 50000000
expect 0 "ratios 0.9% apart" 1000000 4.036 50 50000000
expect 1 "ratios 2% apart" 1000000 4.08 50 50000000
expect 0 "percentages 0.5 points apart" 1000000 4 50.5 50000000
expect 1 "percentages 0.6 points apart" 1000000 4 50.6 50000000
expect 0 "writes 0.9% apart" 1000000 4 50 49550000
expect 1 "writes 4% apart, no floor" 1000000 4 50 48000000
expect 0 "writes 2 MB apart, floor 2.1 MB" 1000000 4 50 48000000 2100000
expect 0 "writes 2.5 MB apart, 1% plus floor 2.1 MB" 1000000 4 50 47500000 2100000
expect 1 "writes 3 MB apart, 1% plus floor 2.1 MB" 1000000 4 50 47000000 2100000
expect 0 "reads 1.3% apart, 1% plus read floor 3,840" 1013000 4 50 50000000 0 3840
expect 1 "reads 1.4% apart, 1% plus read floor 3,840" 1014000 4 50 50000000 0 3840
expect 1 "reads 1.3% apart, the read floor given as the write floor" 1013000 4 50 50000000 3840 0
expect 1 "writes 2 MB apart, the write floor given as the read floor" 1000000 4 50 48000000 0 2100000
expect 1 "a value memlab did not read" 1000000 4 50 null
report 1013000 4 50 48000000
# Into a file first: grep -q stops reading early, and under pipefail a SIGPIPE would fail.
"$counters" compare "$work/report.json" copy "$work/ncu.csv" 2100000 3840 >"$work/compare.txt" ||
  fail "compare of a write difference inside the floor exited $?"
grep -q "within ncu's write floor" "$work/compare.txt" ||
  fail "a write difference inside the floor is not labelled as such"
grep -q "within a launch's own reads" "$work/compare.txt" ||
  fail "a read difference inside the read floor is not labelled as such"

# The bank-conflict residue: a conflict count may differ by RESIDUE_RATIO (0.01) per load when
# the record also has its per-load ratio (the same measurement), and by no more than 1% otherwise.
conflicts=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
loads=smsp__inst_executed_op_shared_ld.sum
cat >"$work/conflicts.csv" <<CSV
"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","copy","$conflicts","","35"
"0","copy","$loads","inst","32,032"
CSV
conflict_report() {  # conflict_report COUNT RATIO|none
  local ratio=""
  [[ $2 != none ]] &&
    ratio=", \"$conflicts / $loads\": {\"alias\": \"per_load\", \"unit\": \"conflicts\", \"measured\": $2}"
  echo "{\"lab\": \"bank_conflicts\", \"records\": [{\"variant\": \"copy\", \"params\": {}, \"metrics\": {\"$conflicts\":
    {\"alias\": \"conflicts\", \"unit\": \"conflicts\", \"measured\": $1}$ratio}}]}" >"$work/conflicts.json"
  "$counters" compare "$work/conflicts.json" copy "$work/conflicts.csv" 0 0 >"$work/out" 2>&1
}
conflict_report 157 0.0049
[[ $? == 0 ]] && grep -q "within the residue" "$work/out" ||
  fail "157 conflicts against 35 in 32,032 loads (0.004 per load apart) were not within the residue"
conflict_report 400 0.0125
[[ $? == 1 ]] || fail "400 conflicts against 35 in 32,032 loads (0.011 per load apart) agreed"
conflict_report 157 none
[[ $? == 1 ]] || fail "157 conflicts against 35 agreed without a per-load ratio to bound the residue"

[[ $("$counters" ncu-value "$work/ncu.csv" dram__bytes_write.sum) == 50000000 ]] ||
  fail "ncu-value did not read dram__bytes_write.sum"
# Several launches profiled (the input fill, one per input): the largest value.
cat >"$work/fills.csv" <<'CSV'
"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","fill_random_kernel","dram__bytes_read.sum","byte","3,584"
"1","fill_random_kernel","dram__bytes_read.sum","byte","3,840"
"2","fill_random_kernel","dram__bytes_read.sum","byte","2,048"
CSV
[[ $("$counters" ncu-value "$work/fills.csv" dram__bytes_read.sum) == 3840 ]] ||
  fail "ncu-value over three launches did not give the largest, 3840"
[[ $("$counters" ncu-values "$work/fills.csv" dram__bytes_read.sum | tr '\n' ' ') == "3584 3840 2048 " ]] ||
  fail "ncu-values did not give every launch's value in order"
"$counters" ncu-values "$work/fills.csv" dram__bytes_write.sum >/dev/null 2>&1
[[ $? == 2 ]] || fail "ncu-values of an absent metric did not exit 2"
"$counters" ncu-value "$work/ncu.csv" no_such.metric >/dev/null 2>&1
[[ $? == 2 ]] || fail "ncu-value of an absent metric did not exit 2"
for floor in -1 abc 5x ""; do
  "$counters" compare "$work/report.json" copy "$work/ncu.csv" "$floor" 0 >/dev/null 2>&1
  [[ $? == 2 ]] || fail "write floor '$floor' was not refused with exit 2"
  "$counters" compare "$work/report.json" copy "$work/ncu.csv" 0 "$floor" >/dev/null 2>&1
  [[ $? == 2 ]] || fail "read floor '$floor' was not refused with exit 2"
done
"$counters" compare "$work/report.json" copy "$work/ncu.csv" 0 >/dev/null 2>&1
[[ $? == 2 ]] || fail "compare without a read floor was not refused with exit 2"
"$counters" compare "$work/report.json" nosuch "$work/ncu.csv" 0 0 >/dev/null 2>&1
[[ $? == 2 ]] || fail "an unknown variant was not refused with exit 2"

# counter-seconds: the report's own collection time; none when the counters were not read.
echo '{"lab": "coalescing", "profiler_note": null, "counter_seconds": 1.25, "records": []}' >"$work/timed.json"
[[ $("$counters" counter-seconds "$work/timed.json") == 1.250 ]] ||
  fail "counter-seconds did not read 1.25"
echo '{"lab": "coalescing", "profiler_note": "not read: no permission", "counter_seconds": 0.01, "records": []}' >"$work/noted.json"
"$counters" counter-seconds "$work/noted.json" >/dev/null 2>&1
[[ $? == 1 ]] || fail "counter-seconds of a report that read no counters did not exit 1"
echo '{"lab": "coalescing", "profiler_note": null, "counter_seconds": null, "records": []}' >"$work/none.json"
"$counters" counter-seconds "$work/none.json" >/dev/null 2>&1
[[ $? == 1 ]] || fail "counter-seconds of a report that asked for no counters did not exit 1"
"$counters" counter-seconds "$work/missing.json" >/dev/null 2>&1
[[ $? == 2 ]] || fail "counter-seconds of a missing file did not exit 2"

# best: the record closest to its ceiling over several reports; a FLOP/s ceiling is no contender.
echo '{"lab": "bank_conflicts", "records": [{"variant": "padded", "params": {}, "pct_of_ceiling": 83.6}, {"variant": "naive", "params": {}, "pct_of_ceiling": 12.8}]}' >"$work/a.json"
echo '{"lab": "bank_conflicts", "records": [{"variant": "swizzled", "params": {}, "pct_of_ceiling": 81.8}]}' >"$work/b.json"
[[ $("$counters" best "$work/a.json" "$work/b.json") == "padded 83.6 copy" ]] ||
  fail "best over two reports did not pick padded"
echo '{"lab": "shared_tiling", "flops_ceiling_variant": "cublas", "records": [{"variant": "cublas", "params": {}, "pct_of_flops_ceiling": 100},
  {"variant": "coarsened", "params": {}, "pct_of_flops_ceiling": 78.2}]}' >"$work/c.json"
[[ $("$counters" best "$work/c.json") == "coarsened 78.2 cublas" ]] ||
  fail "best counted the FLOP/s ceiling as a contender"
# best --peak: against each record's own peak (lab 09's host link), not the device copy.
echo '{"lab": "unified_memory", "records": [{"variant": "pinned_copy", "params": {}, "pct_of_ceiling": 1.3, "pct_of_peak": 57.1},
  {"variant": "zero_copy", "params": {}, "pct_of_ceiling": 1.7, "pct_of_peak": 77.6}]}' >"$work/e.json"
[[ $("$counters" best --peak "$work/e.json") == "zero_copy 77.6 peak" ]] ||
  fail "best --peak did not pick zero_copy at 77.6% of its peak"
# bench-json: a lab whose counters Nsight Compute reads none of (ncu seconds "-") has no ncu
# seconds and no ratio, not 0 and NaN; another lab keeps both.
printf 'unified_memory\tpinned_copy\t85.9\tpeak\t2.401\t-\ncoalescing\tcoalesced\t91.2\tcopy\t1.5\t3.0\n' >"$work/rows.tsv"
bench=$("$counters" bench-json "$work/rows.tsv") || fail "bench-json exited non-zero"
python3 - "$bench" <<'PY' || fail "bench-json: wrong ncu seconds or ratio: $bench"
import json, sys
labs = json.loads(sys.argv[1])["labs"]
assert labs[0]["ncu_collection_s"] is None and labs[0]["memlab_over_ncu"] is None, labs[0]
assert labs[0]["memlab_collection_s"] == 2.401, labs[0]
assert labs[1]["ncu_collection_s"] == 3.0 and labs[1]["memlab_over_ncu"] == 0.5, labs[1]
PY
echo '{"lab": "bank_conflicts", "records": [{"variant": "x", "params": {}, "pct_of_ceiling": null}]}' >"$work/d.json"
"$counters" best "$work/d.json" >/dev/null 2>&1
[[ $? == 2 ]] || fail "best of a report without timings did not exit 2"

if ((failures > 0)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "memlab_counters: every judgement as expected"

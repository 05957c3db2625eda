#!/usr/bin/env bash
# test_census_from: tests/model_census.sh --from takes the census of the recorded H200 demo
# (handouts/figures/h200) again with today's model, no GPU needed: every report is predicted anew
# and the census reads its 654 pairs; a report predicted anew keeps every measurement and takes
# exactly the predictions of a fresh --model run with the same arguments; --gpu chooses the facts;
# memlab_report repredict refuses a --model report that lacks a record, with one line.
#   tests/unit/test_census_from.sh BUILD
set -uo pipefail
build=${1:?usage: test_census_from.sh BUILD}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
report_tool=$build/tools/memlab_report
recorded=$root/handouts/figures/h200/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$root/tests/model_census.sh" "$build" --from "$root/handouts/figures/h200" --gpu h200 \
  --out "$work/h200" >"$work/h200.log" 2>&1 || fail "--from --gpu h200 exited $?: $(tail -n 2 "$work/h200.log")"
grep -q '^census: 654 pairs: ' "$work/h200.log" || fail "--from: no census of 654 pairs: $(grep census "$work/h200.log")"
grep -q '25 reports from .* predicted anew (--gpu h200), 0 failed' "$work/h200.log" ||
  fail "--from: not every report predicted anew: $(tail -n 1 "$work/h200.log")"

# coalescing-1: the measurements as recorded, the predictions of a fresh --model run.
columns=gld_efficiency,gld_transactions_per_request,dram_read_bytes,dram_write_bytes
measured=${columns//,/.measured,}.measured
predicted=${columns//,/.predicted,}.predicted
"$report_tool" bars --columns "$measured" "$recorded/coalescing-1.json" >"$work/before" 2>/dev/null
"$report_tool" bars --columns "$measured" "$work/h200/coalescing-1.json" >"$work/after" 2>/dev/null
[[ -s $work/before ]] || fail "no measured column in the recorded coalescing-1.json"
cmp -s "$work/before" "$work/after" || fail "coalescing-1: measurements changed: $(diff "$work/before" "$work/after" | head -n 3)"
seed=$("$report_tool" arguments "$recorded/coalescing-1.json" | head -n 1 | awk '{ print $3 }')
"$build/labs/coalescing" --variant all --seed "$seed" --model --format json --gpu h200 >"$work/fresh.json" 2>/dev/null ||
  fail "coalescing --model failed"
"$report_tool" bars --columns "$predicted" "$work/fresh.json" >"$work/fresh" 2>/dev/null
"$report_tool" bars --columns "$predicted" "$work/h200/coalescing-1.json" >"$work/anew" 2>/dev/null
[[ -s $work/fresh ]] || fail "no predicted column in the fresh --model report"
cmp -s "$work/fresh" "$work/anew" || fail "coalescing-1: predictions not the fresh run's: $(diff "$work/fresh" "$work/anew" | head -n 3)"

# --gpu h100: the H100's facts (its 50 MiB L2) replace the H200's in the report.
"$root/tests/model_census.sh" "$build" --from "$root/handouts/figures/h200" --gpu h100 \
  --out "$work/h100" >"$work/h100.log" 2>&1 || fail "--from --gpu h100 exited $?"
grep -q 'l2_bytes=52428800;' <("$report_tool" caches "$work/h100/coalescing-1.json") ||
  fail "--gpu h100: the report's facts are not the H100's: $("$report_tool" caches "$work/h100/coalescing-1.json")"

# And the H100's predictions, not those recorded on the H200 (its dram_write_bytes ranges follow
# the L2's size), while the measurements stay.
"$report_tool" bars --columns "$predicted" "$recorded/coalescing-1.json" >"$work/recorded_predicted" 2>/dev/null
"$report_tool" bars --columns "$predicted" "$work/h100/coalescing-1.json" >"$work/h100_predicted" 2>/dev/null
cmp -s "$work/recorded_predicted" "$work/h100_predicted" && fail "--gpu h100: the H200's predictions were kept"
"$report_tool" bars --columns "$measured" "$work/h100/coalescing-1.json" >"$work/h100_measured" 2>/dev/null
cmp -s "$work/before" "$work/h100_measured" || fail "--gpu h100: measurements changed"

# A --model report of other sizes has none of the recorded records: refused, one line.
"$build/labs/coalescing" --variant strided --n 5 --model --format json >"$work/other.json" 2>/dev/null
"$report_tool" repredict "$recorded/coalescing-1.json" "$work/other.json" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 2 ]] || fail "repredict with no matching record: exit $status, expected 2"
[[ $(wc -l <"$work/err") -eq 1 ]] && grep -q 'no --model report has a record of' "$work/err" ||
  fail "repredict with no matching record said: $(cat "$work/err")"
[[ ! -s $work/out ]] || fail "repredict with no matching record wrote to stdout"

# --from a folder with no report: one line, exit 2.
mkdir "$work/empty"
"$root/tests/model_census.sh" "$build" --from "$work/empty" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 2 ]] || fail "--from an empty folder: exit $status, expected 2"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "test_census_from: the recorded H200 demo predicted anew: $(grep '^census' "$work/h200.log")"

#!/usr/bin/env bash
# test_census: memlab_report census counts a report's predicted/measured pairs as within 5% of a
# point prediction, inside a narrow predicted range (high at most 1.25 times low; from zero, high
# at most 5% of the count it is stated against), inside a wide range (a miss) or outside (range
# ends stretched by 5%), and --list names the ones outside and in wide ranges. No GPU: the
# reports are written here.
#   tests/unit/test_census.sh PATH/TO/memlab_report
set -uo pipefail
report_tool=${1:?usage: test_census.sh MEMLAB_REPORT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# metric NAME PREDICTED LOW REASON MEASURED [AGAINST]: one metric object (REASON null for a
# point; AGAINST, the count a range from zero is stated against, null when not given).
metric() {
  printf '"%s": {"alias": "%s", "unit": "x", "predicted": %s, "predicted_low": %s, "range_reason": %s, "range_against": %s, "measured": %s}' \
    "$1" "$1" "$2" "$3" "$4" "${6:-null}" "$5"
}
{
  echo '{"lab": "coalescing", "records": ['
  echo '  {"variant": "strided", "params": {"n": 64, "stride": 9}, "metrics": {'
  metric gld_efficiency 11.11 11.11 null 11.2
  echo ','
  metric dram_read_bytes 100 100 null 106
  echo ','
  metric dram_write_bytes 256 206 '"the L2 writes back"' 230
  echo ','
  metric gst_efficiency 100 100 null null
  echo '}},'
  echo '  {"variant": "broadcast", "params": {"n": 64, "stride": 4}, "metrics": {'
  metric dram_write_bytes 256 206 '"the L2 writes back"' 268
  echo ','
  metric dram_write_bytes_low 256 206 '"the L2 writes back"' 190
  echo ','
  metric shared_ld_bank_conflict 0 0 null 0
  echo ','
  metric shared_st_bank_conflict 0 0 null 3
  echo '}},'
  echo '  {"variant": "transpose", "params": {"n": 64}, "metrics": {'
  metric dram_read_bytes 200 100 '"the L2 holds some"' 150
  echo ','
  metric shared_ld_bank_conflict 40 0 '"a residue"' 10 1000
  echo ','
  metric shared_st_bank_conflict 40 0 '"a residue"' 10
  echo ','
  metric shared_ld_conflicts_per_request 0.1 0 '"a residue"' 0.01 1
  echo '}}]}'
} >"$work/a.json"

out=$("$report_tool" census "$work/a.json")
status=$?
[[ $status -eq 0 ]] || fail "census exited $status"
# Within 5%: gld_efficiency (0.8% off), the zero conflicts measured 0. Inside a narrow range
# (256 / 206 = 1.24): 230, and 268 (5% above 256 is 268.8); 0..40 stated against 1000 loads
# (4%). Inside a wide range: 100..200 (2x); 0..40 stated against nothing; 0..0.1 conflicts per
# request (10% of one). Outside: dram_read_bytes (6% off), 190 (below 0.95 * 206), 3 conflicts
# where 0 was predicted. gst_efficiency has no measurement: no pair. Met: 5 of 11.
expected="census: 11 pairs: 2 within 5%, 3 inside a narrow range, 3 inside a wide range (a miss), 3 outside: 45.5% met"
[[ $out == "$expected" ]] || fail "census said '$out', expected '$expected'"
list=$("$report_tool" census --list "$work/a.json")
[[ $(grep -c '^outside: ' <<<"$list") -eq 3 ]] ||
  fail "--list: $(grep -c '^outside: ' <<<"$list") pairs outside, expected 3"
[[ $(grep -c '^wide: ' <<<"$list") -eq 3 ]] ||
  fail "--list: $(grep -c '^wide: ' <<<"$list") pairs in wide ranges, expected 3"
grep -qF 'outside: coalescing strided {"n":64,"stride":9} dram_read_bytes: predicted 100, measured 106' <<<"$list" ||
  fail "--list does not name dram_read_bytes of strided: $list"
grep -qF 'wide: coalescing transpose {"n":64} dram_read_bytes: predicted 100..200, measured 150' <<<"$list" ||
  fail "--list does not name the wide dram_read_bytes of transpose: $list"

# A --model report: predictions, no measurement: no pair, exit 1.
{
  echo '{"lab": "coalescing", "records": [{"variant": "strided", "params": {"n": 64}, "metrics": {'
  metric gld_efficiency 11.11 11.11 null null
  echo '}}]}'
} >"$work/model.json"
"$report_tool" census "$work/model.json" >/dev/null 2>"$work/err"
status=$?
[[ $status -eq 1 ]] || fail "a report with no measurement: exit $status, expected 1"
grep -q 'no pair' "$work/err" || fail "a report with no measurement: no message ($(cat "$work/err"))"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "census: counted and listed as expected"

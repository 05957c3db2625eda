# Sourced by test_lab_cli.sh for the constant_ldg program: its own rules and predictions.

# The mask has a centre pixel: an even width is refused, also as a sweep point and with --model.
expect_refused --mask 4 --out "$work/report.json"
expect_refused --mask 14 --variant global --out "$work/report.json"
expect_refused --model --mask 8 --out "$work/report.json"
expect_refused --model --sweep mask=3:15 --out "$work/report.json"
grep -q 'odd' "$work/err" || fail "the even-mask message does not say the mask must be odd"
expect_refused --distinct 33 --out "$work/report.json"
expect_refused --spacing 17 --out "$work/report.json"

"$lab" --model --sweep mask=3:15:2 --format json --out "$work/model.json" >/dev/null 2>"$work/err" ||
  fail "--model --sweep mask=3:15:2 exited $?"
[[ $(grep -c '"variant":' "$work/model.json") -eq 42 ]] ||
  fail "--sweep mask=3:15:2 should give 7 records for each of the 6 variants"

"$lab" --model --variant constant_divergent --distinct 8 --format json --out "$work/model.json" \
  >/dev/null 2>"$work/err" || fail "--model --distinct 8 exited $?"
grep -q '"constant_requests_per_instruction"' "$work/model.json" ||
  fail "--model JSON has no constant_requests_per_instruction"
grep -q '"predicted":	8,' "$work/model.json" || fail "--model JSON lacks 8 requests per LDC for --distinct 8"

# Into a file first: grep -q stops reading early, and under pipefail the program's SIGPIPE fails.
"$lab" --list >"$work/list.txt" || fail "--list exited $?"
for variant in global constant ldg constant_broadcast constant_divergent ldg_divergent; do
  grep -q "^  $variant " "$work/list.txt" || fail "--list does not list $variant"
done
# --list says what each variant does, not what it measures to: requests and sectors per load are
# what the handout asks students to predict.
grep '^  ' "$work/list.txt" >"$work/summaries"
! grep -Eiq 'request|sector|replay|broadcast,|no global load' "$work/summaries" ||
  fail "--list gives away a prediction: $(grep -Ei 'request|sector|replay|broadcast,|no global load' "$work/summaries" | head -1)"

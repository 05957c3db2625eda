# Sourced by test_lab_cli.sh for the register_spill program: its own predictions and flags.
"$lab" --model --variant dynamic_index --n 4096 --lane_stride 8 --format json \
  --out "$work/model.json" >/dev/null 2>"$work/err" || fail "--model exited $?"
grep -q '"local_load_transactions_per_request"' "$work/model.json" ||
  fail "--model JSON has no local_load_transactions_per_request"
grep -q '"predicted":	16,' "$work/model.json" || fail "--model JSON lacks the lane_stride-8 prediction"
# Into a file first: grep -q stops reading early, and under pipefail the program's SIGPIPE fails.
"$lab" --list >"$work/list.txt" || fail "--list exited $?"
for variant in static_index dynamic_index uncapped capped smem_spill; do
  grep -q "^  $variant " "$work/list.txt" || fail "--list does not list $variant"
done
# The rotation is taken mod 32: a lane_stride of 32 or more is refused, not folded.
expect_refused --lane_stride 32 --out "$work/report.json"
expect_refused --variant dynamic_index --sweep lane_stride=0:40 --out "$work/report.json"
expect_refused --n 4294967297 --out "$work/report.json"
expect_refused --variant capped --metrics local_load_transactions,bogus --out "$work/report.json"

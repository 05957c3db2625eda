# shellcheck disable=SC2154 # lab and work are set by test_lab_cli.sh, which sources this file
# Sourced by test_lab_cli.sh for the bank_conflicts program: its own rules and predictions.
# --width is 4, 8 or 16 bytes: values between the bounds are refused too, with or without
# --model, alone or inside a sweep, before anything runs.
for bad in 3 5 12 15 17; do
  expect_refused --width "$bad" --out "$work/report.json"
  expect_refused --model --width "$bad" --out "$work/report.json"
done
expect_refused --variant shared_stride --sweep width=4:8 --out "$work/report.json"
expect_refused --model --variant shared_stride --sweep width=4:16:4 --out "$work/report.json"

for width in 4 8 16; do
  "$lab" --model --variant shared_stride --width "$width" --out "$work/model.json" >/dev/null 2>"$work/err" ||
    fail "--model --width $width exited $?"
  rm -f "$work/model.json"
done
# Stride 2 of 4-byte words: lanes i and i + 16 share a bank, one conflict per load.
"$lab" --model --variant shared_stride --stride 2 --format json --out "$work/model.json" \
  >/dev/null 2>"$work/err" || fail "--model --stride 2 exited $?"
grep -A3 '"shared_ld_conflicts_per_request"' "$work/model.json" >"$work/conflicts"
grep -q '"predicted":	1,' "$work/conflicts" || fail "--model JSON lacks one conflict per load at stride 2"
rm -f "$work/model.json"
"$lab" --list >"$work/out"
for variant in transpose_naive transpose_shared transpose_padded transpose_swizzled shared_stride \
  broadcast; do
  grep -q "^  $variant " "$work/out" || fail "--list does not list $variant"
done
# --list says what each variant does, not what it measures to: the conflict counts and the stride
# rule are what the handout asks students to predict.
grep '^  ' "$work/out" >"$work/summaries"
! grep -Eiq 'gcd|-way|conflict|wavefront|free' "$work/summaries" ||
  fail "--list gives away a prediction: $(grep -Ei 'gcd|-way|conflict|wavefront|free' "$work/summaries" | head -1)"

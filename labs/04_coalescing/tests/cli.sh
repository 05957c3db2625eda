# Sourced by test_lab_cli.sh for the coalescing program: its own predictions and flags.
"$lab" --model --n 1000003 --stride 3 --format json --out "$work/model.json" >/dev/null 2>"$work/err" ||
  fail "--model exited $?"
grep -q '"gld_efficiency"' "$work/model.json" || fail "--model JSON has no gld_efficiency"
grep -q '"predicted":	33.33' "$work/model.json" || fail "--model JSON lacks the stride-3 prediction"
grep -q '^  strided' "$work/list" || fail "--list does not list strided"
expect_refused --n 17179869185 --out "$work/report.json"
expect_refused --sweep width=1:4 --out "$work/report.json"
# --list says what each variant does, not what it measures to: efficiencies, sector counts and
# the cost of an offset are what the handout asks students to predict.
grep '^  ' "$work/list" >"$work/summaries"
! grep -Ei '[0-9] ?%|efficien|sector|100 / stride' "$work/summaries" >/dev/null ||
  fail "--list gives away a prediction: $(grep -Ei '[0-9] ?%|efficien|sector|100 / stride' "$work/summaries" | head -1)"

#!/usr/bin/env bash
# test_census_draws: tests/model_census.sh's draws are sizes every lab takes. Two seeds, every
# lab's draw run with --model (no GPU): each run must be predicted, and a seed must draw the same
# sizes twice. On a GPU the same command without --model prints the census.
#   tests/unit/test_census_draws.sh BUILD
set -uo pipefail
build=${1:?usage: test_census_draws.sh BUILD}
census=$(dirname "${BASH_SOURCE[0]}")/../model_census.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for seed in 11 46; do
  out=$("$census" "$build" --model --runs 27 --seed "$seed" --out "$work/$seed" 2>&1)
  status=$?
  [[ $status -eq 0 ]] || fail "seed $seed: exit $status: $out"
  grep -qF "model_census: seed $seed: 27 of 27 runs predicted" <<<"$out" ||
    fail "seed $seed: not every draw was predicted: $out"
  [[ $(ls "$work/$seed"/*.json 2>/dev/null | wc -l) -eq 27 ]] || fail "seed $seed: not 27 reports"
  # Every lab drawn three times, each run's first word its lab.
  [[ $(cut -d' ' -f1 "$work/$seed/runs.txt" | sort -u | wc -l) -eq 9 ]] ||
    fail "seed $seed: the runs do not cover the nine labs: $(cut -d' ' -f1 "$work/$seed/runs.txt" | sort -u | tr '\n' ' ')"
done
"$census" "$build" --model --runs 27 --seed 46 --out "$work/again" >/dev/null 2>&1
cmp -s "$work/46/runs.txt" "$work/again/runs.txt" || fail "seed 46 drew other sizes the second time"
cmp -s "$work/11/runs.txt" "$work/46/runs.txt" && fail "seeds 11 and 46 drew the same sizes"

# --seconds: no run starts after the budget, and the runs that ran are the ones reported.
out=$("$census" "$build" --model --runs 100000 --seconds 2 --seed 7 --out "$work/budget" 2>&1)
status=$?
[[ $status -eq 0 ]] || fail "--seconds 2: exit $status: $out"
grep -qE '^model_census: --seconds 2 spent: [0-9]+ of 100000 runs started$' <<<"$out" ||
  fail "--seconds 2 did not stop the draw: $out"
started=$(sed -n 's/^model_census: --seconds 2 spent: \([0-9]*\) of.*/\1/p' <<<"$out")
[[ -n $started && $(ls "$work/budget"/*.json | wc -l) -eq $started ]] ||
  fail "--seconds 2: $started runs started, $(ls "$work/budget"/*.json | wc -l) reports"

"$census" "$build" --runs 0 >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "--runs 0 not refused with 2"
"$census" "$build" --model --seconds 0 >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "--seconds 0 not refused with 2"
"$census" "$build" --model --labs nonesuch >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "an unknown lab not refused with 2"

[[ $failures -eq 0 ]] && echo "test_census_draws: all checks passed"
exit $((failures > 0))

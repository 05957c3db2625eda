#!/usr/bin/env bash
# test_lab_cli: a lab program as a user meets it, no GPU needed. Bad input gets exactly one line
# on stderr, nothing on stdout, exit status 2, and no output file; --model, --list and --help
# work anywhere; without a GPU a run exits 3 with one line naming --model.
#   tests/unit/test_lab_cli.sh PATH/TO/coalescing
set -uo pipefail
lab=${1:?usage: test_lab_cli.sh LAB_PROGRAM}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_refused() { # arguments...
  "$lab" "$@" >"$work/out" 2>"$work/err"
  local status=$?
  [[ $status -eq 2 ]] || fail "$* -> exit $status, expected 2"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "$* -> stderr has $(wc -l <"$work/err") lines, expected 1"
  [[ ! -s $work/out ]] || fail "$* -> wrote to stdout"
  [[ ! -e $work/report.json ]] || fail "$* -> created the --out file"
}

for bad in "--bogus" "--n" "--n 5x" "--n 0" "--n -4" "--n 99999999999999999999" "--stride 1.5" \
  "--variant nope" "--sweep stride=32:1" "--sweep stride=1:2000" "--sweep width=1:4" \
  "--reps 0" "--warmup -1" "--seed x" "--format xml" "--metrics bogus_metric" "--device -1" \
  "--out /nonexistent/dir/report.json" "stray"; do
  # shellcheck disable=SC2086 # each case is several words
  expect_refused $bad --out "$work/report.json"
done

"$lab" --model --n 1000003 --stride 3 --format json --out "$work/model.json" >/dev/null 2>"$work/err" ||
  fail "--model exited $?"
grep -q '"gld_efficiency"' "$work/model.json" || fail "--model JSON has no gld_efficiency"
grep -q '"predicted":	33.33' "$work/model.json" || fail "--model JSON lacks the stride-3 prediction"
"$lab" --list | grep -q '^  strided' || fail "--list does not list strided"
"$lab" --help | grep -q '^exit status' || fail "--help does not document exit statuses"
"$lab" --list-metrics | grep -q 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum' ||
  fail "--list-metrics lacks the global load sectors metric"

if ! nvidia-smi -L >/dev/null 2>&1; then
  "$lab" --n 1000 >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 3 ]] || fail "run without a GPU -> exit $status, expected 3"
  grep -q -- '--model' "$work/err" || fail "no-GPU message does not mention --model"
fi

[[ $failures -eq 0 ]] && echo "all lab CLI checks passed"
exit $((failures > 0))

#!/usr/bin/env bash
# test_lab_cli: a lab program as a user meets it, no GPU needed. Bad input gets exactly one line
# on stderr, nothing on stdout, exit status 2, and no output file; --model, --list and --help
# work anywhere; without a GPU a run exits 3 with one line naming --model.
#   tests/unit/test_lab_cli.sh PATH/TO/LAB_PROGRAM
# The bad-input corpus is built from the size flags the program's --help lists (name, default,
# range), so every lab gets the same checks; tests/unit/cli_PROGRAM.sh, when there is one, adds
# the lab's own (it is sourced here and can use expect_refused and fail).
set -uo pipefail
lab=${1:?usage: test_lab_cli.sh LAB_PROGRAM}
program=$(basename "$lab")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $program: $*"; failures=$((failures + 1)); }

expect_refused() { # arguments...
  "$lab" "$@" >"$work/out" 2>"$work/err"
  local status=$?
  [[ $status -eq 2 ]] || fail "$* -> exit $status, expected 2"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "$* -> stderr has $(wc -l <"$work/err") lines, expected 1"
  [[ ! -s $work/out ]] || fail "$* -> wrote to stdout"
  [[ ! -e $work/report.json ]] || fail "$* -> created the --out file"
}

# The options every lab shares.
expect_refused --bogus --out "$work/report.json"
expect_refused stray --out "$work/report.json"
expect_refused "" --out "$work/report.json"
expect_refused --variant nope --out "$work/report.json"
expect_refused --variant "" --out "$work/report.json"
expect_refused --variant --out "$work/report.json"
expect_refused --sweep nope=1:2 --out "$work/report.json"
expect_refused --sweep --out "$work/report.json"
expect_refused --sweep "" --out "$work/report.json"
for bad in "--reps 0" "--reps -3" "--reps 5x" "--warmup -1" "--warmup 99999999999999999999" \
  "--seed x" "--seed -1" "--format xml" "--metrics bogus_metric" "--metrics gld_efficiency,," \
  "--device -1" "--device 1.5" "--out /nonexistent/dir/report.json" "--out"; do
  # shellcheck disable=SC2086 # each case is several words
  expect_refused $bad --out "$work/report.json"
done
expect_refused --out "$work"

# --kernels: a file that cannot be a kernels file is refused before anything runs.
printf '#include "rubric"\n' >"$work/bad.cu"
printf 'int x;\n' >"$work/kernels.c"
for bad in "--kernels $work/missing.cu" "--kernels $work/kernels.c" "--kernels $work/bad.cu" \
  "--save-kernels $work/k.fatbin" "--kernels $work/bad.cu --save-kernels $work/k.fatbin" \
  "--save-kernels $work/k.cubin"; do
  # shellcheck disable=SC2086 # each case is several words
  expect_refused $bad --out "$work/report.json"
done
[[ ! -e $work/k.fatbin ]] || fail "a refused --save-kernels wrote its fatbin"

# Each size flag: "  --NAME  N  text (default D, MIN..MAX)" in --help.
sizes=$("$lab" --help | sed -n 's/^  --\([a-z_]*\) .*(default \(-\{0,1\}[0-9]*\), \(-\{0,1\}[0-9]*\)\.\.\([0-9]*\))$/\1 \2 \3 \4/p')
[[ -n $sizes ]] || fail "--help lists no size flags"
while read -r name default min max; do
  [[ -n $name ]] || continue
  for bad in "5x" "1.5" "" "99999999999999999999" "$((min - 1))" "$((max + 1))"; do
    expect_refused "--$name" "$bad" --out "$work/report.json"
  done
  expect_refused "--$name" --out "$work/report.json"
  if ((max > min)); then
    expect_refused --sweep "$name=$max:$min" --out "$work/report.json"
    expect_refused --sweep "$name=$min:$((max + 1))" --out "$work/report.json"
    expect_refused --sweep "$name=$min:$max:0" --out "$work/report.json"
  fi
  expect_refused --sweep "$name=$min" --out "$work/report.json"
  : "$default"
done <<<"$sizes"

"$lab" --model --format json --out "$work/model.json" >/dev/null 2>"$work/err" || fail "--model exited $?"
grep -q '"predicted"' "$work/model.json" || fail "--model JSON holds no prediction"
"$lab" --list >"$work/list"
[[ $(wc -l <"$work/list") -ge 2 ]] || fail "--list lists no variant"
"$lab" --help >"$work/help"
grep -q '^exit status' "$work/help" || fail "--help does not document exit statuses"
# Into a file first: grep -q stops reading at the first match, and under pipefail the lab's
# SIGPIPE would fail the check at random.
"$lab" --list-metrics >"$work/metrics"
grep -q 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum' "$work/metrics" ||
  fail "--list-metrics lacks the global load sectors metric"

if ! nvidia-smi -L >/dev/null 2>&1; then
  "$lab" >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 3 ]] || fail "run without a GPU -> exit $status, expected 3"
  grep -q -- '--model' "$work/err" || fail "no-GPU message does not mention --model"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "no-GPU message is not one line"
fi

# Every line of the lab's argument files (what ./memlab demo, check and bench run) is accepted.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
for file in "$root"/labs/[0-9][0-9]_"$program"/{demo,check,bench}.args; do
  [[ -f $file ]] || continue
  while IFS= read -r arguments || [[ -n $arguments ]]; do
    [[ -z $arguments || $arguments == \#* ]] && continue
    # shellcheck disable=SC2086 # the arguments are words on purpose
    "$lab" $arguments --model >/dev/null 2>"$work/err" ||
      fail "$(basename "$file"): '$arguments' refused: $(head -n1 "$work/err")"
  done <"$file"
done

lab_checks=$(dirname "${BASH_SOURCE[0]}")/cli_$program.sh
# shellcheck source=/dev/null
[[ -f $lab_checks ]] && source "$lab_checks"

[[ $failures -eq 0 ]] && echo "all CLI checks of $program passed"
exit $((failures > 0))

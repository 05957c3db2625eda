#!/usr/bin/env bash
# test_lab_cli: a lab program as a user meets it, no GPU needed. Bad input gets exactly one line
# on stderr, nothing on stdout, exit status 2, and no output file; its hints name commands a user
# can type (./memlab run PROGRAM --help, --list); a --kernels file may include the lab's real
# header only, and the refusal names it (or says the lab has none); --model, --list and --help
# work anywhere; --out FILE writes the report in the --format to FILE and the table to stdout, as
# --help says; a --sweep over a size that variants do not read warns once, naming exactly the
# variants whose table rows leave that size blank; without a GPU a run exits 3 with one line
# naming --model, and where no NVIDIA driver is installed the line says so; without a GPU a
# --kernels .cu is still compiled (nvcc's errors shown, a missing kernel named, else one line
# that running it needs a GPU, exit 3); --model warns once that it does not read --kernels.
#   tests/unit/test_lab_cli.sh PATH/TO/LAB_PROGRAM
# The bad-input corpus is built from the size flags the program's --help lists (name, default,
# range), so every lab gets the same checks; labs/NN_PROGRAM/tests/cli.sh, when there is one, adds
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

# The hints name commands a user can type.
expect_hint() { # what the line must say, arguments...
  local says=$1
  shift
  expect_refused "$@"
  grep -qF -- "$says" "$work/err" || fail "$* -> '$(cat "$work/err")' does not say '$says'"
}
expect_hint "(./memlab run $program --help lists them)" --bogus
expect_hint "(flags start with --: ./memlab run $program --help)" stray
expect_hint "(./memlab run $program --list shows them)" --variant nope
expect_hint "(./memlab run $program --help lists them)" --sweep nope=1:2
expect_hint "(./memlab list --metrics shows them)" --metrics bogus_metric

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
# The include refusal names the lab's real header, labs/NN_PROGRAM/PROGRAM.h, or says it has none;
# the first filter takes an include of that header and of nothing else.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
printf '#include "%s.h"\n' "$program" >"$work/header.cu"
if [[ -f $(echo "$root"/labs/[0-9][0-9]_"$program")/$program.h ]]; then
  expect_hint "a kernels file includes only CUDA headers (<cuda_runtime.h>, ...) and \"$program.h\"" \
    --kernels "$work/bad.cu"
  "$lab" --kernels "$work/header.cu" --model --metrics none >/dev/null 2>"$work/err" ||
    fail "--kernels including $program.h, the lab's header, refused: $(cat "$work/err")"
else
  expect_hint "a kernels file includes only CUDA headers (<cuda_runtime.h>, ...); this lab has no header" \
    --kernels "$work/bad.cu"
  expect_hint "#include \"$program.h\" is not allowed" --kernels "$work/header.cu"
fi

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
# --out FILE: the report in the --format goes to FILE, and the table, as without --out, to stdout.
"$lab" --model --seed 1 >"$work/table" 2>"$work/err" || fail "--model --seed 1 exited $?"
"$lab" --model --seed 1 --format csv --out "$work/model.csv" >"$work/out" 2>"$work/err" ||
  fail "--model --format csv --out exited $?"
cmp -s "$work/table" "$work/out" || fail "--out FILE: stdout is not the table: $(diff "$work/table" "$work/out" | head -3)"
"$lab" --model --seed 1 --format csv >"$work/csv" 2>"$work/err" || fail "--model --format csv exited $?"
cmp -s "$work/csv" "$work/model.csv" || fail "--out FILE: the file is not the --format csv report"
"$lab" --list >"$work/list"
[[ $(wc -l <"$work/list") -ge 2 ]] || fail "--list lists no variant"
"$lab" --help >"$work/help"
grep -q '^exit status' "$work/help" || fail "--help does not document exit statuses"
grep -q -- '--out FILE .*to FILE; the table still$' "$work/help" &&
  grep -q '^ *goes to standard output, for people$' "$work/help" ||
  fail "--help does not say that the table still goes to stdout with --out"
# Into a file first: grep -q stops reading at the first match, and under pipefail the lab's
# SIGPIPE would fail the check at random.
"$lab" --list-metrics >"$work/metrics"
grep -q 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum' "$work/metrics" ||
  fail "--list-metrics lacks the global load sectors metric"

# A --sweep over a size: the variants whose rows leave the swept size's column blank in the
# table do not read it; the one warning names exactly them, and none warns where every variant
# reads it. One point (the default) each, under --model.
while read -r name default min max; do
  [[ -n $name ]] || continue
  "$lab" --model --metrics none --seed 1 --sweep "$name=$default:$default" >"$work/out" 2>"$work/err" ||
    { fail "--sweep $name=$default:$default refused: $(head -n 1 "$work/err")"; continue; }
  # The first table: each column spans a run of dashes in the line under the header.
  unread=$(awk -v column="$name" '
    !header && /^variant / { header = $0; next }
    header && !width && /^-/ {
      for (at = 1; at <= length($0); at = end + 1) {
        while (substr($0, at, 1) == " ") at++
        for (end = at; substr($0, end + 1, 1) == "-"; end++) {}
        title = substr(header, at, end - at + 1)
        gsub(/ /, "", title)
        if (title == column) { start = at; width = end - at + 1 }
      }
      next
    }
    header && NF == 0 { exit }
    width && substr($0, start, width) ~ /^ *$/ && !seen[$1]++ {
      names = names (names == "" ? "" : ", ") $1
    }
    END { print names }' "$work/out")
  if [[ -z $unread ]]; then
    [[ ! -s $work/err ]] || fail "--sweep $name: every variant reads it, yet stderr says: $(cat "$work/err")"
  else
    plural=$([[ $unread == *,* ]] && echo "s $unread do" || echo " $unread does")
    expected="$program: warning: --sweep $name: variant$plural not read $name: "
    [[ $(wc -l <"$work/err") -eq 1 ]] && grep -qF -- "$expected" "$work/err" ||
      fail "--sweep $name: expected one warning '$expected...', got: $(cat "$work/err")"
  fi
done <<<"$sizes"

if ! nvidia-smi -L >/dev/null 2>&1; then
  "$lab" >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 3 ]] || fail "run without a GPU -> exit $status, expected 3"
  grep -qF -- "./memlab run $program --model" "$work/err" || fail "no-GPU message does not name ./memlab run $program --model"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "no-GPU message is not one line"
  # No driver at all (its library cannot be loaded, as the program tries it): said so, not
  # CUDA's "driver version is insufficient".
  if command -v python3 >/dev/null 2>&1 &&
    ! python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
    grep -qF "no usable CUDA device (no NVIDIA driver is installed here: libcuda.so.1 cannot be loaded)" "$work/err" ||
      fail "no driver here, but the no-GPU message says: $(cat "$work/err")"
  fi

  # --kernels FILE.cu without a GPU: compiled all the same, and its errors shown; a file that
  # compiles and defines the lab's kernels (the lab's own) gets the one no-GPU line (exit 3); one
  # that lacks them is told which, as on a GPU (exit 1).
  printf '// a syntax error on line 3\nextern "C" __global__ void broken(float *out)\n{ int x = ; }\n' \
    >"$work/syntax.cu"
  "$lab" --kernels "$work/syntax.cu" >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 1 ]] || fail "--kernels with a syntax error, no GPU -> exit $status, expected 1 (it does not compile)"
  grep -q '^syntax\.cu(3): error' "$work/err" ||
    fail "--kernels with a syntax error, no GPU: nvcc's error line naming line 3 is not shown: $(cat "$work/err")"
  own=$(echo "$root"/labs/[0-9][0-9]_"$program"/kernels.cu)
  "$lab" --kernels "$own" >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 3 ]] || fail "--kernels $own, no GPU -> exit $status, expected 3: $(cat "$work/err")"
  [[ $(wc -l <"$work/err") -eq 1 ]] && grep -qF -- "$own compiles (sm_" "$work/err" &&
    grep -qF -- "needs a GPU: no usable CUDA device" "$work/err" ||
    fail "--kernels $own, no GPU: expected one line that it compiles and needs a GPU, got: $(cat "$work/err")"
  [[ ! -s $work/out ]] || fail "--kernels $own, no GPU: wrote to stdout"
  printf 'extern "C" __global__ void not_a_lab_kernel(float *out) { out[0] = 1.0f; }\n' >"$work/other.cu"
  "$lab" --kernels "$work/other.cu" >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 1 ]] || fail "--kernels with none of the lab's kernels, no GPU -> exit $status, expected 1"
  grep -qF "your other.cu defines no kernel '" "$work/err" ||
    fail "--kernels with none of the lab's kernels, no GPU: the missing kernel is not named: $(cat "$work/err")"
fi

# --model reads no kernels: a --kernels beside it gets one warning, and the predictions go on.
"$lab" --model --kernels "$(echo "$root"/labs/[0-9][0-9]_"$program"/kernels.cu)" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 0 ]] || fail "--model --kernels -> exit $status, expected 0: $(cat "$work/err")"
[[ $(wc -l <"$work/err") -eq 1 ]] &&
  grep -qF -- "$program: warning: --model does not read --kernels " "$work/err" ||
  fail "--model --kernels: expected one warning that the model does not read kernels, got: $(cat "$work/err")"
grep -q '^variant ' "$work/out" || fail "--model --kernels: no prediction table on stdout"

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

lab_checks=$(echo "$root"/labs/[0-9][0-9]_"$program"/tests/cli.sh)
# shellcheck source=/dev/null
[[ -f $lab_checks ]] && source "$lab_checks"

[[ $failures -eq 0 ]] && echo "all CLI checks of $program passed"
exit $((failures > 0))

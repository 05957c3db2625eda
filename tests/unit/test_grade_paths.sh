#!/usr/bin/env bash
# test_grade_paths: a submission's cases through one lab process (PROGRAM --cases), and through a
# process each (--isolate-cases), without a GPU.
#   tests/unit/test_grade_paths.sh PATH/TO/memlab_grade PATH/TO/coalescing
#
# 1. The lab program's --cases, with the built coalescing program and no device: each line's
#    report, output and exit status beside its --out (a --model line's records equal a run of
#    its own; a bad line exits 2 and the next still runs; a line that needs the GPU exits 3; an
#    output past 1 MiB capped as the grader caps a run's, the bytes dropped in REPORT.exit);
#    every bad cases file refused with one line and exit 2, before any case runs.
# 2. The grader's bookkeeping, with the stand-in lab (grade_fake_lab.sh) and a stand-in
#    compute-sanitizer: which runs go through one --cases process and which run alone (a crash
#    and a hang in the batch: that case and every one after it alone; memory errors under the
#    tool: each of its cases alone; kernels that may use the device heap: every run alone), and
#    that both paths give the same results, case by case.
set -uo pipefail
grade=${1:?usage: test_grade_paths.sh MEMLAB_GRADE COALESCING_PROGRAM}
coalescing=${2:?usage: test_grade_paths.sh MEMLAB_GRADE COALESCING_PROGRAM}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fake=$here/grade_fake_lab.sh
work=$(mktemp -d)
device=memlab-paths-$$ # the lock of a device of this test's own
trap 'rm -rf "$work" "/tmp/memlab-gpu-$device.lock"' EXIT
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ---- 1. PROGRAM --cases ------------------------------------------------------------------------
cases=$work/cases
mkdir "$cases"
cat >"$cases/good" <<EOF
--variant strided --n 1001 --stride 3 --model --format json --out $cases/a.json

--variant nosuch --out $cases/b.json
--variant coalesced --n 77 --metrics none --format json --out $cases/c.json
--variant offset --n 99 --offset 5 --model --format json --out $cases/d.json --time-limit 0
--variant broadcast --n 64 --model --format json --out $cases/e.json --time-limit 60
EOF
CUDA_VISIBLE_DEVICES='' "$coalescing" --cases "$cases/good" >"$cases/good.out" 2>"$cases/good.err"
status=$?
[[ $status -eq 0 ]] || fail "--cases: exit $status: $(cat "$cases/good.err")"
[[ ! -s $cases/good.out && ! -s $cases/good.err ]] ||
  fail "--cases printed something of its own: $(cat "$cases/good.out" "$cases/good.err")"
expect_exit() { # NAME, status: REPORT.exit holds "STATUS CUT" (no output was cut here)
  local got
  got=$(cat "$cases/$1.json.exit" 2>/dev/null)
  [[ $got == "$2 0" ]] || fail "--cases: $1's exit file '$got', expected '$2 0'"
}
expect_exit a 0
expect_exit b 2
expect_exit c 3
expect_exit d 2
expect_exit e 0
grep -qx "coalescing: unknown variant 'nosuch' (./memlab run coalescing --list shows them)" \
  "$cases/b.json.stderr" || fail "--cases: the bad line's own message: $(cat "$cases/b.json.stderr")"
grep -q "no usable CUDA device" "$cases/c.json.stderr" || fail "--cases: no device not said"
grep -q "^coalescing: --time-limit must be a whole number of seconds" "$cases/d.json.stderr" ||
  fail "--cases: --time-limit 0 not refused: $(cat "$cases/d.json.stderr")"
grep -q '^coalescing: Lab 04' "$cases/a.json.stdout" || fail "--cases: a case's table is not in its .stdout"
[[ -s $cases/a.json && -s $cases/e.json && ! -e $cases/b.json ]] || fail "--cases: reports"
# A --model line's records are those of a run of its own (the seed aside, drawn anew).
"$coalescing" --variant strided --n 1001 --stride 3 --model --format json --out "$cases/alone.json" \
  >/dev/null 2>&1 || fail "the run alone failed"
python3 - "$cases/a.json" "$cases/alone.json" <<'CHECK' || fail "--cases: a --model line's records differ from a run alone"
import json, sys
together, alone = (json.load(open(path)) for path in sys.argv[1:])
assert together["records"] == alone["records"] and len(alone["records"]) == 1
CHECK

# A case's output is capped as the grader caps a run's: the first 1 MiB, a note, the last 8 KiB;
# REPORT.exit says how much was dropped (a sweep's table on stdout, 14 MB).
sweep=(--variant all --sweep n=1:4096 --model --format json)
echo "${sweep[*]} --out $cases/big.json" >"$cases/big"
"$coalescing" --cases "$cases/big" >/dev/null 2>&1 || fail "--cases: the sweep's case did not run"
whole=$("$coalescing" "${sweep[@]}" --out "$cases/big-alone.json" | wc -c)
cut=$((whole - 1048576 - 8192))
((whole > 2 * 1048576)) || fail "the sweep's table is only $whole bytes: no test of the cap"
[[ $(cat "$cases/big.json.exit") == "0 $cut" ]] ||
  fail "--cases: the cut output: '$(cat "$cases/big.json.exit")', expected '0 $cut'"
grep -qaF "[... memlab: $cut bytes of output cut here" "$cases/big.json.stdout" ||
  fail "--cases: the capped stdout has no note"
size=$(wc -c <"$cases/big.json.stdout")
((size < 1048576 + 8192 + 256)) || fail "--cases: the capped stdout holds $size bytes"

refused() { # WHAT, the message's start, arguments...
  local what=$1 message=$2
  shift 2
  "$coalescing" "$@" >"$cases/refused.out" 2>"$cases/refused.err"
  local status=$?
  [[ $status -eq 2 && $(wc -l <"$cases/refused.err") -eq 1 ]] ||
    fail "$what: exit $status, expected 2 and one line: $(cat "$cases/refused.err")"
  grep -qF -- "$message" "$cases/refused.err" || fail "$what: not '$message': $(cat "$cases/refused.err")"
  ls "$cases"/refused-*.json* >/dev/null 2>&1 && fail "$what: a case ran"
  rm -f "$cases"/refused-*
}
refused "a missing file" "coalescing: --cases $cases/none: No such file or directory" --cases "$cases/none"
printf '\n  \n' >"$cases/blank"
refused "no case" "coalescing: --cases $cases/blank: no case in it" --cases "$cases/blank"
printf -- '--model --out %s/refused-1.json\n--model\n' "$cases" >"$cases/no-out"
refused "a line without --out" "$cases/no-out:2: a case needs --out REPORT" --cases "$cases/no-out"
printf -- '--model --out %s/refused-1.json\n--model --device 1 --out %s/refused-2.json\n' "$cases" "$cases" >"$cases/device"
refused "--device in a line" "$cases/device:2: a case cannot hold --device" --cases "$cases/device"
printf -- '--cases x --out %s/refused-1.json\n' "$cases" >"$cases/nested"
refused "--cases in a line" "$cases/nested:1: a case cannot hold --cases" --cases "$cases/nested"
{ printf -- '--model --out %s/refused-1.json' "$cases"; for ((i = 0; i < 95; i++)); do printf ' --reps 2'; done; echo; } >"$cases/long"
refused "a line of too many words" "$cases/long:1: more than 96 words" --cases "$cases/long"
printf -- '--model --out %s/refused-1.json\0\n' "$cases" >"$cases/nul"
refused "a NUL byte" "--cases $cases/nul: holds a NUL byte" --cases "$cases/nul"
head -c 1100000 /dev/zero | tr '\0' 'x' >"$cases/big"
refused "a file over 1 MiB" "--cases $cases/big: more than 1048576 bytes" --cases "$cases/big"
refused "--cases with another option" "coalescing: --cases FILE takes no other option" \
  --cases "$cases/good" --model

# ---- 2. the grader: batches, reruns, and the same results both ways --------------------------
tree=$work/tree
mkdir -p "$tree/labs/01_toy"
echo '// the toy lab' >"$tree/labs/01_toy/toy.cu"
cat >"$tree/labs/01_toy/rubric" <<'EOF'
timeout 3
case first 1 visible --n 1 --metrics none
check correct
case crashes 1 visible --n 2 --metrics none
check correct
case hangs 1 visible --n 3 --metrics none
check correct
case predicted 1 visible --n 4 --metrics gld_efficiency
check gld_efficiency ~ predicted 5%
case speed 1 visible --n 5 --metrics none
check time_ratio <= 1.5
case memory_one 1 visible --n 6
check memcheck
case memory_two 1 visible --n 7
check memcheck
EOF
# compute-sanitizer, as the grader runs it: --error-exitcode 86 when a kernels file its program
# runs (on the command line, or on a line of --cases) holds MEMORY_ERROR.
sanitizer=$work/compute-sanitizer
cat >"$sanitizer" <<'EOF'
#!/usr/bin/env bash
tool="" code=1 log=/dev/null
while [[ $1 == --* ]]; do
  case $1 in
    --tool) tool=$2 ;;
    --error-exitcode) code=$2 ;;
    --log-file) log=$2 ;;
  esac
  shift 2
done
how=alone
[[ $2 != --cases ]] || how=cases
echo "sanitizer $tool $how" >>"$FAKE_LAB_RUNS"
"$@"
status=$?
files=$( (printf '%s\n' "$@"; [[ $2 != --cases ]] || cat "$3") | tr ' ' '\n' | grep '\.fatbin$')
if [[ -n $files ]] && grep -ql MEMORY_ERROR $files; then
  echo "========= ERROR SUMMARY: 1 error" >"$log"
  exit "$code"
fi
echo "========= ERROR SUMMARY: 0 errors" >"$log"
exit $status
EOF
chmod +x "$sanitizer"
export MEMLAB_SANITIZER=$sanitizer CUDA_VISIBLE_DEVICES=$device

# The cases of a submission's results: "case NAME: PASS|FAIL ..." with its points, and the score.
outcomes() { grep -E '^(case [^:]*: (PASS|FAIL|NOT GRADED)|score: )' "$1" | sed 's/ (.*s)$//'; }

grade_both() { # NAME, the submission's words: graded both ways; the runs of each in NAME.runs
  local name=$1 path
  shift
  echo "// $*" >"$work/$name.cu"
  for path in together isolated; do
    local options=()
    [[ $path == together ]] || options=(--isolate-cases)
    : >"$work/$name.$path.runs"
    FAKE_LAB_RUNS=$work/$name.$path.runs "$grade" --root "$tree" toy "$work/$name.cu" \
      --program "$fake" --format text --out "$work/$name.$path.txt" "${options[@]}" \
      >/dev/null 2>"$work/$name.$path.err"
    echo $? >"$work/$name.$path.status"
  done
  [[ $(cat "$work/$name.together.status") == $(cat "$work/$name.isolated.status") ]] ||
    fail "$name: exit $(cat "$work/$name.together.status") together, $(cat "$work/$name.isolated.status") isolated"
  diff <(outcomes "$work/$name.isolated.txt") <(outcomes "$work/$name.together.txt") >"$work/$name.diff" ||
    fail "$name: the results differ between the paths: $(cat "$work/$name.diff")"
  diff <(sed -n '/^case /,$p' "$work/$name.isolated.txt" | grep -v '^score') \
    <(sed -n '/^case /,$p' "$work/$name.together.txt" | grep -v '^score') >"$work/$name.text.diff" ||
    fail "$name: the cases' words differ between the paths: $(cat "$work/$name.text.diff")"
}
expect_runs() { # NAME, PATH (together|isolated), the runs expected, one a line
  diff <(printf '%s\n' "${@:3}") "$work/$1.$2.runs" >"$work/$1.$2.runs.diff" ||
    fail "$1, $2: not the runs expected: $(cat "$work/$1.$2.runs.diff")"
}

# Right everywhere: one process of --model lines, one of the plain cases (those that read no
# counters first) with the reference run beside its case, one under memcheck with the tool's own
# check first.
grade_both right "right everywhere"
expect_runs right together "cases 1" "n=4 model cases" \
  "cases 6" "n=1 submission cases" "n=2 submission cases" "n=3 submission cases" \
  "n=5 submission cases" "n=5 reference cases" "n=4 submission cases" \
  "sanitizer memcheck cases" "cases 3" "n=6 reference cases" "n=6 submission cases" "n=7 submission cases"
grep -q '^score: 7 / 7' "$work/right.together.txt" || fail "right: not 7 / 7: $(cat "$work/right.together.txt")"
# What --isolate-cases runs: each a process of its own, the tool's check once, after the
# first case of the tool (as before the batches).
expect_runs right isolated "n=1 submission alone" "n=2 submission alone" "n=3 submission alone" \
  "n=4 submission alone" "n=4 model alone" "n=5 submission alone" "n=5 reference alone" \
  "sanitizer memcheck alone" "n=6 submission alone" "sanitizer memcheck alone" "n=6 reference alone" \
  "sanitizer memcheck alone" "n=7 submission alone"

# A crash at n = 2 ends the batch there: that case and every later one of the batch run alone
# (the hang at n = 3 alone too, to its time limit); memory errors under memcheck: the tool's
# check and each of its cases alone.
grade_both broken "CRASH HANG MEMORY_ERROR"
expect_runs broken together "cases 1" "n=4 model cases" \
  "cases 6" "n=1 submission cases" "n=2 submission cases" \
  "n=2 submission alone" "n=3 submission alone" "n=5 submission alone" "n=5 reference alone" \
  "n=4 submission alone" \
  "sanitizer memcheck cases" "cases 3" "n=6 reference cases" "n=6 submission cases" "n=7 submission cases" \
  "sanitizer memcheck alone" "n=6 reference alone" \
  "sanitizer memcheck alone" "n=6 submission alone" "sanitizer memcheck alone" "n=7 submission alone"
for case in crashes hangs memory_one memory_two; do
  grep -q "^case $case: FAIL" "$work/broken.together.txt" || fail "broken: $case did not fail"
done
for case in first predicted speed; do
  grep -q "^case $case: PASS" "$work/broken.together.txt" || fail "broken: $case did not pass"
done
grep -q 'killed by signal 11' "$work/broken.together.txt" || fail "broken: the crash is not said"
grep -q 'ran past the case.s time limit (3 s)' "$work/broken.together.txt" || fail "broken: the hang is not said"

# Kernels that may call malloc on the device (the word in the fatbin): the device heap lives as
# long as the CUDA context, through the unloading of the kernels, so every run is alone.
grade_both heap "right everywhere, with a buffer from malloc"
expect_runs heap together "n=1 submission alone" "n=2 submission alone" "n=3 submission alone" \
  "n=4 submission alone" "n=4 model alone" "n=5 submission alone" "n=5 reference alone" \
  "sanitizer memcheck alone" "n=6 submission alone" "sanitizer memcheck alone" "n=6 reference alone" \
  "sanitizer memcheck alone" "n=7 submission alone"

# No device: every path stops at the first case, as before.
CUDA_VISIBLE_DEVICES='' grade_both nodevice "right everywhere"
grep -q 'no usable CUDA device' "$work/nodevice.together.txt" || fail "nodevice: not said"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "test_grade_paths: all passed"

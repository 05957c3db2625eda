#!/usr/bin/env bash
# test_student_check: a student pack's ./memlab test [LAB...] (tools/grade/student_check.sh)
# says in one line a lab which variants are right, and its exit status says whether every lab is
# done. The lab programs here are stand-ins that write what a lab program writes (a JSON report
# whose records are correct, or not with the count of values that differed) and exit as one
# does; the driver reads the reports with the real memlab_report. The GPU test
# tests/gpu/test_pack_check.sh runs the real pack.
#   tests/unit/test_student_check.sh PATH/TO/memlab_report
set -uo pipefail
report_tool=${1:?usage: test_student_check.sh MEMLAB_REPORT}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

pack=$work/pack
mkdir -p "$pack/labs/04_coalescing" "$pack/labs/09_unified_memory" "$pack/build/labs" \
  "$pack/build/tools" "$pack/tools/grade"
cp "$report_tool" "$pack/build/tools/memlab_report"
cp "$root/memlab" "$pack/"
cp "$root/tools/lib.sh" "$pack/tools/"
cp "$root/tools/grade/student_check.sh" "$pack/tools/grade/"
touch "$pack/STUDENT.md" "$pack/labs/04_coalescing/coalescing.cu" \
  "$pack/labs/09_unified_memory/unified_memory.cu"
printf -- '# sizes\n--n 1000003 --stride 4\n\n--n 77\n' >"$pack/labs/04_coalescing/check.args"
printf -- '--n 5\n' >"$pack/labs/09_unified_memory/check.args"

# stand_in PROGRAM MODE: MODE wrong (strided's output wrong at every size), right, no_gpu (exit 3
# as a lab program does without a device), crash (a CUDA error: exit 4, no report).
stand_in() {
  cat >"$pack/build/labs/$1" <<STAND_IN
#!/usr/bin/env bash
n=\$2
while [[ \$# -gt 0 && \$1 != --out ]]; do shift; done
out=\$2
case $2 in
  no_gpu) echo "$1: no usable CUDA device" >&2; exit 3 ;;
  crash) echo "$1: an illegal memory access was encountered" >&2; exit 4 ;;
esac
strided='"correct": true, "mismatches": 0'
[[ $2 != wrong ]] || strided="\"correct\": false, \"mismatches\": \$n"
printf '{"lab": "$1", "records": [{"variant": "coalesced", "params": {"n": %s}, "correct": true, "mismatches": 0}, {"variant": "strided", "params": {"n": %s}, %s}]}\n' "\$n" "\$n" "\$strided" >"\$out"
[[ $2 != wrong ]] || exit 1
STAND_IN
  chmod +x "$pack/build/labs/$1"
}

check() { # EXPECTED STATUS, ARGUMENTS...
  local expected=$1
  shift
  (cd "$pack" && MEMLAB_BUILD=$pack/build MEMLAB_NO_BUILD=1 ./memlab test "$@") >"$work/out" 2>&1
  local status=$?
  [[ $status -eq $expected ]] || fail "./memlab test $* exited $status, not $expected: $(cat "$work/out")"
}
expect_line() { # TEXT
  grep -qxF -- "$1" "$work/out" || fail "no line '$1' in: $(cat "$work/out")"
}

stand_in coalescing wrong
stand_in unified_memory right
check 1
expect_line "lab 04 coalescing: coalesced ok; strided FAIL: 1000003 checked values differ from the CPU reference (at --n 1000003 --stride 4); 1 of 2 variants correct"
expect_line "lab 09 unified_memory: coalesced ok; strided ok; 2 of 2 variants correct"
expect_line "memlab: 1 of 2 labs done (every variant matches the CPU reference)"

check 0 unified_memory
expect_line "memlab: 1 of 1 labs done (every variant matches the CPU reference)"
[[ $(grep -c '^lab ' "$work/out") -eq 1 ]] || fail "./memlab test unified_memory checked more than lab 09"

stand_in coalescing right
check 0
expect_line "memlab: 2 of 2 labs done (every variant matches the CPU reference)"

stand_in coalescing crash
check 1 coalescing
expect_line "lab 04 coalescing: FAIL: the run stopped (exit 4) at --n 1000003 --stride 4: coalescing: an illegal memory access was encountered"

stand_in coalescing no_gpu
check 3
[[ $(wc -l <"$work/out") -eq 1 ]] && grep -q "needs a GPU" "$work/out" ||
  fail "without a GPU, not one line saying a GPU is needed: $(cat "$work/out")"

check 2 no_such_lab
grep -q "no lab 'no_such_lab'" "$work/out" || fail "an unknown lab is not named: $(cat "$work/out")"

((failures == 0)) && echo "test_student_check: every case passed"
exit $((failures > 0))

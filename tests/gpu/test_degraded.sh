#!/usr/bin/env bash
# test_degraded: when counters cannot be read, a lab says why in one warning and goes on with
# timings and predictions (exit 0, every variant checked).
#   counters restricted to administrators: the profiler's test hook PROF_TEST_FAULT=privileges
#   another CUPTI client: the lab run under Nsight Compute (skipped if ncu is not installed)
#   the driver's unified-memory counters unreadable (the same hook, on lab 09's activity-API
#   counters): one warning, and the managed run goes on with its predictions
# No GPU: exit 77 (CTest shows it skipped; the no-GPU path itself is tested by unit_cli_*).
#   tests/gpu/test_degraded.sh PATH/TO/coalescing PATH/TO/unified_memory
set -uo pipefail
lab=${1:?usage: test_degraded.sh COALESCING UNIFIED_MEMORY}
unified=${2:?usage: test_degraded.sh COALESCING UNIFIED_MEMORY}
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

arguments=(--variant strided --n 1048576 --stride 4 --reps 2 --warmup 1)

# One warning line, the run goes on, the JSON says counters were not read and still predicts.
expect_degraded() { # case name, stderr file, json file, exit status, words the warning must hold
  local name=$1 err=$2 json=$3 status=$4 words=$5
  [[ $status -eq 0 ]] || fail "$name: exit $status, expected 0"
  [[ $(grep -c 'warning' "$err") -eq 1 ]] || fail "$name: expected one warning, stderr was: $(cat "$err")"
  grep -q -- "$words" "$err" || fail "$name: the warning does not say '$words': $(cat "$err")"
  grep -q '"profiler_note":	"not read' "$json" || fail "$name: JSON has no profiler_note"
  grep -q '"median_ms":' "$json" || fail "$name: JSON has no timing"
  grep -q '"correct":	true' "$json" || fail "$name: the variant was not checked correct"
  grep -q '"predicted":	25' "$json" || fail "$name: the stride-4 prediction is missing"
  grep -q '"measured":	null' "$json" || fail "$name: a counter value appeared"
}

PROF_TEST_FAULT=privileges "$lab" "${arguments[@]}" --format json --out "$work/privileges.json" \
  >/dev/null 2>"$work/privileges.err"
expect_degraded privileges "$work/privileges.err" "$work/privileges.json" $? NVreg_RestrictProfilingToAdminUsers

if command -v ncu >/dev/null 2>&1; then
  ncu --metrics dram__bytes_read.sum --launch-count 1 "$lab" "${arguments[@]}" --format json \
    --out "$work/subscriber.json" >/dev/null 2>"$work/ncu.err"
  status=$?
  grep -v '^==PROF==' "$work/ncu.err" >"$work/subscriber.err"
  expect_degraded "under ncu" "$work/subscriber.err" "$work/subscriber.json" $status "another CUPTI client"
else
  echo "ncu not installed: the other-subscriber case is not run"
fi

# Lab 09 reads only the driver's counters: the hook fails their configuration, as a platform
# without them (WSL, some containers) does.
PROF_TEST_FAULT=privileges "$unified" --variant managed_prefetch --reps 2 --warmup 1 \
  --format json --out "$work/unified.json" >/dev/null 2>"$work/unified.err"
status=$?
[[ $status -eq 0 ]] || fail "unified: exit $status, expected 0"
[[ $(grep -c 'warning' "$work/unified.err") -eq 1 ]] ||
  fail "unified: expected one warning, stderr was: $(cat "$work/unified.err")"
grep -q NVreg_RestrictProfilingToAdminUsers "$work/unified.err" ||
  fail "unified: the warning does not say how to open the counters: $(cat "$work/unified.err")"
grep -q '"profiler_note":	"not read' "$work/unified.json" || fail "unified: JSON has no profiler_note"
grep -q '"correct":	true' "$work/unified.json" || fail "unified: the variant was not checked correct"
grep -q '"predicted":	33554432' "$work/unified.json" || fail "unified: the migration prediction is missing"
grep -q '"measured":	null' "$work/unified.json" || fail "unified: a counter value appeared"

[[ $failures -eq 0 ]] && echo "every degraded mode warned once and went on"
exit $((failures > 0))

#!/usr/bin/env bash
# test_demo_seconds: where a GPU demo's time went, without a GPU.
#   tests/unit/test_demo_seconds.sh PATH/TO/memlab_report
# 1. memlab_report seconds reads a report's "seconds" object: wall, kernels, counters, host and
#    host / (kernels + counters); a --model report (seconds null) has none (exit 1).
# 2. ./memlab demo over stand-in lab programs that write such reports (as the real ones do on a
#    GPU) prints each run's split on stderr and puts the table at the top of report.md.
# 3. Each run's facts and tables in report.md come from its JSON (memlab_report markdown).
set -uo pipefail
tool=${1:?usage: test_demo_seconds.sh MEMLAB_REPORT}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A report as a lab program writes it on a GPU: the fields memlab_report reads.
write_report() { # FILE, LAB, the seconds object (or null)
  cat >"$1" <<EOF
{"lab": "$2", "title": "$2: a stand-in",
 "device": {"name": "Stand-in GPU", "compute_capability": "9.0", "sm_count": 1, "l2_mib": 1},
 "ceiling_gbps": 2000, "seed": "42", "reps": 5, "warmup": 1, "profiler_note": null,
 "counter_seconds": 0.75, "seconds": $3,
 "records": [{"variant": "only", "params": {"n": 1, "stride": 2}, "params_read": ["n"],
   "timing": {"median_ms": 0.5, "min_ms": 0.25, "max_ms": 1, "cv": 0.125, "reps": 5},
   "bytes": 8, "gbps": 1000, "pct_of_ceiling": 50, "flops": 0, "correct": true,
   "max_rel_error": 0, "mismatches": 0,
   "metrics": {"dram__bytes_read.sum": {"alias": "dram_read_bytes", "unit": "bytes",
     "predicted": 4, "measured": 5}}}]}
EOF
}
seconds='{"wall": 3.0, "kernels": 0.25, "counters": 0.75, "host": 2.0, "startup": 0.5,
  "setup": 0.75, "check": 0.5, "timing_loop": 0.375, "model": 0.125, "teardown": 0.0625}'

# ---- 1. memlab_report seconds -------------------------------------------------------------------
write_report "$work/run.json" coalescing "$seconds"
got=$("$tool" seconds "$work/run.json") || fail "seconds exited $? on a GPU run's report"
[[ $got == $'3.00\t0.25\t0.75\t2.00\t2.00' ]] || fail "seconds printed '$got'"

# No counters asked for: counters is null and the host is compared with the kernels alone.
write_report "$work/no_counters.json" coalescing \
  '{"wall": 1.0, "kernels": 0.5, "counters": null, "host": 0.5}'
got=$("$tool" seconds "$work/no_counters.json") || fail "seconds exited $? without counters"
[[ $got == $'1.00\t0.50\t0.00\t0.50\t1.00' ]] || fail "seconds without counters printed '$got'"

write_report "$work/model.json" coalescing null
"$tool" seconds "$work/model.json" >"$work/out" 2>&1
status=$?
[[ $status -eq 1 && ! -s $work/out ]] || fail "a --model report: exit $status, output '$(cat "$work/out")'"

"$tool" seconds "$work/missing.json" >/dev/null 2>"$work/err"
[[ $? -eq 2 && -s $work/err ]] || fail "a missing report is not refused with exit 2 and a reason"

# ---- 2. the demo's table ------------------------------------------------------------------------
# A build directory whose lab programs stand in for the real ones: each writes a GPU report with
# the seconds above to --out, a table to stdout, and a progress line the demo must keep out of
# the log.
build=$work/build
mkdir -p "$build/labs" "$build/tools"
ln -s "$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")" "$build/tools/memlab_report"
programs=()
for directory in "$root"/labs/[0-9][0-9]_*/; do
  program=$(basename "$directory")
  program=${program#[0-9][0-9]_}
  [[ -e $directory/$program.cu ]] || continue
  programs+=("$program")
  write_report "$work/$program.json" "$program" "$seconds"
  cat >"$build/labs/$program" <<EOF
#!/usr/bin/env bash
out=
while [[ \$# -gt 0 ]]; do [[ \$1 == --out ]] && out=\$2; shift; done
echo "progress: 1 of 2: only n=1" >&2
cp "$work/$program.json" "\$out"
echo "$program: a stand-in"
echo "device:   Stand-in GPU (sm_90, 1 SMs, 1 MiB L2)"
EOF
  chmod +x "$build/labs/$program"
done
# The source files the driver checks memlab_report's freshness against are older than the link.
touch "$build/tools/memlab_report"

MEMLAB_BUILD=$build MEMLAB_NO_BUILD=1 "$root/memlab" demo --quick --out "$work/demo" \
  >"$work/demo.out" 2>"$work/demo.err"
status=$?
report=$work/demo/report.md
[[ $status -eq 0 || $status -eq 1 ]] || fail "demo exited $status: $(tail -n 3 "$work/demo.err")"
[[ -f $report ]] || fail "no report.md"
grep -q '^| run | wall s | kernels s | counters s | host s | host / GPU |$' "$report" ||
  fail "report.md has no table of where the time went"
grep -q 'The quick version' "$report" || fail "report.md does not say it is the quick version"
for program in "${programs[@]}"; do
  grep -Eq "^\| \`$program[^|]*\` \| 3\.00 \([0-9]+\.[0-9]+\) \| 0\.25 \| 0\.75 \| 2\.00 \| 2\.00 \|$" "$report" ||
    fail "report.md has no seconds row for $program"
  grep -q 'progress:' "$work/demo/data/$program-1.log" && fail "$program's progress line went to its log"
done
rows=$(grep -c '^| `' "$report")
expected=0
for program in "${programs[@]}"; do
  expected=$((expected + $(grep -c -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$root"/labs/[0-9][0-9]_"$program"/quick.args)))
done
[[ $rows -eq $expected ]] || fail "report.md has $rows seconds rows for $expected quick.args runs"
[[ $(grep -c '3.00 s: kernels 0.25 s, counters 0.75 s, host 2.00 s' "$work/demo.err") -eq $expected ]] ||
  fail "stderr does not give every run's split"
grep -Eq "in [0-9]+\.[0-9]+ s\." "$report" || fail "report.md does not give the demo's own time"

# ---- 3. each run's tables, in Markdown from its JSON (memlab_report markdown) ---------------------
grep -q '^Measured on: \*\*Stand-in GPU\*\*' "$report" || fail "report.md does not name the GPU"
for line in '- device: Stand-in GPU (sm_90, 1 SMs, 1 MiB L2)' \
  '- ceiling: 2000.0 GB/s (device-to-device copy)' '- seed: 42' '- reps: 5 (warm-up 1)' \
  '| variant | n | stride | median ms | min ms | max ms | cv % | GB/s | % of ceiling | check |' \
  '| only | 1 |  | 0.5000 | 0.2500 | 1.0000 | 12.5 | 1000.0 | 50.0 | ok |' \
  '| only | n=1 | dram_read_bytes | bytes | 4 | 5 | 1.250 |' \
  'Time: 3.00 s = kernels 0.25 s + counters 0.75 s + host 2.00 s. Spent in: startup 0.50, setup 0.75, check 0.50, timing loop 0.38 (kernels included), model 0.12, teardown 0.06.'; do
  [[ $(grep -cxF -- "$line" "$report") -eq $expected ]] ||
    fail "report.md does not have '$line' once per run"
done
for program in "${programs[@]}"; do
  grep -qx "## $program: a stand-in" "$report" || fail "report.md has no section titled from $program's report"
done

if ((failures > 0)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: memlab_report seconds and the demo's table of where the time went"

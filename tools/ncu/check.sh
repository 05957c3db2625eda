#!/usr/bin/env bash
# ./memlab check BUILD_DIR [PROGRAM...]: can every number memlab prints be trusted on this GPU?
#
#   1. Every lab program, at the small sizes of each line of labs/NN_PROGRAM/check.args, runs
#      clean under compute-sanitizer's memcheck, racecheck, initcheck and synccheck.
#   2. For every variant of those runs, memlab's counters (its JSON report) equal Nsight
#      Compute's for the same kernel and the same Perfworks names: counts within 1%,
#      percentages within 0.5 points; DRAM bytes written within 1% plus ncu's own write floor,
#      measured first, and DRAM bytes read within 1% plus what a launch of the same run that
#      reads no data reads, measured for each line (tools/ncu/ncu_floor.sh).
#
# Prints a table of every pair; exits 1 on any error or disagreement, 3 without a GPU.
set -uo pipefail
build=${1:?usage: tools/ncu/check.sh BUILD_DIR [PROGRAM...]}
shift
only=" $* "
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
counters=$build/tools/memlab_counters
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

known=" "
for directory in "$root"/labs/[0-9][0-9]_*/; do
  directory=$(basename "$directory")
  known+="${directory#[0-9][0-9]_} "
done
for program in "$@"; do
  [[ $known == *" $program "* ]] ||
    { echo "memlab check: unknown lab '$program' (labs:${known% })" >&2; exit 2; }
done

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "memlab check: needs a CUDA GPU and none was found (nvidia-smi -L failed)" >&2
  exit 3
fi
for tool in compute-sanitizer ncu; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "memlab check: $tool not found: put the CUDA toolkit's bin directory on PATH" >&2; exit 2; }
done

source "$root/tools/ncu/ncu_floor.sh"

failures=0
compared=0
unified=0
note_failure() { echo "  FAIL: $*"; failures=$((failures + 1)); }
# The fewest repetitions: the sanitizers and ncu make every launch slow.
quick=(--reps 1 --warmup 0)

# sed, not head: head's early exit would end sort with SIGPIPE, a failure under pipefail.
floor_program=$(find "$build/labs" -maxdepth 1 -type f -executable | sort | sed -n 1p)
write_floor=$(ncu_write_floor "$floor_program" "$counters") || exit 1
echo "ncu's write floor: $write_floor DRAM bytes written by a read-only sweep of twice the L2 (the most of $FLOOR_RUNS runs)"

for directory in "$root"/labs/[0-9][0-9]_*/; do
  directory=${directory%/}
  program=$(basename "$directory")
  program=${program#[0-9][0-9]_}
  [[ $only == "  " || $only == *" $program "* ]] || continue
  lab=$build/labs/$program
  [[ -f $directory/check.args ]] || { note_failure "$program: no check.args"; continue; }
  line_number=0
  while IFS= read -r arguments || [[ -n $arguments ]]; do
    [[ -z $arguments || $arguments == \#* ]] && continue
    line_number=$((line_number + 1))
    echo "== $program $arguments"
    for tool in memcheck racecheck initcheck synccheck; do
      log=$work/$program-$line_number-$tool.log
      # Memory errors, races and the like only: a CUDA call the harness expects to fail (the
      # probe past a kernel's last parameter, at its first launch) is no finding.
      # shellcheck disable=SC2086 # the arguments are words on purpose
      if compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 5 \
        --report-api-errors no "$lab" $arguments --metrics none "${quick[@]}" >"$log" 2>&1; then
        printf '  %-10s clean\n' "$tool"
      else
        note_failure "$tool: $(grep -m1 -E '=========  [A-Z]|Invalid|Race|Uninitialized|Barrier|FAIL' "$log" || tail -n1 "$log")"
      fi
    done

    # shellcheck disable=SC2086
    read_floor=$(ncu_read_floor "$lab" "$counters" $arguments) || {
      note_failure "ncu on $program $arguments: no read floor"
      continue
    }
    echo "  read floor: $read_floor DRAM bytes read by the input fill, a launch that reads no data"

    report=$work/$program-$line_number.json
    # shellcheck disable=SC2086
    if ! "$lab" $arguments "${quick[@]}" --format json --out "$report" >/dev/null 2>"$work/run.log"; then
      note_failure "$program $arguments exited non-zero: $(tail -n1 "$work/run.log")"
      continue
    fi
    if grep -q '"profiler_note":[[:space:]]*"' "$report"; then
      note_failure "$program: memlab read no counters: $(cat "$work/run.log")"
      continue
    fi
    # The driver's unified-memory counters (lab 09) come from CUPTI's activity API: Nsight
    # Compute does not read them (Nsight Systems shows them), so they are named, not compared.
    if grep -q '"unified_memory:' "$report"; then
      echo "  unified-memory counters: the driver's records, not Nsight Compute's: not compared"
      unified=$((unified + 1))
    fi
    while read -r variant kernel names; do
      csv=$work/$program-$line_number-$variant.csv
      # Nsight Compute profiles the variant's second launch of its kernel, the timed one, which
      # the harness precedes with its L2 flush as memlab's profiler does; the first (the checked
      # run) follows the input setup. Its DRAM writes still exceed memlab's by about the write
      # floor: on an H200 a strided copy (4,194,304 floats, stride 32) wrote 17.10 MB under ncu
      # and 14.73 MB under memlab, 2.37 MB more, with a floor of 2.33 MB that run.
      # shellcheck disable=SC2086
      if ! ncu --clock-control none --csv --print-units base --metrics "$names" \
        --kernel-name-base mangled --kernel-name "$kernel" --launch-skip 1 --launch-count 1 \
        "$lab" $arguments --variant "$variant" --metrics none "${quick[@]}" >"$csv" 2>"$work/ncu.log"; then
        note_failure "ncu on $program --variant $variant: $(tail -n1 "$work/ncu.log")"
        continue
      fi
      echo "  -- $variant"
      compared=$((compared + 1))
      "$counters" compare "$report" "$variant" "$csv" "$write_floor" "$read_floor" || note_failure "$program $variant: counters disagree with ncu"
    done < <("$counters" variants "$report")
  done <"$directory/check.args"
done

((compared > 0 || unified > 0)) || note_failure "no variant's counters were compared with ncu"
if ((failures > 0)); then
  echo "memlab check: $failures failure(s)"
  exit 1
fi
echo "memlab check: every sanitizer run clean, every counter Nsight Compute reads equal to its own"

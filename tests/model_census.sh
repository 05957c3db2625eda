#!/usr/bin/env bash
# model_census: the access model on sizes nobody chose. Draws random sizes for every lab, runs
# each lab program once per draw with its default counters on the GPU, and prints the census
# of predicted beside measured (memlab_report census) with the list of what missed.
#
#   tests/model_census.sh BUILD [--runs N] [--seed S] [--out DIR] [--labs A,B,...] [--seconds T]
#                          [--isolate] [--model]
#   tests/model_census.sh BUILD --from DIR [--gpu NAME | --gpu-profile FILE] [--out DIR]
#
# BUILD is a CMake build folder (BUILD/labs/PROGRAM, BUILD/tools/memlab_report). --runs N (90
# by default) runs are shared among the labs in turn; --seed S (a fresh one by default, printed)
# makes the draw repeatable; DIR (a new temporary folder by default) keeps each run's JSON and
# runs.txt, the command line of each run, to repeat a miss. Sizes lean to the awkward ones:
# primes, one either side of a power of two, tiny, and past the L2; each size stays inside its
# lab's legal range, and inside what keeps a run to a few seconds. A run the lab refuses or that
# fails is listed: it is the census's bug or the lab's, never skipped in silence.
#
# The runs go in rounds, up to 8 runs a lab, and a round runs each lab's runs in one process
# (--cases, the grader's path: a CUDA start-up a lab a round, not a run); --isolate runs each
# run in a process of its own, as a student's runs go. --seconds T starts no round after T
# seconds and takes the census of the runs that finished (a draw that must fit a lent GPU's
# time; the line says how many ran). --model runs the same draws with --model (no GPU): every
# drawn size must be one its lab takes, which CI checks. Exit status: 0 when every run ran and
# (on the GPU) the census read at least one pair; 1 otherwise; 2 on bad arguments; 77 without a
# GPU and without --model.
#
# --from DIR takes the census again of runs measured before (DIR's reports, or DIR/data's: a
# census's or a demo's), with today's model and no GPU: each record's predictions are made anew
# by its lab's --model with the record's variant, parameters and seed (memlab_report repredict),
# its measurements stay as they were. So a change to the model is judged on every measurement
# kept, not on one new draw; --gpu NAME or --gpu-profile FILE judges other facts (a calibrated
# profile against the table). The reports so predicted go to --out's DIR. Exit status 1 when a
# report could not be predicted anew.
set -uo pipefail

usage() { echo "usage: model_census.sh BUILD [--runs N] [--seed S] [--out DIR] [--labs A,B,...] [--seconds T] [--isolate] [--model] | BUILD --from DIR [--gpu NAME | --gpu-profile FILE] [--out DIR]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
build=$1; shift
isolate="" runs=90 seed=$(( ($(od -An -N4 -tu4 /dev/urandom) % 2000000000) + 1 )) out="" only_labs="" model="" seconds=""
from="" facts=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=${2:-}; shift 2 || usage ;;
    --seed) seed=${2:-}; shift 2 || usage ;;
    --out) out=${2:-}; shift 2 || usage ;;
    --labs) only_labs=${2:-}; shift 2 || usage ;;
    --model) model=--model; shift ;;
    --seconds) seconds=${2:-}; shift 2 || usage ;;
    --isolate) isolate=1; shift ;;
    --from) from=${2:-}; shift 2 || usage ;;
    --gpu | --gpu-profile) [[ -n ${2:-} ]] || usage; facts=("$1" "$2"); shift 2 ;;
    *) echo "model_census.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "model_census.sh: --runs takes a positive number, not '$runs'" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "model_census.sh: --seed takes a number, not '$seed'" >&2; exit 2; }
[[ -z $seconds || $seconds =~ ^[1-9][0-9]*$ ]] ||
  { echo "model_census.sh: --seconds takes a positive number, not '$seconds'" >&2; exit 2; }
report_tool=$build/tools/memlab_report
[[ -x $report_tool ]] || { echo "model_census.sh: $report_tool is not built" >&2; exit 2; }

# The census of REPORTS...: what missed (outside, or inside a wide range), then the census line,
# also kept in $out/census.txt; the status of memlab_report census.
print_census() {
  "$report_tool" census --list "$@" 2>/dev/null | grep -E '^(outside|wide): ' | sort
  "$report_tool" census "$@" 2>/dev/null | tee "$out/census.txt"
  return "${PIPESTATUS[0]}"
}

[[ -n $from || ${#facts[@]} -eq 0 ]] ||
  { echo "model_census.sh: ${facts[0]} chooses the facts of --from's predictions: give --from DIR too" >&2; exit 2; }

# ---- --from: measurements kept, predictions anew -------------------------------------------------
if [[ -n $from ]]; then
  [[ -d $from/data ]] && from=$from/data
  recorded=("$from"/*.json)
  [[ -e ${recorded[0]} ]] || { echo "model_census.sh: --from: no report in '$from'" >&2; exit 2; }
  if [[ -z $out ]]; then out=$(mktemp -d); fi
  mkdir -p "$out/models" || exit 2
  failed=0
  for report in "${recorded[@]}"; do
    name=$(basename "$report" .json)
    # A record a line: the lab, then its options (memlab_report arguments).
    lines=$("$report_tool" arguments "$report") || { failed=$((failed + 1)); continue; }
    models=() k=0
    while read -r lab options; do
      k=$((k + 1))
      models+=("$out/models/$name-$k.json")
      # shellcheck disable=SC2086 # the options are words on purpose
      "$build/labs/$lab" $options --model --format json "${facts[@]}" >"${models[-1]}" \
        2>"$out/models/$name-$k.err" ||
        { echo "model_census.sh: --from: $lab $options --model: $(head -n 1 "$out/models/$name-$k.err")" >&2; failed=$((failed + 1)); }
    done <<<"$lines"
    "$report_tool" repredict "$report" "${models[@]}" >"$out/$name.json" ||
      { failed=$((failed + 1)); rm -f "$out/$name.json"; }
  done
  reports=("$out"/*.json)
  print_census "${reports[@]}"
  census_status=$?
  echo "model_census: ${#recorded[@]} reports from $from predicted anew${facts[*]:+ (${facts[*]})}, $failed failed; in $out"
  [[ $failed -eq 0 && $census_status -eq 0 ]]
  exit
fi

if [[ -z $model ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "model_census.sh: no GPU here: the census measures counters (use a lab's --model for predictions)" >&2
  exit 77
fi
if [[ -z $out ]]; then out=$(mktemp -d); fi
mkdir -p "$out" || exit 2

# ---- random numbers: a 31-bit LCG of our own, so a seed draws the same sizes on any machine --
# Each function leaves its result in a global (no subshell, which would lose the state).
state=$seed
# uniform LOW HIGH: value = an integer in [LOW, HIGH].
uniform() {
  state=$(( (state * 1103515245 + 12345) % 2147483648 ))
  value=$(( $1 + (state >> 4) % ($2 - $1 + 1) ))
}
# log_uniform LOW HIGH: value = an integer whose logarithm is uniform over [log LOW, log HIGH].
log_uniform() {
  uniform 0 1000002
  value=$(awk -v low="$1" -v high="$2" -v r="$value" 'BEGIN {
    v = int(exp(log(low) + (log(high + 1) - log(low)) * r / 1000003.0));
    if (v < low) v = low; if (v > high) v = high; print v }')
}
is_prime() {
  local n=$1 d
  (( n < 2 )) && return 1
  for (( d = 2; d * d <= n; d++ )); do (( n % d == 0 )) && return 1; done
  return 0
}
# awkward LOW HIGH: value = a size in [LOW, HIGH] that no one picked for the model: a fifth
# each tiny (LOW to LOW + 64), one either side of a power of two, a prime, in HIGH's upper half
# (past the L2, for the sizes whose high end is), and log-uniform.
awkward() {
  local low=$1 high=$2 kind bits=0
  while (( (1 << (bits + 1)) <= high )); do bits=$((bits + 1)); done
  uniform 0 4; kind=$value
  case $kind in
    0) uniform "$low" $(( low + 64 < high ? low + 64 : high )) ;;
    1) uniform 1 "$bits"; local power=$(( 1 << value )); uniform 0 2; value=$(( power + value - 1 )) ;;
    2) log_uniform "$low" "$high"
       while ! is_prime "$value" && (( value < high )); do value=$((value + 1)); done ;;
    3) uniform $(( high / 2 > low ? high / 2 : low )) "$high" ;;
    *) log_uniform "$low" "$high" ;;
  esac
  (( value < low )) && value=$low
  (( value > high )) && value=$high
}
# pick A B ...: value = one of the arguments.
pick() { local choices=("$@"); uniform 0 $(( ${#choices[@]} - 1 )); value=${choices[$value]}; }

# ---- the draws: one function a lab, leaving the lab's arguments in `arguments` ------------------
# Ranges are each lab's legal range (its --help), cut where a run would take more than a few
# seconds with its counters; the L2 is 50-60 MiB, so "past the L2" is an array over 16M floats.
draw_register_spill() {
  awkward 1 33554432; local n=$value
  uniform 0 31
  arguments="--variant all --n $n --lane_stride $value"
}
draw_shared_tiling() {
  # naive at 2500^3 with counters is the slowest run a draw makes (a second or two).
  awkward 1 2500; local m=$value
  awkward 1 2500; local k=$value
  awkward 1 2500
  arguments="--variant all --m $m --k $k --n $value"
}
draw_constant_ldg() {
  uniform 1 7; local mask=$(( 2 * value + 1 ))
  awkward 1 4096; local rows=$value
  awkward 1 4096; local cols=$value
  uniform 1 32; local distinct=$value
  uniform 1 16
  arguments="--variant all --rows $rows --cols $cols --mask $mask --distinct $distinct --spacing $value"
}
draw_coalescing() {
  # strided reads n * stride floats, offset n + offset: at most 2^30 floats (4 GiB).
  uniform 1 1024; pick 1 2 3 5 7 9 13 17 31 33 64 127 "$value"; local stride=$value
  local limit=$(( (1 << 30) / stride )); (( limit > 134217728 )) && limit=134217728
  awkward 1 "$limit"; local n=$value
  uniform 0 1024; pick 0 1 3 8 31 33 "$value"; local offset=$value
  pick 0 0 32 64 128
  arguments="--variant all --n $n --stride $stride --offset $offset --l2_fetch $value"
}
draw_bank_conflicts() {
  awkward 1 12000; local rows=$value
  awkward 1 12000; local cols=$value
  uniform 1 32; local stride=$value
  pick 4 8 16
  arguments="--variant all --rows $rows --cols $cols --stride $stride --width $value"
}
draw_aos_soa() {
  awkward 1 33554432; local n=$value
  pick 1 8
  arguments="--variant all --n $n --fields $value"
}
draw_hierarchy_map() {
  # The chase over a random working set (every level), and the fixed variants: --loads is theirs.
  uniform 1 64; pick 1 1 1 2 3 8 "$value"; local stride=$(( 128 * value ))
  awkward $(( 2 * stride )) 268435456; local working_set=$value
  awkward 256 65536
  arguments="--variant all --working_set $working_set --stride $stride --loads $value"
}
draw_atomics() {
  # The lab takes --distinct up to --bins, and below it with --hot (bin 0 is the hot one).
  awkward 1 33554432; local n=$value
  awkward 1 4096; local bins=$value
  uniform 1 99; pick 0 0 "$value" 100; local hot=$value
  (( bins == 1 )) && hot=0
  local most=$(( hot > 0 ? bins - 1 : bins )); (( most > 32 )) && most=32
  uniform 1 "$most"
  arguments="--variant all --n $n --bins $bins --distinct $value --hot $hot"
}
draw_unified_memory() {
  awkward 1 33554432; local n=$value
  uniform 1 16; local reuse=$value
  awkward 4 65536; local stride_kib=$value
  uniform 1 6
  arguments="--variant all --n $n --reuse $reuse --stride_kib $stride_kib --rounds $value"
}

labs=(register_spill shared_tiling constant_ldg coalescing bank_conflicts aos_soa hierarchy_map
      atomics unified_memory)
if [[ -n $only_labs ]]; then IFS=, read -ra labs <<<"$only_labs"; fi
for lab in "${labs[@]}"; do
  [[ $(type -t "draw_$lab") == function ]] || { echo "model_census.sh: no lab '$lab'" >&2; exit 2; }
  [[ -x $build/labs/$lab ]] || { echo "model_census.sh: $build/labs/$lab is not built" >&2; exit 2; }
done

# run_round LAB: the round's runs of LAB, the lines of $out/cases-LAB.txt (each a run's
# arguments, --out its report), in one process as the grader runs its cases (--cases: the CUDA
# context and the profiler stay open; each run's kernels, seeds and buffers are its own). A run
# that ended the process leaves no REPORT.exit: it, and the runs after it, run again alone, as
# every run does with --isolate.
run_round() {
  local lab=$1 line json status
  [[ -z $isolate ]] && "$build/labs/$lab" --cases "$out/cases-$lab.txt" >"$out/cases-$lab.log" 2>&1
  while read -r line; do
    json=${line##* }
    if [[ -f $json.exit ]]; then
      read -r status _ <"$json.exit"
      mv "$json.stderr" "${json%.json}.stderr"
      rm -f "$json.exit" "$json.stdout"
    else
      # shellcheck disable=SC2086 # the line is the run's words
      "$build/labs/$lab" $line >"${json%.json}.stderr" 2>&1 </dev/null
      status=$?
    fi
    if [[ $status -ne 0 ]]; then
      echo "run failed (exit $status): $lab $line"
      tail -n 3 "${json%.json}.stderr" | sed 's/^/  /'
      failed=$((failed + 1))
      rm -f "$json"
    fi
  done <"$out/cases-$lab.txt"
}

echo "model_census: seed $seed, $runs runs, reports in $out"
: >"$out/runs.txt"
# The runs go in rounds of up to $per_lab runs a lab, one process a lab a round.
per_lab=8
failed=0 ran=0 run=1
while (( run <= runs )); do
  if [[ -n $seconds ]] && (( SECONDS >= seconds )); then
    echo "model_census: --seconds $seconds spent: $ran of $runs runs started"
    break
  fi
  last=$(( run + per_lab * ${#labs[@]} - 1 ))
  (( last > runs )) && last=$runs
  for lab in "${labs[@]}"; do : >"$out/cases-$lab.txt"; done
  for (( ; run <= last; run++ )); do
    lab=${labs[$(( (run - 1) % ${#labs[@]} ))]}
    "draw_$lab"
    json=$out/$(printf '%03d' "$run")-$lab.json
    echo "$lab $arguments" >>"$out/runs.txt"
    echo "$model $arguments --reps 3 --warmup 1 --time-limit 120 --format json --out $json" >>"$out/cases-$lab.txt"
  done
  ran=$last
  for lab in "${labs[@]}"; do
    [[ -s $out/cases-$lab.txt ]] && run_round "$lab"
  done
done
rm -f "$out"/cases-*.txt

reports=("$out"/*.json)
[[ -e ${reports[0]} ]] || { echo "model_census.sh: no run wrote a report" >&2; exit 1; }
if [[ -n $model ]]; then
  echo "model_census: seed $seed: $((ran - failed)) of $runs runs predicted (--model: no census)"
  [[ $failed -eq 0 ]]
  exit
fi
print_census "${reports[@]}"
census_status=$?
echo "model_census: seed $seed: $((ran - failed)) of $runs runs ran"
[[ $failed -eq 0 && $census_status -eq 0 ]]

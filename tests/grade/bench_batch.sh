#!/usr/bin/env bash
# bench_batch: how long a class takes to grade on this GPU host. A benchmark, not a test.
#   tests/grade/bench_batch.sh PATH/TO/memlab_grade PATH/TO/memlab_skeleton PATH/TO/PROGRAM \
#       labs/NN_PROGRAM/plants [COUNT [RUN...]]
#
# A class of COUNT submissions (default 50) is written from the lab's plants, taken in turn,
# each made a file of its own by a comment with its number (so no two are the same content).
# The plants whose cases run to their time limits (an endless loop, a printf flood, a hang in
# one case) are left out: they cost the GPU the rubric's time limits whatever the grader does.
# The class is graded once for each RUN (default 4 then 1), each into a fresh output folder:
#   N               on the first GPU, --jobs N (N submissions compiled at a time; the GPU runs
#                   one at a time)
#   all:N           on every GPU of the host, --gpus all --jobs N
#   slurm:SHARDS:N  through Slurm: ./memlab grade --slurm --shards SHARDS --jobs N, timed from
#                   the submission to the merge job's end (sbatch and squeue on PATH; the build
#                   folder is the one that holds memlab_grade)
# A table says each run's total and per-submission wall time. Then the scores the plants got,
# whether every run gave every copy of a plant the same score, and whether every run's
# scores.csv equals the first's.
# Exits 77 without a CUDA device, 1 when a batch ended without its scores or the runs' scores
# differ.
set -uo pipefail
usage="usage: bench_batch.sh MEMLAB_GRADE MEMLAB_SKELETON PROGRAM PLANTS_DIR [COUNT [RUN...]]"
grade=${1:?$usage}
skeleton=${2:?$usage}
program=${3:?$usage}
plants=${4:?$usage}
count=${5:-50}
shift $(($# < 5 ? $# : 5))
runs=("$@")
((${#runs[@]} > 0)) || runs=(4 1)
[[ $count =~ ^[1-9][0-9]*$ ]] || { echo "bench_batch: COUNT '$count' is not a positive number" >&2; exit 2; }
for run in "${runs[@]}"; do
  [[ $run =~ ^(all:|slurm:[1-9][0-9]*:)?[1-9][0-9]*$ ]] ||
    { echo "bench_batch: RUN '$run' is not N, all:N or slurm:SHARDS:N (N, SHARDS positive)" >&2; exit 2; }
  if [[ $run == slurm:* ]]; then
    command -v sbatch >/dev/null && command -v squeue >/dev/null ||
      { echo "bench_batch: RUN $run needs sbatch and squeue on PATH" >&2; exit 2; }
  fi
done
[[ -d $plants ]] || { echo "bench_batch: no plants folder $plants" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lab=$(basename "$(dirname "$plants")") # labs/NN_PROGRAM/plants
lab=${lab#[0-9][0-9]_}

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "bench_batch: no CUDA device: nothing to measure"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=()
for plant in "$plants"/*.plant; do
  name=$(basename "$plant" .plant)
  [[ $name == infinite_loop || $name == tamper_printf_flood || $name == hang_one_case ]] && continue
  "$root/tests/grade/plant.sh" "$plant" "$skeleton" >"$work/$name.plant.cu" || exit 1
  names+=("$name")
done
mkdir "$work/class"
for ((i = 0; i < count; i++)); do
  name=${names[i % ${#names[@]}]}
  student=$(printf 'student%03d_%s' "$i" "$name")
  { cat "$work/$name.plant.cu"; echo "// submission $i"; } >"$work/class/$student.cu"
done

echo "$lab: $count submissions from ${#names[@]} plants (${names[*]}) on $(nvidia-smi -L | head -n 1)"
# Through Slurm: the driver writes and submits the job array and the merge; the run ends when
# neither is in the queue any more.
slurm_run() { # SHARDS JOBS OUT
  local build
  build=$(cd "$(dirname "$grade")/.." && pwd)
  MEMLAB_BUILD=$build MEMLAB_NO_BUILD=1 "$root/memlab" grade "$lab" "$work/class" --slurm \
    --shards "$1" --jobs "$2" --out "$3" || return
  local jobs
  jobs=$(grep -o 'job [0-9]*' "$3.stdout" | cut -d' ' -f2 | paste -sd,)
  [[ -n $jobs ]] || return 2
  while [[ -n $(squeue -h -j "$jobs" 2>/dev/null) ]]; do sleep 1; done
  # The merge's own exit status: 0 or 1 when it wrote the scores.
  local merge_log
  merge_log=$(ls "$3"/slurm/merge-*.out 2>/dev/null | tail -n 1)
  cat "$merge_log" >>"$3.stderr" 2>/dev/null
  return 0
}

printf '%-12s %12s %16s %s\n' run "total (s)" "per sub. (s)" "graded / not graded"
status=0
first=""
for run in "${runs[@]}"; do
  out=$work/grades-${run//:/-}
  start=$(date +%s.%N)
  case $run in
    all:*)
      "$grade" --root "$root" "$lab" "$work/class" --program "$program" --out "$out" \
        --gpus all --jobs "${run#all:}" >"$out.stdout" 2>"$out.stderr" ;;
    slurm:*)
      IFS=: read -r _ shards jobs <<<"$run"
      slurm_run "$shards" "$jobs" "$out" >"$out.stdout" 2>"$out.stderr" ;;
    *)
      "$grade" --root "$root" "$lab" "$work/class" --program "$program" --out "$out" \
        --jobs "$run" >"$out.stdout" 2>"$out.stderr" ;;
  esac
  result=$?
  end=$(date +%s.%N)
  if [[ $result -ne 0 && $result -ne 1 ]] || [[ ! -s $out/scores.csv ]]; then
    echo "bench_batch: the run $run exited $result: $(tail -n 2 "$out.stderr")" >&2
    status=1
    continue
  fi
  not_graded=$(grep -l '^case [^:]*: NOT GRADED' "$out"/results/*.txt 2>/dev/null | wc -l)
  awk -v run="$run" -v a="$start" -v b="$end" -v n="$count" -v bad="$not_graded" \
    'BEGIN { printf "%-12s %12.1f %16.2f %d / %d\n", run, b - a, (b - a) / n, n - bad, bad }'
  if [[ -z $first ]]; then
    first=$run
  elif ! cmp -s "$work/grades-${first//:/-}/scores.csv" "$out/scores.csv"; then
    echo "bench_batch: the run $run's scores.csv differs from the run $first's" >&2
    status=1
  fi
done
[[ $status -ne 0 || ${#runs[@]} -lt 2 ]] || echo "every run's scores.csv is the same"

# Scores by plant: column 5 of scores.csv is the total, the submission ID (column 4) names the
# plant. Every copy of a plant, in every run, should score alike (but for its "either" cases).
echo
echo "scores (every copy of a plant, every run):"
for run in "${runs[@]}"; do
  [[ -s $work/grades-${run//:/-}/scores.csv ]] && tail -n +2 "$work/grades-${run//:/-}/scores.csv"
done | awk -F, '{ plant = $4; sub(/^student[0-9]+_/, "", plant); max[plant] = $6
                  if (!((plant, $5) in listed)) { listed[plant, $5] = 1; scores[plant] = scores[plant] " " $5 } }
                END { for (plant in scores) printf "  %-24s %s / %s\n", plant, scores[plant], max[plant] }' | sort
exit $status

#!/usr/bin/env bash
# bench_batch: how long a class takes to grade on this GPU host. A benchmark, not a test.
#   tests/grade/bench_batch.sh PATH/TO/memlab_grade PATH/TO/memlab_skeleton PATH/TO/PROGRAM \
#       tests/grade/PROGRAM [COUNT [JOBS...]]
#
# A class of COUNT submissions (default 50) is written from the lab's plants, taken in turn,
# each made a file of its own by a comment with its number (so no two are the same content).
# The plants whose cases run to their time limits (an endless loop, a printf flood, a hang in
# one case) are left out: they cost the GPU the rubric's time limits whatever the grader does.
# The class is graded once for each JOBS value (default 4 then 1: --jobs N compiles N
# submissions at a time; the GPU runs one at a time), each into a fresh output folder, and a
# table says the total and the per-submission wall time. Then the scores the plants got, and
# whether every run gave every copy of a plant the same score.
# Exits 77 without a CUDA device, 1 when a batch ended without its scores.
set -uo pipefail
usage="usage: bench_batch.sh MEMLAB_GRADE MEMLAB_SKELETON PROGRAM PLANTS_DIR [COUNT [JOBS...]]"
grade=${1:?$usage}
skeleton=${2:?$usage}
program=${3:?$usage}
plants=${4:?$usage}
count=${5:-50}
shift $(($# < 5 ? $# : 5))
jobs_list=("$@")
((${#jobs_list[@]} > 0)) || jobs_list=(4 1)
[[ $count =~ ^[1-9][0-9]*$ ]] || { echo "bench_batch: COUNT '$count' is not a positive number" >&2; exit 2; }
for jobs in "${jobs_list[@]}"; do
  [[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "bench_batch: JOBS '$jobs' is not a positive number" >&2; exit 2; }
done
[[ -d $plants ]] || { echo "bench_batch: no plants folder $plants" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lab=$(basename "$plants")

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
printf '%-6s %12s %16s %s\n' jobs "total (s)" "per sub. (s)" "graded / not graded"
status=0
for jobs in "${jobs_list[@]}"; do
  out=$work/grades-jobs$jobs
  start=$(date +%s.%N)
  "$grade" --root "$root" "$lab" "$work/class" --program "$program" --out "$out" --jobs "$jobs" \
    >"$out.stdout" 2>"$out.stderr"
  result=$?
  end=$(date +%s.%N)
  if [[ $result -ne 0 && $result -ne 1 ]] || [[ ! -s $out/scores.csv ]]; then
    echo "bench_batch: the batch with --jobs $jobs exited $result: $(tail -n 2 "$out.stderr")" >&2
    status=1
    continue
  fi
  not_graded=$(grep -l '^case [^:]*: NOT GRADED' "$out"/results/*.txt 2>/dev/null | wc -l)
  awk -v jobs="$jobs" -v a="$start" -v b="$end" -v n="$count" -v bad="$not_graded" \
    'BEGIN { printf "%-6s %12.1f %16.2f %d / %d\n", jobs, b - a, (b - a) / n, n - bad, bad }'
done

# Scores by plant: column 5 of scores.csv is the total, the submission ID (column 4) names the
# plant. Every copy of a plant, in every run, should score alike (but for its "either" cases).
echo
echo "scores (every copy of a plant, every run):"
for jobs in "${jobs_list[@]}"; do
  [[ -s $work/grades-jobs$jobs/scores.csv ]] && tail -n +2 "$work/grades-jobs$jobs/scores.csv"
done | awk -F, '{ plant = $4; sub(/^student[0-9]+_/, "", plant); max[plant] = $6
                  if (!((plant, $5) in listed)) { listed[plant, $5] = 1; scores[plant] = scores[plant] " " $5 } }
                END { for (plant in scores) printf "  %-24s %s / %s\n", plant, scores[plant], max[plant] }' | sort
exit $status

#!/usr/bin/env bash
# grade_paths_bench: the grader's two paths side by side on this GPU host, in one call: a
# submission's cases through one lab process (PROGRAM --cases, the default) and each run a
# process of its own (--isolate-cases). A benchmark for issue 47's note, not a test.
#   tests/grade_paths_bench.sh BUILD [--submissions N] [--repeats R] [--jobs J] [--timings-only]
#                                [--together-only]
#
# BUILD is the build folder (tools/memlab_grade, tools/memlab_skeleton, labs/PROGRAM). The paths
# take turns, run after run, so a drift of the host (clocks, another user) falls on both. It
# prints:
#   1. the timings: one coalescing and one shared_tiling submission (the solution; the median of
#      R runs, default 3), a class of N coalescing submissions (default 50, written from the
#      lab's plants in turn, each a file of its own) on one GPU, and on two GPUs (--gpus 0,1)
#      where the host has two; J submissions in flight a GPU (default 4): the grader's --jobs
#      counts them over all its GPUs, so the two-GPU class runs with --jobs 2J;
#   2. the time ratio of every speed case (a time_ratio check), for the solution and a slow plant
#      of each lab: min, median and max over the R runs of each path, and whether the other
#      path's median lies within the isolated path's run-to-run spread;
#   3. the scores each plant got from both paths, and whether the classes' scores.csv are the
#      same byte for byte (they must be: the diff is printed otherwise).
# --timings-only measures part 1 alone, and the two-GPU class on the together path alone: what a
# lent GPU's ten minutes hold (parts 2 and 3 come from the gpu_grade_paths_LAB tests too);
# --together-only (with --timings-only) leaves the isolated path out (its column reads "-").
# The plants that may go either way from one run to the next ("expect either") and those that run
# to their time limits (an endless loop, a printf flood, a hang) are left out of the classes.
# Exits 77 without a CUDA device, 1 when a run ended without its results or the scores differ.
set -uo pipefail
usage="usage: grade_paths_bench.sh BUILD [--submissions N] [--repeats R] [--jobs J] [--timings-only] [--together-only]"
build=${1:?$usage}
shift
count=50 repeats=3 jobs=4 timings_only="" together_only=""
while [[ $# -gt 0 ]]; do
  if [[ $1 == --timings-only ]]; then timings_only=1; shift; continue; fi
  if [[ $1 == --together-only ]]; then together_only=1 timings_only=1; shift; continue; fi
  [[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
  case $1 in
    --submissions) count=$2 ;;
    --repeats) repeats=$2 ;;
    --jobs) jobs=$2 ;;
    *) echo "grade_paths_bench: unknown option '$1' ($usage)" >&2; exit 2 ;;
  esac
  [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "grade_paths_bench: $1 takes a positive number, got '$2'" >&2; exit 2; }
  shift 2
done
grade=$build/tools/memlab_grade
skeleton=$build/tools/memlab_skeleton
for tool in "$grade" "$skeleton" "$build/labs/coalescing" "$build/labs/shared_tiling"; do
  [[ -x $tool ]] || { echo "grade_paths_bench: $tool is not built" >&2; exit 2; }
done
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "grade_paths_bench: no CUDA device: nothing to measure"
  exit 77
fi
gpu_count=$(nvidia-smi -L | wc -l)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
paths=(isolated together)
[[ -n $together_only ]] && paths=(together)
path_options() { [[ $1 == together ]] || echo --isolate-cases; }

# The plants of a lab as NAME.cu in FOLDER: all but the endless ones and the "either" ones.
write_plants() { # LAB_FOLDER (labs/NN_LAB), FOLDER
  mkdir -p "$2"
  local plant name
  for plant in "$root/$1"/plants/*.plant; do
    name=$(basename "$plant" .plant)
    [[ $name == infinite_loop || $name == tamper_printf_flood || $name == hang_one_case ]] && continue
    awk '/^file[ \t\r]*$/ { exit } $1 == "expect" && $2 == "either" { found = 1 } END { exit !found }' \
      "$plant" && continue
    "$root/tests/grade/plant.sh" "$plant" "$skeleton" >"$2/$name.cu" || exit 1
  done
}
write_plants labs/04_coalescing "$work/plants-coalescing"
write_plants labs/02_shared_tiling "$work/plants-shared_tiling"

seconds_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# ---- one submission, R times each path, taking turns -------------------------------------------
# The solution for the timings; the solution and a slow plant for the speed cases' ratios.
# (The slow plants' speed cases may go either way: they are in no class, but here.)
declare -A slow=([coalescing]=wrong_way [shared_tiling]=wrong_way_naive)
declare -A folder=([coalescing]=04_coalescing [shared_tiling]=02_shared_tiling)
mkdir "$work/speed"
for lab in coalescing shared_tiling; do
  plants=(solution "${slow[$lab]}")
  [[ -n $timings_only ]] && plants=(solution)
  for plant in "${plants[@]}"; do
    submission=$work/speed/$lab-$plant.cu
    "$root/tests/grade/plant.sh" "$root/labs/${folder[$lab]}/plants/$plant.plant" "$skeleton" \
      >"$submission" || exit 1
    for ((r = 1; r <= repeats; r++)); do
      for path in "${paths[@]}"; do
        out=$work/one-$lab-$plant-$path-$r
        start=$(date +%s.%N)
        # shellcheck disable=SC2046
        "$grade" --root "$root" "$lab" "$submission" --program "$build/labs/$lab" --format text \
          --out "$out.txt" $(path_options "$path") >/dev/null 2>"$out.err"
        result=$?
        end=$(date +%s.%N)
        if [[ $result -ne 0 && $result -ne 1 ]]; then
          echo "grade_paths_bench: $lab $plant ($path) exited $result: $(tail -n 2 "$out.err")" >&2
          status=1
        fi
        seconds_of "$start" "$end" >"$out.seconds"
        # Each measurement as it ends, so that a run cut short by a time limit still tells.
        echo "grade_paths_bench: one $lab $plant, $path, run $r: $(cat "$out.seconds") s" >&2
      done
    done
  done
done

# ---- a class, each path, on one GPU and on two -----------------------------------------------
mkdir "$work/class"
names=()
for cu in "$work/plants-coalescing"/*.cu; do names+=("$(basename "$cu" .cu)"); done
for ((i = 0; i < count; i++)); do
  name=${names[i % ${#names[@]}]}
  { cat "$work/plants-coalescing/$name.cu"; echo "// submission $i"; } \
    >"$work/class/$(printf 'student%03d_%s' "$i" "$name").cu"
done
class_run() { # OUT, PATH, CLASS, LAB, JOBS, options...
  local out=$1 path=$2 class=$3 lab=$4 class_jobs=$5
  shift 5
  local start end
  start=$(date +%s.%N)
  # shellcheck disable=SC2046
  "$grade" --root "$root" "$lab" "$class" --program "$build/labs/$lab" --out "$out" \
    --jobs "$class_jobs" $(path_options "$path") "$@" >"$out.stdout" 2>"$out.stderr"
  local result=$?
  end=$(date +%s.%N)
  if [[ $result -ne 0 && $result -ne 1 ]] || [[ ! -s $out/scores.csv ]]; then
    echo "grade_paths_bench: the class into $(basename "$out") exited $result: $(tail -n 2 "$out.stderr")" >&2
    status=1
  fi
  seconds_of "$start" "$end" >"$out.seconds"
  echo "grade_paths_bench: $(basename "$out") ($lab, $path, --jobs $class_jobs $*): $(cat "$out.seconds") s" >&2
}
for path in "${paths[@]}"; do class_run "$work/class1-$path" "$path" "$work/class" coalescing "$jobs"; done
if ((gpu_count >= 2)); then
  for path in "${paths[@]}"; do
    [[ -n $timings_only && $path == isolated ]] && continue
    class_run "$work/class2-$path" "$path" "$work/class" coalescing $((2 * jobs)) --gpus 0,1
  done
fi
if [[ -z $timings_only ]]; then
  for lab in coalescing shared_tiling; do
    for path in "${paths[@]}"; do
      class_run "$work/plants-$lab-$path" "$path" "$work/plants-$lab" "$lab" "$jobs"
    done
  done
fi

# ---- 1. the timings -----------------------------------------------------------------------------
echo "grade_paths_bench on $(nvidia-smi -L | head -n 1) ($gpu_count GPU(s)), $jobs submissions in flight a GPU, $repeats runs each"
echo
printf '| %-44s | %14s | %14s | %8s |\n' what "isolated (s)" "together (s)" ratio
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "$(printf -- '-%.0s' {1..16})" \
  "$(printf -- '-%.0s' {1..16})" "$(printf -- '-%.0s' {1..10})"
row() { # WHAT, ISOLATED SECONDS, TOGETHER SECONDS (0: not measured, shown as "-")
  awk -v what="$1" -v a="$2" -v b="$3" 'BEGIN {
    printf "| %-44s | %14s | %14s | %8s |\n", what, (a > 0 ? sprintf("%.1f", a) : "-"),
           (b > 0 ? sprintf("%.1f", b) : "-"), (a > 0 && b > 0 ? sprintf("%.2fx", b / a) : "-") }'
}
seconds_of_runs() { # FILE PATTERN...: the median of the files' seconds, 0 when there are none
  local files
  files=$(cat "$@" 2>/dev/null)
  if [[ -n $files ]]; then median <<<"$files"; else echo 0; fi
}
for lab in coalescing shared_tiling; do
  row "one $lab submission (median of $repeats)" \
    "$(seconds_of_runs "$work"/one-$lab-solution-isolated-*.seconds)" \
    "$(seconds_of_runs "$work"/one-$lab-solution-together-*.seconds)"
done
row "$count coalescing submissions, one GPU" "$(seconds_of_runs "$work/class1-isolated.seconds")" \
  "$(seconds_of_runs "$work/class1-together.seconds")"
if ((gpu_count >= 2)); then
  row "the same $count on two GPUs" "$(seconds_of_runs "$work/class2-isolated.seconds")" \
    "$(seconds_of_runs "$work/class2-together.seconds")"
  awk -v i1="$(seconds_of_runs "$work/class1-isolated.seconds")" \
    -v i2="$(seconds_of_runs "$work/class2-isolated.seconds")" \
    -v t1="$(seconds_of_runs "$work/class1-together.seconds")" \
    -v t2="$(seconds_of_runs "$work/class2-together.seconds")" \
    'BEGIN { printf "two GPUs / one GPU: %s isolated, %s together (the goal: <= 0.55x)\n",
             (i1 > 0 && i2 > 0 ? sprintf("%.2fx", i2 / i1) : "-"),
             (t1 > 0 && t2 > 0 ? sprintf("%.2fx", t2 / t1) : "-") }'
else
  echo "(one GPU here: the two-GPU row needs a host with two)"
fi
if [[ -n $timings_only ]]; then
  if [[ -n $together_only ]]; then
    exit $status
  fi
  if cmp -s "$work/class1-isolated/scores.csv" "$work/class1-together/scores.csv"; then
    echo "the $count submissions: scores.csv the same byte for byte on both paths"
  else
    echo "the $count submissions: scores.csv DIFFERS between the paths:"
    diff "$work/class1-isolated/scores.csv" "$work/class1-together/scores.csv" | sed 's/^/  /'
    status=1
  fi
  exit $status
fi

# ---- 2. the speed cases' time ratios ------------------------------------------------------------
echo
echo "speed cases (time_ratio), min / median / max over $repeats runs; 'within': the together median"
echo "lies within the isolated runs' spread"
ratios() { # TEXT REPORT: "CASE RATIO" for each time_ratio line
  awk '/^case [^:]*:/ { name = $2; sub(/:$/, "", name) }
       /time_ratio, / { line = $0; sub(/.* = /, "", line); sub(/,.*/, "", line); print name, line }' "$1"
}
printf '%-14s %-16s %-26s %-26s %-26s %s\n' lab submission case isolated together within
for lab in coalescing shared_tiling; do
  for plant in solution "${slow[$lab]}"; do
    cases=$(ratios "$work/one-$lab-$plant-isolated-1.txt" | cut -d' ' -f1 | sort -u)
    for case in $cases; do
      declare -A spread=()
      for path in "${paths[@]}"; do
        values=$(for file in "$work"/one-$lab-$plant-$path-*.txt; do ratios "$file"; done |
          awk -v c="$case" '$1 == c { print $2 }' | sort -g)
        spread[$path]=$(awk '{ v[NR] = $1 } END { if (NR) printf "%.3f %.3f %.3f", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR] }' <<<"$values")
      done
      read -r imin imed imax <<<"${spread[isolated]}"
      read -r tmin tmed tmax <<<"${spread[together]}"
      within=$(awk -v lo="$imin" -v hi="$imax" -v m="$tmed" 'BEGIN { print (m >= lo && m <= hi) ? "yes" : "no" }')
      printf '%-14s %-16s %-26s %-26s %-26s %s\n' "$lab" "$plant" "$case" \
        "$imin / $imed / $imax" "$tmin / $tmed / $tmax" "$within"
      unset spread
    done
  done
done

# ---- 3. the scores, both paths ------------------------------------------------------------------
echo
echo "scores by plant (Submission ID, Total Score, Max Points), isolated | together:"
for lab in coalescing shared_tiling; do
  for path in "${paths[@]}"; do
    tail -n +2 "$work/plants-$lab-$path/scores.csv" | cut -d, -f4-6 | sort >"$work/scores-$lab-$path"
  done
  paste -d'|' "$work/scores-$lab-isolated" "$work/scores-$lab-together" | sed "s/^/  $lab: /"
  if cmp -s "$work/plants-$lab-isolated/scores.csv" "$work/plants-$lab-together/scores.csv"; then
    echo "  $lab: scores.csv the same byte for byte"
  else
    echo "  $lab: scores.csv DIFFERS:"
    diff "$work/plants-$lab-isolated/scores.csv" "$work/plants-$lab-together/scores.csv" | sed 's/^/    /'
    status=1
  fi
done
for class in class1 class2; do
  [[ -s $work/$class-isolated/scores.csv ]] || continue
  if cmp -s "$work/$class-isolated/scores.csv" "$work/$class-together/scores.csv"; then
    echo "  the $count submissions ($class): scores.csv the same byte for byte"
  else
    echo "  the $count submissions ($class): scores.csv DIFFERS:"
    diff "$work/$class-isolated/scores.csv" "$work/$class-together/scores.csv" | sed 's/^/    /'
    status=1
  fi
done
exit $status

#!/usr/bin/env bash
# tools/report/demo.sh [--out DIR] [--model] [--quick]: ./memlab demo, which memlab runs (its
# --help says what it does; handouts/instructor-guide.md how to use it). Builds if needed, runs
# every lab's demo and writes DIR/report.md, report.html and data/, then the plots (plot.sh).
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# The marker memlab_report demo writes into report.md (tools/report/memlab_report.c), read here.
demo_marker='<!-- memlab demo report -->'

# ./memlab demo [--out DIR] [--model] [--quick] (or the older ./memlab demo DIR): every lab's demo runs,
# their JSON, CSV and tables in DIR/data/, DIR/report.md, and the plots when gnuplot is here.
demo() {
  local out=$root/report model=0 directory_given=0 runs_file=demo.args
  while [[ $# -gt 0 ]]; do
    case $1 in
      --quick) runs_file=quick.args; shift ;;
      --out)
        [[ $# -ge 2 && -n $2 ]] || die "demo: --out needs a directory"
        out=$2
        shift 2
        ;;
      --model) model=1; shift ;;
      -*) die "demo: unknown option '$1' (./memlab demo [--out DIR] [--model] [--quick])" ;;
      *)
        [[ $directory_given -eq 0 ]] || die "demo: one directory only (./memlab demo [--out DIR] [--model] [--quick])"
        directory_given=1
        out=$1
        shift
        ;;
    esac
  done
  [[ -d $out && -w $out ]] || can_create "$out" || die "demo: cannot write to '$out'"
  # Only a directory that is empty or holds an earlier demo report is written to.
  if [[ -d $out && -n $(ls -A "$out") ]] && ! grep -qsF "$demo_marker" "$out/report.md"; then
    die "demo: $out is not empty and holds no memlab demo report: choose another --out"
  fi
  build gnuplot-nox
  local tool
  tool=$(report_tool)
  mkdir -p "$out/data" "$out/plots"
  rm -f "$out"/data/*.json "$out"/data/*.csv "$out"/data/*.txt "$out"/data/*.log \
    "$out"/data/runs.tsv "$out"/data/seconds.tsv
  clean_plots "$out"

  local programs=() arguments=() program line
  for program in $(lab_programs); do
    while IFS= read -r line; do
      programs+=("$program")
      arguments+=("$line")
    done < <(demo_runs "$program" "$runs_file")
  done

  local total=${#programs[@]} i run status failed=0 base mode extra started seconds wall kernels
  local counters host demo_started=$EPOCHREALTIME
  local -A runs_of=()
  for ((i = 0; i < total; i++)); do
    program=${programs[i]}
    run=$((${runs_of[$program]:-0} + 1))
    runs_of[$program]=$run
    base=$out/data/$program-$run
    while true; do
      mode=gpu
      extra=()
      if ((model)); then
        mode=model
        extra=(--model)
      fi
      echo "[$((i + 1))/$total] $program${arguments[i]:+ ${arguments[i]}}${extra[*]:+ --model}" >&2
      status=0
      started=$EPOCHREALTIME
      if [[ ! -x $build/labs/$program ]]; then
        echo "memlab: $build/labs/$program is not built" >"$base.log"
        status=127
      else
        # stderr goes to the log, but for the program's progress lines, shown in place.
        # shellcheck disable=SC2086 # the arguments are words on purpose
        MEMLAB_PROGRESS=1 "$build/labs/$program" ${arguments[i]} "${extra[@]}" --format json \
          --out "$base.json" 2>&1 >"$base.txt" |
          progress_filter "$base.log" "[$((i + 1))/$total] $program" || status=$?
      fi
      # Exit status 3: no usable CUDA device. Then the whole demo reports predictions.
      if [[ $status -eq 3 && $model -eq 0 ]]; then
        echo "memlab: no usable CUDA GPU here (the lab programs exit 3): the demo reports the access model's predictions (--model)" >&2
        model=2
        continue
      fi
      break
    done
    if [[ -s $base.json ]]; then
      if ! "$tool" csv "$base.json" >"$base.csv" 2>>"$base.log"; then
        [[ $status -ne 0 ]] || status=2
      fi
    fi
    if [[ $status -ne 0 ]]; then
      failed=$((failed + 1))
      echo "memlab: $program${arguments[i]:+ ${arguments[i]}}: exit status $status (log: $base.log)" >&2
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$program" "$run" "$status" "$mode" "${arguments[i]}" >>"$out/data/runs.tsv"
    # Where the run's time went, from its report: a slow run says whether the GPU made it slow.
    if [[ $mode == gpu && -s $base.json ]] && seconds=$("$tool" seconds "$base.json" 2>/dev/null); then
      printf '%s\t%s\t%s\t%s\n' "$program" "$run" "$(elapsed_since "$started")" "$seconds" >>"$out/data/seconds.tsv"
      IFS=$'\t' read -r wall kernels counters host _ <<<"$seconds"
      echo "      ${wall} s: kernels ${kernels} s, counters ${counters} s, host ${host} s" >&2
    fi
  done

  # report.md: memlab_report writes it from DIR/data (runs.tsv, seconds.tsv, each run's files).
  local report_options=(--root "$root" --seconds "$(elapsed_since "$demo_started")"
    --version "$(git -C "$root" describe --always --dirty 2>/dev/null || echo 'not a git checkout')")
  [[ $runs_file != quick.args ]] || report_options+=(--quick)
  ((model != 1)) || report_options+=(--predictions asked)
  ((model != 2)) || report_options+=(--predictions no-gpu)
  local have_gnuplot=no plots_failed=0
  ! command -v "$gnuplot" >/dev/null 2>&1 || have_gnuplot=yes
  "$tool" demo "$out" "${report_options[@]}" --gnuplot "$have_gnuplot" ||
    die "demo: writing $out/report.md failed"
  # The page an instructor projects: charts and plots drawn by memlab, no gnuplot needed.
  "$tool" html "$out" --root "$root" || die "demo: writing $out/report.html failed"
  if [[ $have_gnuplot == yes ]]; then
    "$root/tools/report/plot.sh" "$out" || plots_failed=1
  else
    echo "memlab: $gnuplot_missing (./memlab plot $out); the tables are in the report" >&2
  fi
  echo "memlab: report in $out/report.md ($total runs, $failed failed) and $out/report.html" >&2
  [[ $failed -eq 0 && $plots_failed -eq 0 ]] || return 1
}

# Reads a lab program's stderr: "progress: ..." lines are shown in place on a terminal (and
# dropped elsewhere), the others go to LOG.
progress_filter() { # LOG LABEL
  local line shown=0
  : >"$1"
  while IFS= read -r line; do
    if [[ $line == progress:* ]]; then
      if [[ -t 2 ]]; then
        printf '\r%s: point %s\033[K' "$2" "${line#progress: }" >&2
        shown=1
      fi
    else
      printf '%s\n' "$line" >>"$1"
    fi
  done
  ((shown == 0)) || printf '\r\033[K' >&2
}

# Seconds since an $EPOCHREALTIME, to a hundredth.
elapsed_since() { # START
  awk -v start="$1" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.2f", now - start }'
}

demo "$@"

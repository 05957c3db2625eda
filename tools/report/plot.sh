#!/usr/bin/env bash
# tools/report/plot.sh DIR: ./memlab plot, which memlab runs, and the last step of ./memlab demo
# (demo.sh).
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# The markers memlab_report demo writes around each lab's plots in report.md
# (tools/report/memlab_report.c), read here.
plots_begin='<!-- memlab plots' # followed by " PROGRAM -->"
plots_end='<!-- end of memlab plots -->'

# ./memlab plot DIR: the plots of labs/NN_PROGRAM/plots/*.gp (each loaded after
# tools/report/plots/common.gp) from the JSON in DIR/data (or DIR), as SVG and PNG in DIR/plots,
# linked into DIR/report.md. No GPU, no lab run.
plot_report() {
  [[ $# -eq 1 ]] || die "plot takes the directory of a demo run: ./memlab plot DIR"
  local out=$1 data=$1
  [[ -d $out/data ]] && data=$out/data
  local reports=("$data"/*.json)
  [[ -e ${reports[0]} ]] || die "plot: no JSON report in $data (./memlab demo --out $out writes them)"
  command -v "$gnuplot" >/dev/null 2>&1 || die "$gnuplot_missing; the tables in $out/report.md need none"
  local tool
  tool=$(report_tool)
  mkdir -p "$out/plots"
  clean_plots "$out"

  local drawn=0 skipped=0 failed=0 directory program script name title gpu caches settings
  local line set arguments columns plot_status has_data format
  local labs
  labs=$("$tool" labs "${reports[@]}")
  for directory in "$root"/labs/[0-9][0-9]_*/plots/; do
    program=$(basename "$(dirname "$directory")")
    program=${program#[0-9][0-9]_}
    grep -qx "$program" <<<"$labs" || continue
    gpu=$("$tool" device --lab "$program" "${reports[@]}" 2>/dev/null) ||
      gpu="predictions only (no GPU)"
    gpu=${gpu//[\'\\]/}
    # The cache sizes the run's predictions were made for: plots mark them.
    caches=$("$tool" caches --lab "$program" "${reports[@]}" 2>/dev/null) || caches="l1_bytes=0; l2_bytes=0;"
    for script in "$directory"*.gp; do
      [[ -e $script ]] || continue
      name=$program-$(basename "$script" .gp)
      title=$(sed -n '1s/^# *//p' "$script")
      settings="gpu='$gpu'; $caches"
      has_data=0
      plot_status=0
      while IFS= read -r line; do
        set=${line%%:*}
        arguments=${line#*:}
        [[ $set =~ ^[a-z][a-z0-9_]*$ ]] || die "$script: a data line is '# data NAME: ...', NAME a gnuplot name"
        # shellcheck disable=SC2086 # the arguments are words on purpose
        columns=$("$tool" $arguments --lab "$program" --out "$out/plots/$name.$set.dat" \
          "${reports[@]}" 2>>"$out/plots/gnuplot.log") || plot_status=$?
        [[ $plot_status -le 1 ]] || break
        [[ -n $columns ]] && has_data=1
        settings+=" $set='$name.$set.dat'; ${set}_columns='$columns';"
        plot_status=0
      done < <(sed -n 's/^# data \([^ ]*\)/\1/p' "$script")
      if [[ $plot_status -gt 1 ]]; then
        echo "- $title: its data lines are wrong (see plots/gnuplot.log)" >>"$out/plots/$program.md"
        failed=$((failed + 1))
        continue
      fi
      if [[ $has_data -eq 0 ]]; then
        if [[ $gpu == predictions* ]]; then
          echo "- $title: not drawn, nothing to plot in this run (predictions only: no timings, no measured counters)."
        else
          echo "- $title: not drawn, nothing to plot in this run's data."
        fi >>"$out/plots/$program.md"
        skipped=$((skipped + 1))
        continue
      fi
      for format in svg png; do
        (cd "$out/plots" && "$gnuplot" -e "format='$format'; output='$name.$format'; $settings" \
          "$root/tools/report/plots/common.gp" "$script" 2>>gnuplot.log) || plot_status=1
      done
      if [[ $plot_status -ne 0 ]]; then
        echo "- $title: gnuplot failed (see plots/gnuplot.log)" >>"$out/plots/$program.md"
        failed=$((failed + 1))
      else
        # The PNG shows in any Markdown viewer; a click opens the SVG.
        printf '\n[![%s](plots/%s.png)](plots/%s.svg)\n\n' "$title" "$name" "$name" >>"$out/plots/$program.md"
        drawn=$((drawn + 1))
      fi
    done
  done
  [[ -f $out/report.md ]] && link_plots "$out"
  echo "memlab: $drawn plots in $out/plots, $skipped skipped (no data), $failed failed" >&2
  [[ $failed -eq 0 ]]
}

# Replaces what report.md holds between each lab's plot markers with DIR/plots/PROGRAM.md.
link_plots() { # DIR
  local out=$1
  awk -v plots="$out/plots" -v begin="$plots_begin" -v end="$plots_end" '
    index($0, begin " ") == 1 {
      print
      program = $0
      sub("^" begin " ", "", program)
      sub(" -->$", "", program)
      file = plots "/" program ".md"
      shown = 0
      while ((getline text < file) > 0) { print text; shown = 1 }
      close(file)
      if (!shown) print "No plots for this lab."
      skipping = 1
      next
    }
    $0 == end { skipping = 0 }
    !skipping { print }
  ' "$out/report.md" >"$out/report.md.new"
  mv "$out/report.md.new" "$out/report.md"
}

plot_report "$@"

#!/usr/bin/env bash
# test_demo: ./memlab demo and ./memlab plot as an instructor meets them on a machine without a
# GPU, with the programs of the build that runs the test.
#   tests/unit/test_demo.sh demo DIR   ./memlab demo --model --out DIR: a predictions report
#                                      naming every lab in labs/, each run's JSON, CSV and table
#   tests/unit/test_demo.sh plot DIR   ./memlab plot DIR on that data: SVG and PNG files linked
#                                      into report.md (exit 77, skipped, without gnuplot)
# CTest sets MEMLAB_BUILD to its build directory and MEMLAB_NO_BUILD=1, so that the driver runs
# the programs as built and never builds inside a test.
set -uo pipefail
mode=${1:?usage: test_demo.sh demo|plot DIR}
out=${2:?usage: test_demo.sh demo|plot DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
memlab=$root/memlab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Labs that exist, as the driver finds them: labs/NN_PROGRAM/PROGRAM.cu.
lab_programs() {
  local directory
  for directory in "$root"/labs/[0-9][0-9]_*/; do
    directory=$(basename "$directory")
    [[ -e $root/labs/$directory/${directory#[0-9][0-9]_}.cu ]] && echo "${directory#[0-9][0-9]_}"
  done
}

# Runs a lab's demo.args asks for (non-blank lines that are not comments), 1 without the file.
demo_run_count() {
  local file
  file=$(echo "$root"/labs/[0-9][0-9]_"$1")/demo.args
  if [[ -f $file ]]; then
    grep -c -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$file"
  else
    echo 1
  fi
}

check_demo() {
  rm -rf "$out"
  "$memlab" demo --model --out "$out" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  [[ $status -eq 0 ]] || { fail "demo --model exit status $status"; cat "$work/stderr"; }
  local report=$out/report.md
  [[ -f $report ]] || { fail "no $report"; return; }
  grep -q 'Predictions only' "$report" || fail "report.md does not say it holds predictions"

  local programs total=0 program runs run csv_rows json_records about
  programs=$(lab_programs)
  [[ -n $programs ]] || fail "no lab found in labs/"
  for program in $programs; do
    runs=$(demo_run_count "$program")
    total=$((total + runs))
    grep -q "^<a id=\"$program\"></a>$" "$report" || fail "report.md has no section for $program"
    [[ $(grep -c "^### \`$program.* --model\` (predictions)$" "$report") -eq $runs ]] ||
      fail "report.md does not show $runs predictions runs of $program"
    about=$(echo "$root"/labs/[0-9][0-9]_"$program")/demo.md
    if [[ -f $about ]]; then
      grep -qF "$(head -n1 "$about")" "$report" || fail "report.md lacks $program's demo.md"
    fi
    for ((run = 1; run <= runs; run++)); do
      local base=$out/data/$program-$run
      [[ -s $base.json && -s $base.csv && -s $base.txt ]] ||
        { fail "$program run $run: missing JSON, CSV or table in data/"; continue; }
      grep -q '^device: *none (--model' "$base.txt" || fail "$program run $run: not a --model table"
      # The run's Markdown tables (memlab_report markdown, from the JSON) say what its text
      # table says: a results row per record, and the text table's metric rows, cell for cell.
      local variant row
      for variant in $(tail -n +2 "$base.csv" | cut -d, -f2); do
        grep -q "^| $variant | " "$report" || fail "$program run $run: no results row for $variant"
      done
      while IFS= read -r row; do
        grep -qxF "$row" "$report" || fail "$program run $run: report.md lacks the metric row '$row'"
      done < <(awk '
        $1 == "variant" && $2 == "params" { in_metrics = 1; getline; next }
        in_metrics && NF == 0 { exit }
        in_metrics {
          params = ""       # a variant that reads no size parameter has none
          for (i = 2; i <= NF - 5; i++) params = params (i > 2 ? " " : "") $i
          printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, params, $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF
        }' "$base.txt")
      grep -qx -- "- device: none (--model: predictions only)" "$report" ||
        fail "report.md does not give the runs' device"
      [[ $(head -n1 "$base.csv") == lab,variant,* ]] || fail "$program run $run: CSV has no header"
      csv_rows=$(($(wc -l <"$base.csv") - 1))
      json_records=$(grep -c '"variant":' "$base.json")
      [[ $csv_rows -eq $json_records ]] ||
        fail "$program run $run: $csv_rows CSV rows for $json_records JSON records"
    done
  done
  # Progress on stderr: "[n/N] program arguments", one line per run (none repeated here, since
  # --model was asked for).
  [[ $(grep -c "^\[[0-9]*/$total\] " "$work/stderr") -eq $total ]] ||
    fail "stderr does not count $total runs as [n/$total]"
  [[ ! -s $work/stdout ]] || fail "demo wrote to stdout"

  # Bad input: one line on stderr, exit status 2, nothing written.
  "$memlab" demo --bogus >"$work/out" 2>"$work/err"
  [[ $? -eq 2 && $(wc -l <"$work/err") -eq 1 ]] || fail "demo --bogus: not one line and exit 2"
  mkdir -p "$work/busy"
  echo "notes" >"$work/busy/notes.txt"
  "$memlab" demo --model --out "$work/busy" >"$work/out" 2>"$work/err"
  [[ $? -eq 2 && $(wc -l <"$work/err") -eq 1 ]] ||
    fail "demo into a directory of other files: not refused with one line"
  [[ ! -e $work/busy/report.md ]] || fail "demo wrote into a directory of other files"
}

check_plot() {
  [[ -f $out/report.md ]] || { fail "no demo report in $out (the unit_demo test makes it)"; return; }
  # Without gnuplot: one line naming the Debian package, exit status 2.
  MEMLAB_GNUPLOT=/nonexistent/gnuplot "$memlab" plot "$out" >"$work/out" 2>"$work/err"
  [[ $? -eq 2 && $(wc -l <"$work/err") -eq 1 ]] || fail "plot without gnuplot: not one line and exit 2"
  grep -q 'gnuplot-nox' "$work/err" || fail "plot without gnuplot does not name gnuplot-nox"
  if ! command -v gnuplot >/dev/null 2>&1; then
    [[ $failures -eq 0 ]] || exit 1
    echo "SKIP: gnuplot is not installed (Debian package gnuplot-nox)"
    exit 77
  fi

  "$memlab" plot "$out" >"$work/out" 2>"$work/err"
  local status=$?
  [[ $status -eq 0 ]] || { fail "plot exit status $status"; cat "$work/err"; }
  local report=$out/report.md image drawn=0 program
  # Every linked image exists; each PNG is a PNG and each SVG an SVG titled for predictions.
  for image in $(grep -o '(plots/[^)]*\.\(png\|svg\))' "$report" | tr -d '()'); do
    [[ -s $out/$image ]] || { fail "report.md links $image, which is missing"; continue; }
    case $image in
      *.png) [[ $(head -c 8 "$out/$image" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
        fail "$image is not a PNG" ;;
      *.svg)
        grep -q '<svg' "$out/$image" || fail "$image is not an SVG"
        grep -q 'predictions only' "$out/$image" || fail "$image does not say it shows predictions"
        drawn=$((drawn + 1))
        ;;
    esac
  done
  # Some plot of the predictions (efficiency vs stride, conflicts vs stride, ...) for every lab
  # that has plots and predicts a counter its plots show.
  [[ $drawn -gt 0 ]] || fail "no plot drawn from the predictions"
  for program in $(lab_programs); do
    compgen -G "$root/labs/[0-9][0-9]_$program/plots/*.gp" >/dev/null || continue
    grep -q "^<!-- memlab plots $program -->$" "$report" || fail "report.md lost $program's plot markers"
  done
  ! grep -q 'gnuplot failed\|data lines are wrong' "$report" || fail "a plot failed: $(grep 'failed\|wrong' "$report")"
  # Plotting again gives the same report: the plot sections are replaced, not added to.
  cp "$report" "$work/first.md"
  "$memlab" plot "$out" >"$work/out" 2>"$work/err" || fail "second plot failed"
  cmp -s "$report" "$work/first.md" || fail "a second plot changed report.md"
}

case $mode in
  demo) check_demo ;;
  plot) check_plot ;;
  *) echo "usage: test_demo.sh demo|plot DIR" >&2; exit 2 ;;
esac
[[ $failures -eq 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "ok"

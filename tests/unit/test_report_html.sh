#!/usr/bin/env bash
# test_report_html: report.html without a browser (tests/browser/test_report_html.sh loads it in
# one): memlab_report html's bad input, each refused with one line and exit status 2; the
# demo's report.html beside its report.md, a chart for every --model record with a prediction;
# a lab program's --format html, one page for one run.
#   tests/unit/test_report_html.sh MEMLAB_REPORT LAB_PROGRAM DEMO_DIR
# (LAB_PROGRAM: coalescing; DEMO_DIR: the folder the unit_demo test wrote.)
set -uo pipefail
tool=${1:?usage: test_report_html.sh MEMLAB_REPORT LAB_PROGRAM DEMO_DIR}
program=${2:?usage: test_report_html.sh MEMLAB_REPORT LAB_PROGRAM DEMO_DIR}
demo=${3:?usage: test_report_html.sh MEMLAB_REPORT LAB_PROGRAM DEMO_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# refused EXPECTED ARGS...: exit status 2 and one line on stderr that holds EXPECTED.
refused() {
  local expected=$1 status=0
  shift
  "$tool" html "$@" >"$work/out" 2>"$work/err" || status=$?
  [[ $status -eq 2 ]] || fail "html $* exit status $status, not 2"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "html $*: not one line on stderr: $(cat "$work/err")"
  grep -qF -- "$expected" "$work/err" || fail "html $*: '$expected' not in: $(cat "$work/err")"
}
mkdir -p "$work/empty"
refused "html needs a folder of reports"
refused "html needs a folder of reports" --root "$root"
refused "no report in $work/empty" "$work/empty" --root "$root"
refused "unknown option --bogus" "$demo" --bogus x --root "$root"
refused "--out needs a value" "$demo" --out
refused "cannot read the labs' folder $work/nowhere/labs" "$demo" --root "$work/nowhere"
refused "cannot write $work/nowhere/page.html" "$demo" --root "$root" \
  --out "$work/nowhere/page.html"

# charts_of FILE: the charts on a page; records_with_metrics JSON...: the records that have one
# (a metric predicted or measured: a value in one of the CSV's METRIC_predicted or _measured
# columns).
charts_of() { grep -c '^<figure class="chart" id="' "$1"; }
records_with_metrics() {
  local file count=0
  for file in "$@"; do
    count=$((count + $("$tool" csv "$file" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /_(predicted|measured)$/ && $i !~ /^flops_per_gld_byte/) p[i] = 1; next }
      { for (i in p) if ($i != "") { n++; break } } END { print n + 0 }')))
  done
  echo "$count"
}

# The demo's page: beside report.md, a section per lab, a chart per record with a prediction.
page=$demo/report.html
if [[ ! -f $page ]]; then
  fail "no $page (the unit_demo test writes it, with ./memlab demo --model)"
else
  for directory in "$root"/labs/[0-9][0-9]_*/; do
    name=$(basename "$directory")
    [[ -e $directory/${name#[0-9][0-9]_}.cu ]] || continue
    grep -q "^<h2 id=\"${name#[0-9][0-9]_}\">" "$page" || fail "report.html has no section for ${name#[0-9][0-9]_}"
  done
  expected=$(records_with_metrics "$demo"/data/*.json)
  [[ $(charts_of "$page") -eq $expected && $expected -gt 0 ]] ||
    fail "report.html has $(charts_of "$page") charts, the demo's JSON $expected records with predictions"
  grep -q '<b>Predictions only</b>' "$page" || fail "report.html does not say it holds predictions"
  grep -q '<figure class="plot">' "$page" || fail "report.html has no plot"
  ! grep -qi '<script\|https\?://[a-z]' "$page" ||
    [[ $(grep -o 'https\?://[a-z][^"]*' "$page" | sort -u) == "http://www.w3.org/2000/svg" ]] ||
    fail "report.html has a script or a link out: $(grep -o '<script\|https\?://[a-z][^"]*' "$page" | sort -u | head -3)"
fi

# A lab program's --format html: one run's page, a chart per record, and the lab's plots drawn
# from its sweep (the program finds labs/04_coalescing/plots in the tree it was built from).
if "$program" --model --variant strided --sweep stride=1,4 --n 1048576 --format html \
  >"$work/one.html" 2>"$work/err"; then
  head -n 1 "$work/one.html" | grep -qx '<!DOCTYPE html>' || fail "--format html does not write a page"
  [[ $(charts_of "$work/one.html") -eq 2 ]] ||
    fail "--format html of two records drew $(charts_of "$work/one.html") charts"
  grep -q 'data-alias="gld_efficiency" data-kind="predicted">25<' "$work/one.html" ||
    fail "--format html: stride 4's predicted load efficiency, 25, is not on its chart"
  grep -q '<figure class="plot">' "$work/one.html" ||
    fail "--format html of a stride sweep drew no plot of the lab's"
else
  fail "$program --model --format html failed: $(cat "$work/err")"
fi

# A run that failed (runs.tsv: a non-zero exit status): its lab's section names it with the end
# of its log, the top links to it; a demo whose only run failed, with no report, still gets a
# page that says so.
if [[ -s $demo/data/runs.tsv ]]; then
  mkdir -p "$work/failed/data"
  cp "$demo"/data/* "$work/failed/data/"
  IFS=$'\t' read -r program_failed run_failed _ <"$work/failed/data/runs.tsv"
  awk -F'\t' -v OFS='\t' 'NR == 1 { $3 = 4 } { print }' "$demo/data/runs.tsv" >"$work/failed/data/runs.tsv"
  printf 'the first line\nmemlab: an illegal memory access <was> encountered\n' \
    >"$work/failed/data/$program_failed-$run_failed.log"
  if "$tool" html "$work/failed" --root "$root" 2>"$work/err"; then
    grep -q "failed (exit status 4)</h3>" "$work/failed/report.html" ||
      fail "report.html does not say the failed run's exit status"
    grep -qF 'memlab: an illegal memory access &lt;was&gt; encountered' "$work/failed/report.html" ||
      fail "report.html does not show the end of the failed run's log, escaped"
    grep -q '<b>1 run failed:</b> <a href="#failed-0">' "$work/failed/report.html" ||
      fail "report.html's top does not link the failed run"
  else
    fail "html of a demo with a failed run: $(cat "$work/err")"
  fi
  mkdir -p "$work/all-failed/data"
  head -n 1 "$work/failed/data/runs.tsv" >"$work/all-failed/data/runs.tsv"
  cp "$work/failed/data/$program_failed-$run_failed.log" "$work/all-failed/data/"
  if "$tool" html "$work/all-failed" --root "$root" 2>"$work/err"; then
    grep -q '<b>No run wrote a report.</b>' "$work/all-failed/report.html" &&
      grep -q "failed (exit status 4)</h3>" "$work/all-failed/report.html" ||
      fail "the page of a demo whose only run failed does not say so"
  else
    fail "html of a demo whose only run failed: $(cat "$work/err")"
  fi
else
  fail "no $demo/data/runs.tsv: the demo wrote none"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures failures"
  exit 1
fi
echo "PASS"

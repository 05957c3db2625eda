#!/usr/bin/env bash
# test_report_html: report.html in a real browser. memlab_report html draws the page of the
# recorded H100 run in handouts/figures/data; headless Chromium (Debian's package, which
# ./memlab test installs where it may) loads it and
#   - no console message (an error, a warning, a log) and no request: the page is one file;
#   - check_report_dom reads the DOM it built: one chart for every record with counters, every
#     number on every chart equal to the JSON's value as the page prints it, a finite height;
#   - a 1280x720 screenshot of the page is not blank (its PNG is far larger than a blank page's);
#   - a screenshot of one chart, lab 04's strided variant at stride 4: OUT/coalescing-strided-4.png,
#     the instructor guide's figure (handouts/figures/report-chart-strided.png is a copy).
# Exit 77 (skipped) where there is no Chromium.
#   tests/browser/test_report_html.sh MEMLAB_REPORT CHECK_REPORT_DOM OUT
set -uo pipefail
report_tool=${1:?usage: test_report_html.sh MEMLAB_REPORT CHECK_REPORT_DOM OUT}
checker=${2:?usage: test_report_html.sh MEMLAB_REPORT CHECK_REPORT_DOM OUT}
out=${3:?usage: test_report_html.sh MEMLAB_REPORT CHECK_REPORT_DOM OUT}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
data=$root/handouts/figures/data
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "skipped: no Chromium (Debian: apt-get install chromium; ./memlab test installs it as root)"
  exit 77
fi

rm -rf "$out"
mkdir -p "$out"
# At most 2 minutes a load (a browser that hangs fails the test, not CTest's timeout). Root
# needs --no-sandbox, a container's small /dev/shm --disable-dev-shm-usage; a profile of the
# test's own keeps the user's untouched.
chromium() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --hide-scrollbars --no-first-run --user-data-dir="$out/profile" "$@"
}

"$report_tool" html "$data" --root "$root" --out "$out/report.html" ||
  { fail "memlab_report html exit status $?"; exit 1; }

# The page with a script of the test's: its height and every request it made (Resource Timing
# lists failed ones too), written into the DOM that --dump-dom prints after the load event.
cat >"$out/script.html" <<'EOF'
<script>
addEventListener('load', function () {
  var out = document.createElement('pre');
  out.id = 'memlab-test';
  var lines = ['height ' + document.documentElement.scrollHeight];
  performance.getEntriesByType('resource').forEach(function (entry) { lines.push('request ' + entry.name); });
  out.textContent = lines.join('\n');
  document.body.appendChild(out);
});
</script>
EOF
awk -v script="$out/script.html" '
  BEGIN { while ((getline line < script) > 0) text = text line "\n" }
  /<\/body>/ { printf "%s", text }
  { print }' "$out/report.html" >"$out/tested.html"
chromium --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom \
  "file://$out/tested.html" >"$out/dom.html" 2>"$out/chromium.log" ||
  fail "chromium --dump-dom exit status $? (see $out/chromium.log)"
if grep -q ':CONSOLE' "$out/chromium.log"; then
  fail "the page wrote to the console:"
  grep ':CONSOLE' "$out/chromium.log" | head -5
fi
"$checker" "$out/dom.html" "$data"/*.json || fail "the DOM does not match the JSON (above)"

# Screenshots: the page, a blank page for scale, and the one chart.
shot() { # PNG URL
  chromium --window-size=1280,720 --screenshot="$1" "$2" >/dev/null 2>>"$out/chromium.log" &&
    [[ -s $1 ]] || fail "no screenshot $1 (see $out/chromium.log)"
}
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
printf '<!DOCTYPE html><html><body></body></html>\n' >"$out/blank.html"
shot "$out/blank.png" "file://$out/blank.html"
shot "$out/page.png" "file://$out/report.html"
blank=$(size "$out/blank.png")
[[ $(size "$out/page.png") -gt $((4 * blank)) ]] ||
  fail "the page's screenshot ($(size "$out/page.png") bytes) looks blank (a blank page: $blank)"

# Lab 04's strided variant at stride 4 in the headline run: its figure's id, from the caption on
# the line after it; the page shown with everything else hidden.
chart=$(awk '/^<figure class="chart" id="coalescing-/ { id = $3 }
  /^<figcaption>strided .*stride=4 / && id != "" { sub(/^id="/, "", id); sub(/"$/, "", id); print id; exit }
  /^<\/figure>/ { id = "" }' "$out/report.html")
if [[ -z $chart ]]; then
  fail "no chart of coalescing's strided variant at stride 4"
else
  sed "s|</head>|<style>body>*:not(#$chart){display:none}</style></head>|" "$out/report.html" \
    >"$out/chart.html"
  shot "$out/coalescing-strided-4.png" "file://$out/chart.html"
  [[ $(size "$out/coalescing-strided-4.png") -gt $((4 * blank)) ]] ||
    fail "the chart's screenshot looks blank"
  echo "the chart of coalescing strided stride=4 ($chart): $out/coalescing-strided-4.png"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures failures"
  exit 1
fi
echo "PASS"

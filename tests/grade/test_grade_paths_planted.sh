#!/usr/bin/env bash
# test_grade_paths_planted: a lab's planted submissions graded as one class by both paths, on
# the GPU: a submission's cases through one lab process (PROGRAM --cases, the default) and each
# run a process of its own (--isolate-cases). scores.csv must be the same byte for byte, and
# every plant's cases must come out as its plant says (the state-carrying plants among them:
# state kept on the GPU must not live from one case into the next).
#   tests/grade/test_grade_paths_planted.sh PATH/TO/memlab_grade PATH/TO/memlab_skeleton \
#       PATH/TO/PROGRAM labs/NN_PROGRAM/plants
#
# The class is every plant but those that may go either way from one run to the next (a plant
# with "expect either" cases: tests/grade/README.md says why) and the ones whose cases run to
# their time limits for minutes (an endless loop, a printf flood); hang_one_case is in it (a
# hang in the batch: that case and the ones after it run alone). Exits 77 without a CUDA device.
set -uo pipefail
usage="usage: test_grade_paths_planted.sh MEMLAB_GRADE MEMLAB_SKELETON PROGRAM PLANTS_DIR"
grade=${1:?$usage}
skeleton=${2:?$usage}
program=${3:?$usage}
plants=${4:?$usage}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lab=$(basename "$(dirname "$plants")") # labs/NN_PROGRAM/plants
lab=${lab#[0-9][0-9]_}

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no CUDA device: test skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mkdir "$work/class"
for plant in "$plants"/*.plant; do
  name=$(basename "$plant" .plant)
  [[ $name == infinite_loop || $name == tamper_printf_flood ]] && continue
  awk '/^file[ \t\r]*$/ { exit } $1 == "expect" && $2 == "either" { found = 1 } END { exit !found }' \
    "$plant" && continue
  "$root/tests/grade/plant.sh" "$plant" "$skeleton" >"$work/class/$name.cu" || exit 1
done

for path in together isolated; do
  options=()
  [[ $path == together ]] || options=(--isolate-cases)
  start=$SECONDS
  "$grade" --root "$root" "$lab" "$work/class" --program "$program" --out "$work/$path" \
    "${options[@]}" >"$work/$path.stdout" 2>"$work/$path.stderr"
  status=$?
  echo "$lab, $path: $((SECONDS - start)) s, exit $status"
  [[ $status -eq 0 || $status -eq 1 ]] ||
    fail "$path: exit $status: $(tail -n 3 "$work/$path.stderr")"
  if grep -l '^case [^:]*: NOT GRADED' "$work/$path"/results/*.txt >/dev/null 2>&1; then
    fail "$path: a case was not graded on this host: $(grep -h -m 1 '^NOT GRADED\|: NOT GRADED' "$work/$path"/results/*.txt | head -n 1)"
  fi
done
cmp -s "$work/together/scores.csv" "$work/isolated/scores.csv" ||
  fail "scores.csv differs between the paths: $(diff "$work/isolated/scores.csv" "$work/together/scores.csv")"

# Every plant's cases as the plant expects: failing exactly its "expect fail" cases.
for cu in "$work/class"/*.cu; do
  name=$(basename "$cu" .cu)
  plant=$plants/$name.plant
  key=$(printf '%s' "$name.cu" | sha256sum | cut -c1-64)
  report=$work/together/results/$key.txt
  expected=$(awk '/^file[ \t\r]*$/ { exit } $1 == "expect" && $2 == "fail" { for (i = 3; i <= NF; i++) print $i }' "$plant" | sort)
  failed=$(sed -n 's/^case \([^:]*\): FAIL,.*/\1/p' "$report" | sort)
  if grep -q '^expect refused' "$plant" || [[ $expected == all ]]; then
    grep -q '^case [^:]*: PASS' "$report" && fail "$name: a case passed: $(grep '^case [^:]*: PASS' "$report")"
    continue
  fi
  [[ $failed == "$expected" ]] ||
    fail "$name: failed [$(echo $failed)], its plant expects [$(echo $expected)]"
done
echo "scores (both paths):"
cut -d, -f4-6 "$work/together/scores.csv" | tail -n +2 | sort

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "test_grade_paths_planted $lab: scores.csv the same both ways, every plant as expected"

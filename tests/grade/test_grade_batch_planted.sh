#!/usr/bin/env bash
# test_grade_batch_planted: a class of planted submissions graded at once, on the GPU.
#   tests/grade/test_grade_batch_planted.sh alone|together PATH/TO/memlab_grade \
#       PATH/TO/memlab_skeleton PATH/TO/PROGRAM labs/NN_PROGRAM/plants
#
# alone:    every plant of the lab (plant.sh writes each as NAME.cu) is graded alone, then all of
#           them as one batch: each case of each plant must come out as it did alone (PASS or
#           FAIL), and so must the score, but for the cases a plant marks "expect either" (they
#           may go both ways from one run to the next: tests/grade/README.md says why).
#           hang_one_case is in the class: a kernel that never ends, stopped at its case's time
#           limit, must stop neither the batch nor the next submission's grading.
# together: four plants (solution, wrong_way, missing_bounds_check, tamper_works_once) are graded
#           as one batch, then by two batch graders started together on the same GPU (--jobs 2
#           and --jobs 1): both finish, and each gives every plant the outcomes the one batch
#           gave (the "either" cases aside).
# A case not graded (no counters, no compute-sanitizer) fails the test with the grader's
# reason. Exits 77 (skipped) without a CUDA device.
set -uo pipefail
usage="usage: test_grade_batch_planted.sh alone|together MEMLAB_GRADE MEMLAB_SKELETON PROGRAM PLANTS_DIR"
mode=${1:?$usage}
grade=${2:?$usage}
skeleton=${3:?$usage}
program=${4:?$usage}
plants=${5:?$usage}
[[ $mode == alone || $mode == together ]] || { echo "$usage" >&2; exit 2; }
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

# The plants of this mode, written as NAME.cu into one class folder. The plants whose cases run
# to their time limits (an endless loop, a printf flood: minutes each) have their own tests.
mkdir -p "$work/class"
for plant in "$plants"/*.plant; do
  name=$(basename "$plant" .plant)
  [[ $name == infinite_loop || $name == tamper_printf_flood ]] && continue
  if [[ $mode == together ]]; then
    [[ $name == solution || $name == wrong_way || $name == missing_bounds_check ||
       $name == tamper_works_once ]] || continue
  fi
  "$root/tests/grade/plant.sh" "$plant" "$skeleton" >"$work/class/$name.cu" || exit 1
done
names=$(cd "$work/class" && ls -- *.cu | sed 's/\.cu$//')

# "case NAME: PASS|FAIL" lines of a text report, the plant's "either" cases left out, then its
# score line unless it has "either" cases.
outcomes() { # REPORT, PLANT_NAME
  local either
  either=$(awk '/^file[ \t\r]*$/ { exit } $1 == "expect" && $2 == "either" { for (i = 3; i <= NF; i++) print $i }' \
    "$plants/$2.plant")
  sed -n 's/^case \([^:]*\): \(PASS\|FAIL\|NOT GRADED\),.*/\1 \2/p' "$1" | while read -r case outcome; do
    grep -qx -- "$case" <<<"$either" || echo "$case $outcome"
  done
  [[ -n $either ]] || grep '^score: ' "$1"
}

# The text report a batch in OUT wrote for the plant NAME: named by the hash of its file's name.
report() { # OUT, NAME
  echo "$1/results/$(printf '%s' "$2.cu" | sha256sum | cut -c1-64).txt"
}

check_graded() { # REPORT, what it is
  if grep -q 'no usable CUDA device' "$1"; then
    echo "no usable CUDA device: test skipped"
    exit 77
  fi
  if grep -q '^case [^:]*: NOT GRADED' "$1"; then
    fail "$2: not graded on this host: $(grep -m 1 '^NOT GRADED' "$1")"
  fi
}

batch() { # OUT, options...: grades the class into OUT; its exit status in OUT.status
  local out=$1
  shift
  "$grade" --root "$root" "$lab" "$work/class" --program "$program" --out "$out" "$@" \
    >"$out.stdout" 2>"$out.stderr"
  echo $? >"$out.status"
}
finished() { # OUT: the batch ended with its scores (0 or 1; 3 is checked case by case)
  local status
  status=$(cat "$1.status")
  [[ $status -ne 2 ]] || fail "the batch into $(basename "$1") exited 2: $(tail -n 3 "$1.stderr")"
}

started=$SECONDS
if [[ $mode == alone ]]; then
  for name in $names; do
    "$grade" --root "$root" "$lab" "$work/class/$name.cu" --program "$program" --format text \
      --out "$work/$name.alone" >/dev/null 2>"$work/$name.alone.err"
    check_graded "$work/$name.alone" "$name alone"
  done
  batch "$work/batch" --jobs 2
  finished "$work/batch"
  for name in $names; do
    check_graded "$(report "$work/batch" "$name")" "$name in the batch"
    diff <(outcomes "$work/$name.alone" "$name") <(outcomes "$(report "$work/batch" "$name")" "$name") \
      >"$work/$name.diff" || fail "$name: the batch graded it otherwise than alone: $(cat "$work/$name.diff")"
    alone=$(sed -n 's/^score: \([^ ]*\) \/.*/\1/p' "$work/$name.alone")
    echo "$lab $name: $alone alone, $(grep -m 1 "^,,,$name," "$work/batch/scores.csv" | cut -d, -f5) in the batch"
  done
else
  batch "$work/one"
  finished "$work/one"
  for name in $names; do check_graded "$(report "$work/one" "$name")" "$name"; done
  batch "$work/first" --jobs 2 &
  first=$!
  batch "$work/second" &
  second=$!
  wait "$first" "$second"
  for out in first second; do
    finished "$work/$out"
    for name in $names; do
      check_graded "$(report "$work/$out" "$name")" "$name ($out grader)"
      diff <(outcomes "$(report "$work/one" "$name")" "$name") <(outcomes "$(report "$work/$out" "$name")" "$name") \
        >"$work/$name.diff" || fail "$name: the $out of two graders graded it otherwise than one: $(cat "$work/$name.diff")"
    done
  done
  grep -h 'waiting for GPU' "$work/first.stderr" "$work/second.stderr" | head -n 2
fi
echo "$lab ($mode): $(wc -w <<<"$names") plants graded in $((SECONDS - started)) s"
if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi

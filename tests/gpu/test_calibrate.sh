#!/usr/bin/env bash
# test_calibrate: ./memlab calibrate teaches the model a GPU it does not know. With memlab's table
# turned off (MEMLAB_GPU_TABLE=off), ./memlab demo's census (how many predictions the counters
# met) is taken with the defaults, then with the profile that calibrate writes; and, for
# comparison, with the table. With the profile it must be at least as good as with the table.
# Where the table knows the GPU (an H100, an H200), the profile's DRAM fill, L1 and L2 must equal
# the table's within 10%, and on an H200 calibrate must take 60 s or less. Prints the census of
# each, the profile, and the times. Takes several minutes (three demos); --quick runs the
# demo's smaller runs (./memlab demo --quick) instead, for a machine lent by the quarter hour.
# No GPU: exit 77.
#   tests/gpu/test_calibrate.sh [--quick] BUILD [DEVICE]
# Nothing is written outside a scratch folder, but BUILD/profiles/ must hold no profile of the
# GPU (the lab programs would read it before the test's): the test says so and stops if it does.
set -uo pipefail
demo_options=()
if [[ ${1:-} == --quick ]]; then
  demo_options=(--quick)
  shift
fi
build=$(cd "${1:?usage: test_calibrate.sh [--quick] BUILD [DEVICE]}" && pwd)
# DEVICE (an nvidia-smi index) when given; else the first GPU the caller's CUDA_VISIBLE_DEVICES
# shows, or GPU 0: never another GPU than the caller chose (on a shared host a second run on a
# busy GPU disturbs both: the chases' latencies, and CUPTI's counters are then "hardware busy").
visible=${CUDA_VISIBLE_DEVICES:-0}
device=${2:-${visible%%,*}}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$device" | head -1)
# The profile's file name, as ml_gpu_profile_file_name makes it ("NVIDIA H200" -> nvidia-h200.json).
file=$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//').json
if [[ -e $build/profiles/$file ]]; then
  echo "test_calibrate: $build/profiles/$file exists and would be read before the test's profile: move it away first" >&2
  exit 1
fi
export MEMLAB_BUILD=$build MEMLAB_NO_BUILD=1 CUDA_VISIBLE_DEVICES=$device

# ./memlab demo into DIR, then the census of its reports ("N pairs ... X% met"): X in met.
census() { # DIR, environment assignments...
  local dir=$1
  shift
  local started=$SECONDS line
  env "$@" "$root/memlab" demo "${demo_options[@]}" --out "$dir" >"$dir.log" 2>&1 || fail "./memlab demo ($*) failed: $(tail -1 "$dir.log")"
  line=$("$build/tools/memlab_report" census "$dir"/data/*.json)
  echo "  $*: $line ($((SECONDS - started)) s)"
  met=$(sed -n 's/.* \([0-9.]*\)% met.*/\1/p' <<<"$line")
}

echo "test_calibrate: $name (device $device)"
census "$work/table" MEMLAB_GPU_PROFILES=off
table=$met
census "$work/defaults" MEMLAB_GPU_PROFILES=off MEMLAB_GPU_TABLE=off
defaults=$met

mkdir -p "$work/config/memlab"
profile=$work/config/memlab/$file
started=$(date +%s.%N)
"$root/memlab" calibrate --out "$profile" || fail "./memlab calibrate failed"
seconds=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
[[ -f $profile ]] || { fail "no profile written"; exit 1; }
echo "calibrate: $seconds s; the profile:"
cat "$profile"
census "$work/calibrated" MEMLAB_GPU_TABLE=off XDG_CONFIG_HOME="$work/config"
calibrated=$met
grep -q "\"source\":	\"profile $profile" "$work/calibrated/data/"*.json ||
  fail "the calibrated demo's reports do not name the profile as their source"

echo
echo "| facts | census (% of pairs met) |"
echo "| --- | --- |"
echo "| memlab's table | ${table:-?} |"
echo "| defaults (MEMLAB_GPU_TABLE=off) | ${defaults:-?} |"
echo "| calibrated profile (MEMLAB_GPU_TABLE=off) | ${calibrated:-?} |"
echo "calibrate took $seconds s"
awk -v c="${calibrated:-0}" -v t="${table:-101}" 'BEGIN { exit !(c >= t) }' ||
  fail "the census with the profile (${calibrated:-?}%) is below the table's (${table:-?}%)"

# The profile beside the table's entry, where the table knows this GPU.
value() { # KEY: the profile's figure
  awk -v key="\"$1\":" '$1 == key { getline; gsub(/[",]/, "", $2); print $2; exit }' "$profile"
}
# The table entry's figure KEY, times SCALE, from the model_gpu object of a --model report.
entry_figure() { # KEY, SCALE
  awk -F'\t' -v key="\"$1\":" -v scale="$2" '/"model_gpu":/ { in_gpu = 1 }
    in_gpu && $(NF - 1) ~ key { gsub(/,/, "", $NF); print $NF * scale; exit }' "$work/entry.json"
}
case $name in
  *H200*) entry=h200 ;;
  *H100*) entry=h100 ;;
  *) entry= ;;
esac
if [[ -n $entry ]]; then
  "$build/labs/coalescing" --model --gpu "$entry" --format json --variant coalesced --n 1024 --seed 1 >"$work/entry.json"
  table_l1=$(entry_figure l1_kib 1024)
  table_l2=$(entry_figure l2_mib 1048576)
  table_fill=$(entry_figure dram_fill_bytes 1)
  for pair in "dram_fill_bytes $table_fill" "l1_bytes $table_l1" "l2_bytes $table_l2"; do
    read -r key expected <<<"$pair"
    measured=$(value "$key")
    echo "$key: profile $measured, table $expected"
    awk -v m="${measured:-0}" -v e="$expected" 'BEGIN { exit !(m >= 0.9 * e && m <= 1.1 * e) }' ||
      fail "$key: the profile's $measured is not within 10% of the table's $expected"
  done
  if [[ $entry == h200 ]]; then
    awk -v s="$seconds" 'BEGIN { exit !(s <= 60) }' || fail "calibrate took $seconds s on an H200, more than 60"
  fi
fi

if ((failures > 0)); then
  echo "test_calibrate: $failures failure(s)"
  exit 1
fi
echo "test_calibrate: the calibrated profile's census is at least the table's"

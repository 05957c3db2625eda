#!/usr/bin/env bash
# test_gpu_profile_cli: --model --gpu-profile FILE and ./memlab calibrate as a user meets them, no
# GPU needed. Every lab predicts with the H100's and H200's profiles (tools/calibrate/profiles/)
# exactly what it predicts with --gpu h100 and --gpu h200, and its report names the profile as the
# source of its facts; a missing or broken profile, --gpu-profile without --model, or with --gpu
# too, gets one line on stderr, nothing on stdout and exit status 2; so does each bad option of
# ./memlab calibrate, before anything is built or measured; without a GPU calibrate exits 3.
#   tests/unit/test_gpu_profile_cli.sh BUILD
set -uo pipefail
build=${1:?usage: test_gpu_profile_cli.sh BUILD}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
profiles=$root/tools/calibrate/profiles
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Exit status 2, one line on stderr that holds SAYS, nothing on stdout.
expect_refused() { # SAYS, command...
  local says=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  local status=$?
  [[ $status -eq 2 ]] || fail "$* -> exit $status, expected 2"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "$* -> stderr has $(wc -l <"$work/err") lines, expected 1"
  grep -qF -- "$says" "$work/err" || fail "$* -> '$(cat "$work/err")' does not say '$says'"
  [[ ! -s $work/out ]] || fail "$* -> wrote to stdout"
}

# A report without its model_gpu object (the GPU's name and the source of its facts).
predictions() { sed '/^\t"model_gpu":/,/^\t}/d' "$1"; }

labs=("$build"/labs/*)
[[ -x ${labs[0]} ]] || { echo "test_gpu_profile_cli: no lab programs in $build/labs: build first" >&2; exit 2; }
for lab in "${labs[@]}"; do
  program=$(basename "$lab")
  for gpu in h100 h200; do
    "$lab" --model --seed 1 --gpu "$gpu" --format json >"$work/table.json" 2>"$work/table.err" ||
      fail "$program --model --gpu $gpu failed: $(head -1 "$work/table.err")"
    "$lab" --model --seed 1 --gpu-profile "$profiles/$gpu.json" --format json \
      >"$work/profile.json" 2>"$work/profile.err" ||
      fail "$program --model --gpu-profile $gpu.json failed: $(head -1 "$work/profile.err")"
    cmp -s <(predictions "$work/table.json") <(predictions "$work/profile.json") ||
      fail "$program: the $gpu profile's predictions differ from --gpu $gpu's"
    grep -qF "\"source\":	\"profile $profiles/$gpu.json (" "$work/profile.json" ||
      fail "$program: the report with --gpu-profile does not name the profile as its source"
    [[ -s $work/table.json && ! -s $work/profile.err ]] ||
      fail "$program --gpu-profile $gpu.json wrote to stderr: $(head -1 "$work/profile.err")"
  done
done

lab=${labs[0]}
# The text report names the source of its facts: the table's entry, or the profile's file.
text=$("$lab" --model --seed 1 --gpu h200 2>&1)
grep -qxF "facts:    memlab's table (h200)" <<<"$text" ||
  fail "the text report of --gpu h200 does not name memlab's table as its facts' source"
text=$("$lab" --model --seed 1 --gpu-profile "$profiles/h200.json" 2>&1)
grep -qF "facts:    profile $profiles/h200.json (" <<<"$text" ||
  fail "the text report of --gpu-profile does not name the profile as its facts' source"
printf '{"memlab_gpu_profile": 1,' >"$work/broken.json"
sed 's/"value":	262144/"value":	-262144/' "$profiles/h200.json" >"$work/negative.json"
expect_refused "cannot read $work/none.json" "$lab" --model --gpu-profile "$work/none.json"
expect_refused "$work/broken.json is not a memlab GPU profile" "$lab" --model --gpu-profile "$work/broken.json"
expect_refused '"l1_bytes" is -262144' "$lab" --model --gpu-profile "$work/negative.json"
expect_refused "use it with --model" "$lab" --gpu-profile "$profiles/h200.json"
expect_refused "give one" "$lab" --model --gpu h200 --gpu-profile "$profiles/h200.json"
expect_refused "give one" "$lab" --model --gpu-profile "$profiles/h200.json" --gpu h100
"$lab" --help | grep -q -- "--gpu-profile FILE" || fail "$(basename "$lab") --help does not list --gpu-profile"

# ./memlab calibrate: refused before anything is built or measured.
memlab() { MEMLAB_BUILD=$build MEMLAB_NO_BUILD=1 "$root/memlab" "$@"; }
expect_refused "unknown option '--bogus'" memlab calibrate --bogus
expect_refused "--out writes a .json file" memlab calibrate --out "$work/profile.txt"
expect_refused "--out writes a .json file" memlab calibrate --out
expect_refused "cannot write '$work/no/profile.json'" memlab calibrate --out "$work/no/profile.json"
expect_refused "--device takes a device index" memlab calibrate --device one
expect_refused "--build DIR is needed" "$build/tools/memlab_calibrate"
expect_refused "holds no labs/hierarchy_map" "$build/tools/memlab_calibrate" --build "$work"
expect_refused "give --out or --status, not both" memlab calibrate --status --out "$work/calibrated.json"
memlab calibrate --help >"$work/help" || fail "./memlab calibrate --help failed"
grep -q "BUILD/profiles/DEVICE.json" "$work/help" || fail "./memlab calibrate --help does not say where the profile goes"
if ! nvidia-smi -L >/dev/null 2>&1; then
  memlab calibrate --out "$work/calibrated.json" >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 3 ]] || fail "calibrate without a GPU -> exit $status, expected 3"
  [[ $(wc -l <"$work/err") -eq 1 ]] && grep -q "no usable CUDA device" "$work/err" ||
    fail "calibrate without a GPU -> '$(cat "$work/err")'"
  [[ ! -e $work/calibrated.json ]] || fail "calibrate without a GPU wrote a profile"
  memlab calibrate --status >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 3 && $(wc -l <"$work/err") -eq 1 ]] ||
    fail "calibrate --status without a GPU -> exit $status, '$(cat "$work/err")'"
fi

if ((failures > 0)); then
  echo "test_gpu_profile_cli: $failures failure(s)"
  exit 1
fi
echo "test_gpu_profile_cli: every lab predicts with the H100 and H200 profiles as with the table; every refusal one line"

#!/usr/bin/env bash
# test_kernels_judge: the compiler is the judge of what a kernels file includes, no GPU needed.
#   tests/unit/test_kernels_judge.sh LABS_BUILD_DIRECTORY MEMLAB_SKELETON
#
# Runs the real nvcc through the lab programs' own compile (PROGRAM --kernels FILE.cu
# --save-kernels FILE.fatbin, as the grader does; compiling needs no GPU):
#   - the four disguises that fooled the old include scan (a lone CR, a splice with a space, a
#     digit separator, a byte-order mark), each before #include "rubric" (the lab folder, where
#     the old -I found it, holds one), an absolute path to it, "../rubric" and "../../rubric"
#     (a copy lies where that leads from the compile's copy): each refused with one line that
#     names what the lab allows (its header, shared_tiling.h, or none: coalescing has none),
#     FATBIN.refused written, and no line of the rubric in stdout or stderr;
#   - #line and a GNU line marker, plain (the first filter: exit 2) and behind a CR (the judge),
#     and a marker a macro writes: refused with one line;
#   - every lab's kernels.cu still compiles, with its header;
#   - the new plants (labs/NN_PROGRAM/plants/; tests/grade/plant.sh writes CR and BOM bytes as
#     they must be) are refused the same way (in the instructor's tree: a student pack holds no
#     plants);
#   - a preprocessor bomb and a template bomb fail within the compile's limits and leave
#     nothing in TMPDIR (an empty folder of the test's).
set -uo pipefail
labs=${1:?usage: test_kernels_judge.sh LABS_BUILD_DIRECTORY MEMLAB_SKELETON}
skeleton=${2:?usage: test_kernels_judge.sh LABS_BUILD_DIRECTORY MEMLAB_SKELETON}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export MEMLAB_CUDA_ARCH=${MEMLAB_CUDA_ARCH:-75}
export CUDA_VISIBLE_DEVICES= # compiling needs no GPU; nothing here may run one
mkdir "$work/tmp"
export TMPDIR=$work/tmp

# What would show if the compiler ever read a rubric: its comments, case and check lines.
rubric_text() {
  awk '/^#/ && NF > 4 { sub(/^#[ \t]*/, ""); print; next } $1 == "case" || $1 == "check" { print }' "$1"
}

# compile PROGRAM FILE: the lab program's compile of FILE into FILE.fatbin; its output in
# $work/out, its exit status in $status.
compile() {
  rm -f "$2.fatbin" "$2.fatbin.refused"
  "$labs/$1" --kernels "$2" --save-kernels "$2.fatbin" >"$work/out" 2>&1
  status=$?
}

# expect_refused PROGRAM FILE WHAT MESSAGE: refused by the judge (exit 1, FATBIN.refused) or by
# the first filter (exit 2), one line that says MESSAGE, no rubric text, TMPDIR left empty.
expect_refused() {
  local program=$1 file=$2 what=$3 says=$4
  compile "$program" "$file"
  if [[ $status -eq 1 ]]; then
    [[ -s $file.fatbin.refused ]] || fail "$what: exit 1 but no $(basename "$file").fatbin.refused: $(cat "$work/out")"
  elif [[ $status -ne 2 ]]; then
    fail "$what: exit $status, expected a refusal (1 with .refused, or 2): $(head -c 400 "$work/out")"
  fi
  [[ $(wc -l <"$work/out") -eq 1 ]] || fail "$what: $(wc -l <"$work/out") lines of output, expected 1: $(head -c 600 "$work/out")"
  grep -qF -- "$says" "$work/out" || fail "$what: the line does not say '$says': $(cat "$work/out")"
  if grep -qF -f "$work/rubric_text" "$work/out"; then
    fail "$what: rubric text in the output: $(grep -F -f "$work/rubric_text" "$work/out" | head -n 2)"
  fi
  [[ -z $(ls -A "$TMPDIR" | grep -vx rubric) ]] || fail "$what: left $(ls -A "$TMPDIR") in TMPDIR"
}

for lab in coalescing shared_tiling; do
  directory=$(echo "$root"/labs/[0-9][0-9]_"$lab")
  rubric_text "$directory/rubric" >"$work/rubric_text"
  [[ $(wc -l <"$work/rubric_text") -ge 5 ]] || fail "$lab: the rubric gave too few lines to look for"
  kernels=$directory/kernels.cu
  with() { { printf "$@"; cat "$kernels"; } >"$work/$lab.cu"; }
  # What the refusal says the lab allows: its real header, where it has one.
  allowed="a kernels file includes only CUDA headers; this lab has no header"
  [[ -f $directory/$lab.h ]] && allowed="a kernels file includes only CUDA headers and \"$lab.h\""
  # A copy of the rubric where "../../rubric" leads from the compile's copy
  # ($TMPDIR/memlab-kernels-XXXXXX/source/kernels.cu).
  cp "$directory/rubric" "$TMPDIR/rubric"
  for target in rubric "$directory/rubric" ../rubric ../../rubric; do
    for disguise in cr splice digit_separator bom; do
      case $disguise in
        cr) with '// a comment\r#include "%s"\n' "$target" ;;
        splice) with '/* a comment *\\ \n/ #include "%s"\n// */\n' "$target" ;;
        digit_separator) with "static const int separated = 1'0 + '/*';\n#include \"%s\"\n// */\n" "$target" ;;
        bom) with '\xef\xbb\xbf#include "%s"\n' "$target" ;;
      esac
      expect_refused "$lab" "$work/$lab.cu" "$lab: $disguise before #include \"$target\"" \
        "$allowed"
      [[ -f $directory/$lab.h ]] || ! grep -q '\.h"' "$work/out" ||
        fail "$lab has no header, but the refusal names one: $(cat "$work/out")"
    done
  done
  rm "$TMPDIR/rubric"

  # #line and line markers: a scan's first filter sees the plain ones; the preprocessor's own
  # markers show the disguised ones and one a macro writes.
  with '#line 1 "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"\n'
  expect_refused "$lab" "$work/$lab.cu" "$lab: #line" "#line is not allowed"
  with '# 1 "x"\n'
  expect_refused "$lab" "$work/$lab.cu" "$lab: a line marker" "line markers"
  with '// a comment\r#line 1 "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"\n'
  expect_refused "$lab" "$work/$lab.cu" "$lab: #line behind a CR" "#line and line markers"
  with '\xef\xbb\xbf# 1 "not supported"\n'
  expect_refused "$lab" "$work/$lab.cu" "$lab: a marker behind a BOM" "#line and line markers"
  with '#define HASH #\n// a comment\rHASH 1 "forged"\n'
  expect_refused "$lab" "$work/$lab.cu" "$lab: a marker a macro writes" "#line and line markers"
done

# Every lab's own kernels.cu compiles (its header found beside the copy), for two architectures.
for directory in "$root"/labs/[0-9][0-9]_*/; do
  lab=$(basename "$directory" | sed 's/^[0-9][0-9]_//')
  cp "$directory/kernels.cu" "$work/$lab.cu"
  MEMLAB_CUDA_ARCH="75;90" compile "$lab" "$work/$lab.cu"
  [[ $status -eq 0 && -s $work/$lab.cu.fatbin ]] || fail "$lab: its kernels.cu does not compile: $(tail -n 5 "$work/out")"
  [[ -z $(ls -A "$TMPDIR") ]] || fail "$lab: the compile left $(ls -A "$TMPDIR") in TMPDIR"
done

# The plants that cheat the include rule or forge a tool's words: written by plant.sh byte for
# byte, refused with one line. A student pack holds no plants (they hold solution code).
if [[ -x $root/tests/grade/plant.sh ]]; then
  for plant in "$root"/labs/04_coalescing/plants/tamper_include_*.plant "$root"/labs/02_shared_tiling/plants/line_*.plant; do
    lab_folder=$(dirname "$(dirname "$plant")") # labs/NN_PROGRAM/plants/NAME.plant
    lab=$(basename "$lab_folder")
    lab=${lab#[0-9][0-9]_}
    rubric_text "$lab_folder/rubric" >"$work/rubric_text"
    "$root/tests/grade/plant.sh" "$plant" "$skeleton" >"$work/kernels.cu" || { fail "plant.sh $plant"; continue; }
    expect_refused "$lab" "$work/kernels.cu" "$(basename "$plant")" "kernels file"
  done
  grep -q $'\r#include "rubric"' <("$root/tests/grade/plant.sh" "$root/labs/04_coalescing/plants/tamper_include_cr.plant" "$skeleton") ||
    fail "plant.sh did not write the CR of tamper_include_cr"
  [[ $("$root/tests/grade/plant.sh" "$root/labs/04_coalescing/plants/tamper_include_bom.plant" "$skeleton" | head -c 3 | od -An -tx1 | tr -d ' ') == efbbbf ]] ||
    fail "plant.sh did not write the byte-order mark of tamper_include_bom"
else
  echo "no tests/grade here (a student pack): the plants are not checked"
fi

# Bombs: each fails within the compile's limits (time, address space, file size) and leaves
# nothing in TMPDIR.
{
  printf '#define A0 x x x x x x x x\n'
  for i in 1 2 3 4 5 6 7 8 9; do printf '#define A%d' "$i"; for _ in 1 2 3 4 5 6 7 8; do printf ' A%d' $((i - 1)); done; printf '\n'; done
  printf 'A9\n'
} >"$work/preprocessor_bomb.cu"
cat >"$work/template_bomb.cu" <<'BOMB'
/* 2^40 distinct instantiations, none shared. */
template <int N, long M> struct Bomb { static constexpr long value = Bomb<N - 1, 2 * M>::value + Bomb<N - 1, 2 * M + 1>::value; };
template <long M> struct Bomb<0, M> { static constexpr long value = M; };
extern "C" __global__ void copy_coalesced(const float *in, float *out, size_t n) { out[0] = (float)Bomb<40, 1>::value; }
BOMB
for bomb in preprocessor_bomb template_bomb; do
  started=$SECONDS
  compile coalescing "$work/$bomb.cu"
  seconds=$((SECONDS - started))
  [[ $status -eq 1 ]] || fail "$bomb: exit $status, expected 1 (does not compile)"
  grep -q "does not compile\|took more than" "$work/out" || fail "$bomb: $(tail -n 1 "$work/out")"
  [[ ! -e $work/$bomb.cu.fatbin.refused ]] || fail "$bomb: refused, expected a compile failure"
  ((seconds <= 75)) || fail "$bomb: took $seconds s, past the 60 s limit"
  [[ -z $(ls -A "$TMPDIR") ]] || fail "$bomb: left $(du -sh "$TMPDIR" | cut -f1) in TMPDIR: $(ls -A "$TMPDIR")"
  echo "$bomb: stopped in $seconds s: $(tail -n 1 "$work/out")"
done

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "kernels judge: all checks passed"

#!/usr/bin/env bash
# test_pack_coarsened: the student pack's one option, MEMLAB_PACK_KEEP (issue 48).
#   tests/unit/test_pack_coarsened.sh PATH/TO/memlab_skeleton PATH/TO/memlab_grade
# Lab 02's register-tiled kernel (matmul_coarsened) is an optional solution region
# ("// OPTIONAL: coarsened"). Builds the pack twice and checks:
#   1. by default the pack leaves it to write: its TODO, none of its code;
#   2. made with MEMLAB_PACK_KEEP=coarsened, the pack gives it whole, every line of it at the
#      line it has in the instructor's file, and nothing else changes: every other kernels.cu
#      and every other file of the pack is the default pack's, lab 02's other regions are
#      stripped, and no solution line of any other region is anywhere in the pack;
#   3. the kept version compiles (where nvcc is found), so a course can hand it out as it is.
set -uo pipefail
skeleton=${1:?usage: test_pack_coarsened.sh MEMLAB_SKELETON MEMLAB_GRADE}
grade=${2:?usage: test_pack_coarsened.sh MEMLAB_SKELETON MEMLAB_GRADE}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if [[ -e $root/STUDENT.md ]]; then
  echo "a student pack holds no solution region to keep: test skipped"
  exit 77
fi
source=$root/labs/02_shared_tiling/kernels.cu
relative=labs/02_shared_tiling/kernels.cu

# The optional region: lines BEGIN+1 .. END-1 of the one region whose first line names it.
read -r first last < <(awk '
  /^[ \t]*\/\/ BEGIN SOLUTION[ \t\r]*$/ { begin = FNR; next }
  begin && FNR == begin + 1 && /^[ \t]*\/\/ OPTIONAL: coarsened[ \t\r]*$/ { named = begin; next }
  /^[ \t]*\/\/ END SOLUTION[ \t\r]*$/ { if (named == begin && begin) { print begin, FNR; exit } begin = 0 }
' "$source")
[[ -n ${first:-} && -n ${last:-} ]] || { echo "FAIL: $relative has no region named // OPTIONAL: coarsened"; exit 1; }
# Its code lines (not the name, the hint, a stub or a blank line).
sed -n "$((first + 1)),$((last - 1))p" "$source" | grep -v -e '^[ \t]*// \(OPTIONAL\|TODO\|STUB\):' \
  -e '^[ \t]*//  ' -e '^[ \t]*$' >"$work/optional_code"
[[ $(wc -l <"$work/optional_code") -ge 20 ]] || fail "the coarsened region holds only $(wc -l <"$work/optional_code") code lines"
grep -q 'sum\[r\]\[c\] += a\[r\] \* b\[c\];' "$work/optional_code" ||
  fail "the coarsened region does not hold the register tile's multiply-add"

pack() { # OUT.tar.gz [KEEP]: the pack, unpacked into OUT.d
  MEMLAB_PACK_KEEP=${2:-} MEMLAB_SKELETON=$skeleton MEMLAB_GRADE=$grade "$root/memlab" student-pack "$1" >/dev/null ||
    { echo "FAIL: ./memlab student-pack failed (MEMLAB_PACK_KEEP='${2:-}')"; exit 1; }
  mkdir "$1.d" && tar -xzf "$1" -C "$1.d" || { echo "FAIL: the pack does not unpack"; exit 1; }
}
pack "$work/default.tar.gz"
pack "$work/kept.tar.gz" coarsened
default=$work/default.tar.gz.d/memlab
kept=$work/kept.tar.gz.d/memlab

# ---- 1. the default pack leaves it to write ---------------------------------------------------
grep -q 'TODO: (instructor extension) the register-tiled kernel' "$default/$relative" ||
  fail "the default pack's $relative lacks the coarsened kernel's TODO"
while IFS= read -r line; do
  grep -qxF -- "$line" "$default/$relative" && fail "the default pack's $relative holds the coarsened line: $line"
done < <(grep -e '=' -e '\[' "$work/optional_code" | grep -v -e '^[ \t]*}' | sort -u)
grep -q "was kept" "$default/$relative" && fail "the default pack's $relative says a region was kept"

# ---- 2. the kept pack gives it whole, and nothing else -----------------------------------------
[[ $(wc -l <"$kept/$relative") -eq $(wc -l <"$source") ]] ||
  fail "the kept $relative has $(wc -l <"$kept/$relative") lines, the source $(wc -l <"$source")"
for ((number = first + 1; number < last; number++)); do
  line=$(sed -n "${number}p" "$source")
  [[ $line =~ ^[[:space:]]*//\ (OPTIONAL|TODO|STUB): || $line =~ ^[[:space:]]*//\ \  ]] && continue
  [[ $(sed -n "${number}p" "$kept/$relative") == "$line" ]] ||
    fail "the kept $relative:$number is not the source's line: $line"
done
grep -q "optional region 'coarsened' was kept" "$kept/$relative" ||
  fail "the kept $relative does not say that the region was kept"
"$skeleton" --keep coarsened "$source" | cmp -s - "$kept/$relative" ||
  fail "the kept $relative is not memlab_skeleton --keep coarsened's version"
# Every other file of the pack is the default pack's.
(cd "$default" && find . -type f | sort) >"$work/default_files"
(cd "$kept" && find . -type f | sort) >"$work/kept_files"
cmp -s "$work/default_files" "$work/kept_files" || fail "the two packs hold different files"
while IFS= read -r file; do
  [[ $file == "./$relative" ]] && continue
  cmp -s "$default/$file" "$kept/$file" || fail "${file#./} differs between the default and the kept pack"
done <"$work/default_files"
# No other solution line: every lab's solution lines, the kept region left out, looked for in
# every line of the kept pack (telling lines only: an assignment, an index or a call).
for lab_source in "$root"/labs/[0-9][0-9]_*/kernels.cu; do
  "$skeleton" --keep coarsened --solution-lines "$lab_source"
done | sed 's/^[ \t]*//; s/[ \t\r]*$//' | grep -e '=' -e '\[' -e '[A-Za-z_](' | grep -v '^//' |
  sort -u >"$work/secrets"
[[ -s $work/secrets ]] || fail "no solution line left to look for: nothing was checked"
"$skeleton" --solution-lines "$source" | sed 's/^[ \t]*//; s/[ \t\r]*$//' | sort -u >"$work/lab02_secrets"
comm -12 "$work/lab02_secrets" "$work/secrets" | grep -q . ||
  fail "lab 02's other regions left no solution line to look for"
find "$kept" -type f -exec grep -Il . {} + | while IFS= read -r file; do
  sed 's/^[ \t]*//; s/[ \t\r]*$//' "$file"
done | sort -u >"$work/kept_lines"
# Lines that also stand outside every region (public anyway) are not secrets.
for lab_source in "$root"/labs/[0-9][0-9]_*/kernels.cu; do
  "$skeleton" "$lab_source"
done | sed 's/^[ \t]*//; s/[ \t\r]*$//' | sort -u >"$work/public"
comm -23 "$work/secrets" "$work/public" >"$work/secrets_only"
comm -12 "$work/secrets_only" "$work/kept_lines" | while IFS= read -r line; do
  echo "FAIL: the kept pack holds a solution line: $line"
done | tee "$work/leaks"
[[ -s $work/leaks ]] && failures=$((failures + 1))

# ---- 3. the kept version compiles ---------------------------------------------------------------
if command -v nvcc >/dev/null; then
  cp "$kept/$relative" "$kept/labs/02_shared_tiling/kept_check.cu"
  nvcc -arch=sm_75 -c "$kept/labs/02_shared_tiling/kept_check.cu" -o "$work/kept.o" \
    -I"$kept/labs/02_shared_tiling" 2>"$work/nvcc.log" ||
    { fail "the kept $relative does not compile:"; head -20 "$work/nvcc.log"; }
else
  echo "note: no nvcc: the kept version's compile is not checked"
fi

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "student pack: coarsened stripped by default; kept whole with MEMLAB_PACK_KEEP=coarsened" \
  "($(wc -l <"$work/optional_code") code lines at their own numbers), every other file the" \
  "default's, none of $(wc -l <"$work/secrets_only") other solution lines in it"

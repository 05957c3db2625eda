#!/usr/bin/env bash
# test_skeleton_pack: ./memlab student-pack holds no solution line.
#   tests/unit/test_skeleton_pack.sh PATH/TO/memlab_skeleton PATH/TO/memlab_grade
# Builds the pack from this tree, unpacks it, and looks in every file of it (sources, comments,
# tests, build files, handouts) for every solution line of every lab: each line inside a
# // BEGIN SOLUTION region, compared without its indentation. Lines that say nothing of the
# solution are left out: code with no assignment, index, call or returned value ("}", "else",
# "break;", a bare bounds check "if (i < n)"), comments of fewer than four words, and lines that
# are public anyway because they also stand outside the regions of some lab file or in common/
# or profiling/. Also: nothing for instructors (their notes, their guide, the figures' data:
# the measurements students are asked to predict, the unit test asserting the tile loads' bounds
# conditions of shared_tiling's TODO), no figure that no shipped page shows, no dead link in a
# shipped page, no planted submissions, no hidden case, the lab sources are the generator's
# student versions.
set -uo pipefail
skeleton=${1:?usage: test_skeleton_pack.sh MEMLAB_SKELETON MEMLAB_GRADE}
grade=${2:?usage: test_skeleton_pack.sh MEMLAB_SKELETON MEMLAB_GRADE}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if [[ -e $root/STUDENT.md ]]; then
  echo "a student pack holds no solution to look for: test skipped"
  exit 77
fi

MEMLAB_SKELETON=$skeleton MEMLAB_GRADE=$grade "$root/memlab" student-pack "$work/pack.tar.gz" >/dev/null ||
  { echo "FAIL: ./memlab student-pack failed"; exit 1; }
mkdir "$work/unpacked"
tar -xzf "$work/pack.tar.gz" -C "$work/unpacked" || { echo "FAIL: the pack does not unpack"; exit 1; }
pack=$work/unpacked/memlab

# ---- what is in it, and what is not -----------------------------------------------------------
for path in STUDENT.md memlab Makefile.labs CMakeLists.txt common/memlab.h tools/grade/memlab_grade.c; do
  [[ -e $pack/$path ]] || fail "the pack has no $path"
done
while IFS= read -r path; do
  fail "the pack holds instructor material: ${path#"$pack"/}"
done < <(find "$pack" -ipath '*instructor*')
while IFS= read -r path; do
  fail "the pack holds figure data: ${path#"$pack"/}"
done < <(find "$pack/handouts" -type f \( -name '*.json' -o -path '*/figures/*' ! -name '*.png' ! -name '*.svg' \))
for about in "$pack"/labs/[0-9][0-9]_*/demo.md; do
  [[ ! -e $about ]] || fail "the pack holds ${about#"$pack"/} (the lecture's text explains what the lab measures)"
done
# Every local link of a shipped page resolves in the pack; every figure is shown by a page.
find "$pack" -name '*.md' | while read -r page; do
  grep -o '\]([^)#[:space:]]*' "$page" | sed 's/^](//' | grep -v -e '^$' -e '://' |
    while read -r link; do realpath -m "${page%/*}/$link"; done
done >"$work/links"
while read -r link; do
  [[ -e $link ]] || fail "a page of the pack links to ${link#"$pack"/}, which the pack lacks"
done <"$work/links"
find "$pack/handouts" -path '*/figures/*' -type f -exec realpath {} + >"$work/figures"
while read -r figure; do
  grep -qxF "$figure" "$work/links" || fail "no page of the pack shows ${figure#"$pack"/}"
done <"$work/figures"
[[ ! -e $pack/tests/grade ]] || fail "the pack holds the planted submissions"
[[ ! -e $pack/.git ]] || fail "the pack holds the git history"
for source in "$root"/labs/[0-9][0-9]_*/*.cu "$root"/labs/[0-9][0-9]_*/*.h; do
  [[ -e $source ]] || continue
  relative=${source#"$root"/}
  if [[ $(basename "$source") == kernels.cu ]]; then
    "$skeleton" "$source" -o "$work/expected" || { fail "$relative: the generator refused it"; continue; }
    cmp -s "$work/expected" "$pack/$relative" || fail "$relative in the pack is not its student version"
  else
    # The instructor's host program and header ship whole: the grader runs that code.
    cmp -s "$source" "$pack/$relative" || fail "$relative in the pack is not the instructor's file"
  fi
done
for rubric in "$root"/labs/[0-9][0-9]_*/rubric; do
  [[ -e $rubric ]] || continue
  relative=${rubric#"$root"/}
  [[ -e $pack/$relative ]] || fail "the pack has no $relative"
  for name in $(awk '$1 == "case" && $4 != "visible" { print $2 }' "$rubric"); do
    grep -rqw -- "$name" "$pack" && fail "hidden case $name of $relative is in the pack"
  done
done

# ---- no solution line --------------------------------------------------------------------------
: >"$work/solution"
: >"$work/public"
for source in "$root"/labs/[0-9][0-9]_*/kernels.cu; do
  [[ -e $source ]] || continue
  "$skeleton" --solution-lines "$source" | sed "s|^|${source#"$root"/}\t|" >>"$work/solution"
  "$skeleton" "$source" | sed "s|^|public\t|" >>"$work/public"
done
find "$root/common" "$root/profiling" -type f | while read -r file; do sed "s|^|public\t|" "$file"; done >>"$work/public"
[[ -s $work/solution ]] || fail "no solution line found in the labs: nothing was checked"

find "$pack" -type f | while read -r file; do
  grep -Iq . "$file" 2>/dev/null || continue   # binary files
  awk -v name="${file#"$pack"/}" '{ print name "\t" FNR "\t" $0 }' "$file"
done >"$work/pack_lines"

awk -F '\t' '
  function trim(text) { sub(/^[ \t]+/, "", text); sub(/[ \t\r]+$/, "", text); return text }
  # A comment of four words or more, or code that assigns, indexes, calls or returns a value.
  function telling(text,   code, words) {
    if (text ~ /^(\/\/|\/\*|\*)/) { words = split(text, unused, /[ \t]+/); return words > 4 }
    code = text
    gsub(/(==|<=|>=|!=)/, " ", code)
    if (code ~ /=/ || code ~ /\[/ || code ~ /^return [^;]/) return 1
    gsub(/(if|for|while|switch|sizeof) *\(/, " ", code)
    return code ~ /[A-Za-z_][A-Za-z0-9_]* *\(/
  }
  FILENAME ~ /public$/ { public[trim($2)] = 1; next }
  FILENAME ~ /solution$/ {
    line = trim($2)
    if (telling(line) && !(line in public)) secret[line] = $1
    next
  }
  {
    line = trim($3)
    if (line in secret) {
      printf "FAIL: %s:%s holds a solution line of %s: %s\n", $1, $2, secret[line], line
      found++
    }
  }
  END { exit found > 0 }
' "$work/public" "$work/solution" "$work/pack_lines" || failures=$((failures + 1))

secrets=$(awk -F '\t' '{ print $2 }' "$work/solution" | sort -u | wc -l)
if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "student pack: no solution line (of $secrets distinct ones) in $(wc -l <"$work/pack_lines") lines"

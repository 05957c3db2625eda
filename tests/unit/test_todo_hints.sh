#!/usr/bin/env bash
# test_todo_hints: the TODOs of labs 02, 04 and 05 ask for the goal and its constraints, and never
# dictate the solution's code (issue 48).
#   tests/unit/test_todo_hints.sh [ROOT]          (ROOT: the checkout, by default this one's)
# For every solution region of labs/{02_shared_tiling,04_coalescing,05_bank_conflicts}/kernels.cu
# that has a // TODO: hint, each statement of the region's code that assigns (=, +=, ...) is
# compared with the hint, both with every space, cast ("(size_t)", "(const float4 *)") and
# declared type taken out. The hint fails when it holds:
#   1. the statement whole (target, operator and value);
#   2. both the statement's target and its value, apart;
#   3. any element the statement writes or reads, as written there ("Ms[ty][tx]", "out[i]");
#   4. an element, in any index form, of both the array the statement writes and an array it
#      reads ("write tile[x][k] to out[tile_col + k][tile_row + x]": the statement, its
#      flattened index written as two).
# Whole kernels given to write (a region of a declaration with no TODO) are not compared.
set -uo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [[ -e $root/STUDENT.md ]]; then
  echo "a student pack holds no solution to compare its TODOs with: test skipped"
  exit 77
fi
failures=0
checked=0
for lab in 02_shared_tiling 04_coalescing 05_bank_conflicts; do
  source=$root/labs/$lab/kernels.cu
  [[ -f $source ]] || { echo "FAIL: no labs/$lab/kernels.cu"; failures=$((failures + 1)); continue; }
  result=$(awk -v name="labs/$lab/kernels.cu" '
    function normal(text,   inner) {
      gsub(/[ \t\r]+/, "", text)
      # casts: (size_t), (const float4 *), (float *)
      while (match(text, /\((const)?(unsigned|signed)?[A-Za-z_][A-Za-z0-9_]*\*?\)/)) {
        inner = substr(text, RSTART + 1, RLENGTH - 2)
        sub(/^const/, "", inner); sub(/\*$/, "", inner)
        if (inner ~ /^(size_t|int|float|float2|float4|double|char|unsigned|long|bool)$/) {
          text = substr(text, 1, RSTART - 1) substr(text, RSTART + RLENGTH)
        } else break
      }
      # a lone name in parentheses: (out)[i] -> out[i]
      while (match(text, /\([A-Za-z_][A-Za-z0-9_]*\)\[/))
        text = substr(text, 1, RSTART - 1) substr(text, RSTART + 1, RLENGTH - 3) "[" substr(text, RSTART + RLENGTH)
      return text
    }
    function plain(text) { gsub(/[ \t\r]+/, "", text); return text }
    # The elements name[...] (one or more subscripts) of a piece of code, one per array slot.
    function elements(text, list,   count, rest, element) {
      count = 0; rest = text
      while (match(rest, /[A-Za-z_][A-Za-z0-9_]*(\[[^][]*\])+/)) {
        element = substr(rest, RSTART, RLENGTH)
        list[++count] = element
        rest = substr(rest, RSTART + RLENGTH)
      }
      return count
    }
    function array_of(element) { sub(/\[.*/, "", element); return element }
    function report(what) {
      printf "FAIL: %s:%d: the TODO %s (statement \"%s\")\n", name, hint_line, what, shown
      found++
    }
    function check_region(   statements, i, s, op, lhs, rhs, target, value, whole, n, k, list, written, read_count, reads, r) {
      if (hint == "") return
      checked++
      gsub(/\/\*([^*]|\*[^\/])*\*\//, "", code)
      statements = split(code, piece, ";")
      for (i = 1; i <= statements; i++) {
        s = piece[i]
        # the head of a for/if/while is no assignment target: keep what follows its ")"
        while (match(s, /^[ \t\r]*(for|if|while)[ \t]*\(/)) {
          depth = 0
          for (k = RSTART + RLENGTH - 1; k <= length(s); k++) {
            c = substr(s, k, 1)
            if (c == "(") depth++
            if (c == ")" && --depth == 0) break
          }
          s = substr(s, k + 1)
        }
        gsub(/[{}]/, " ", s)
        if (!match(s, /[^=!<>+*\/%&|^-](\+|-|\*|\/|%|&|\||\^|<<|>>)?=[^=]/)) continue
        op_start = RSTART + 1
        op = substr(s, RSTART + 1, RLENGTH - 2)
        lhs = substr(s, 1, op_start - 1)
        rhs = substr(s, op_start + length(op))
        # a declaration: the name only
        sub(/^[ \t\r]*((const|unsigned|__shared__)[ \t]+)*(size_t|int|float|float2|float4|bool|double)[ \t]+/, "", lhs)
        target = normal(lhs); value = normal(rhs); whole = target op value
        shown = plain(s)
        if (target == "" || value == "") continue
        if (index(hint, whole) > 0) { report("holds the whole statement"); continue }
        if (length(target) > 1 && length(value) > 2 && index(hint, target) > 0 && index(hint, value) > 0) {
          report("holds its target and its value"); continue
        }
        n = elements(target " " value, list)
        for (k = 1; k <= n; k++)
          if (index(hint, list[k]) > 0) { report("holds the element " list[k]); break }
        if (k <= n) continue
        # 4: the written array and a read one, each as an element in any index form
        if (elements(target, list) == 0) continue
        written = array_of(list[1])
        read_count = elements(value, reads)
        for (r = 1; r <= read_count; r++)
          if (match(spaced, "(^|[^A-Za-z0-9_])" written " ?\\[") && match(spaced, "(^|[^A-Za-z0-9_])" array_of(reads[r]) " ?\\[")) {
            report("writes " written "[...] from " array_of(reads[r]) "[...]"); break
          }
      }
    }
    /^[ \t]*\/\/ BEGIN SOLUTION[ \t\r]*$/ { inside = 1; first = 1; in_hint = 0; hint = ""; spaced = ""; code = ""; next }
    /^[ \t]*\/\/ END SOLUTION[ \t\r]*$/ { check_region(); inside = 0; next }
    !inside { next }
    {
      line = $0
      if (first && line ~ /^[ \t]*\/\/ OPTIONAL:/) next
      if (first && line ~ /^[ \t]*\/\/ TODO:/) {
        first = 0; in_hint = 1; hint_line = FNR
        sub(/^[ \t]*\/\/ TODO:/, "", line); hint = plain(line); spaced = line; next
      }
      first = 0
      if (in_hint && line ~ /^[ \t]*\/\/  /) { sub(/^[ \t]*\/\//, "", line); hint = hint plain(line); spaced = spaced " " line; next }
      in_hint = 0
      if (line ~ /^[ \t]*\/\// || line ~ /^[ \t]*#/) next
      sub(/\/\/.*/, "", line)
      code = code " " line
    }
    END { printf "checked %d\n", checked; exit found > 0 }
  ' "$source")
  status=$?
  grep '^FAIL' <<<"$result"
  count=$(sed -n 's/^checked //p' <<<"$result")
  ((status == 0)) || failures=$((failures + 1))
  [[ ${count:-0} -gt 0 ]] || { echo "FAIL: labs/$lab/kernels.cu: no region with a TODO: nothing was checked"; failures=$((failures + 1)); }
  checked=$((checked + ${count:-0}))
done
if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "TODO hints: $checked regions of labs 02, 04 and 05, none holding a statement of its solution"

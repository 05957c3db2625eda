#!/usr/bin/env bash
# plant.sh: writes a planted submission, a kernels.cu with a bug (or a trick) put in, to stdout.
#   tests/grade/plant.sh labs/NN_PROGRAM/plants/NAME.plant PATH/TO/memlab_skeleton > kernels.cu
#
# A .plant file (tests/grade/README.md describes them) starts from the lab's kernels.cu, the
# solution, or its student version ("from solution" / "from skeleton"), and replaces text in it:
#
#   replace
#       if (i < n)
#           out[i] = in[i * stride];
#   with
#           out[i] = in[i * stride];
#   end
#
# The lines after "replace" must stand in the source exactly once, one after the other
# (indentation aside); they are swapped for the lines after "with", as written. A block that
# does not match (the lab changed) is an error: exit 2 with the block's line.
#
# Or it is a whole file ("from file"): every line after a line that says only "file" is the
# submission, as written, to the end of the .plant (no replace block then).
#
# With the directive "escapes", \xHH in the submission's text (the lines after "with", or after
# "file") stands for the byte HH: a carriage return (\x0d) or a byte-order mark (\xef\xbb\xbf)
# is written byte for byte, and stays visible in the plant.
set -euo pipefail
plant=${1:?usage: plant.sh PLANT MEMLAB_SKELETON}
plant=$(cd "$(dirname "$plant")" && pwd)/$(basename "$plant")
skeleton=${2:?usage: plant.sh PLANT MEMLAB_SKELETON}
# A plant lives in its lab's folder, labs/NN_PROGRAM/plants/.
lab_folder=$(dirname "$(dirname "$plant")")
source=$lab_folder/kernels.cu
[[ -e $source ]] || { echo "plant.sh: no lab folder with a kernels.cu above $plant (labs/NN_PROGRAM/plants/)" >&2; exit 2; }

# The plant's directives stand before its "file" line, if it has one.
header=$(awk '/^file[ \t\r]*$/ { exit } { print }' "$plant")
has_file=$(awk '/^file[ \t\r]*$/ { print "yes"; exit }' "$plant")
from=$(awk '$1 == "from" { print $2 }' <<<"$header")
escapes=$(awk '$1 == "escapes" { print 1 }' <<<"$header")
# \xHH as the byte HH, in the C locale (so that awk writes bytes, not characters).
decode='
  function decode(text,   out) {
    if (!escapes) return text
    out = ""
    while (match(text, /\\x[0-9a-fA-F][0-9a-fA-F]/)) {
      out = out substr(text, 1, RSTART - 1) byte[tolower(substr(text, RSTART + 2, 2))]
      text = substr(text, RSTART + RLENGTH)
    }
    return out text
  }
  BEGIN { for (i = 1; i < 256; i++) byte[sprintf("%02x", i)] = sprintf("%c", i) }'
export LC_ALL=C
case $from in
  solution) base=$(cat "$source") ;;
  skeleton) base=$("$skeleton" "$source") ;;
  file)
    [[ -n $has_file ]] || { echo "plant.sh: $plant: 'from file' needs a line 'file' before the submission" >&2; exit 2; }
    if awk '$1 == "replace"' <<<"$header" | grep -q .; then
      echo "plant.sh: $plant: a 'from file' plant has no replace block" >&2
      exit 2
    fi
    awk -v escapes="$escapes" "$decode"'
      found { print decode($0) } /^file[ \t\r]*$/ && !found { found = 1 }' "$plant"
    exit 0
    ;;
  *) echo "plant.sh: $plant: say 'from solution', 'from skeleton' or 'from file'" >&2; exit 2 ;;
esac
[[ -z $has_file ]] || { echo "plant.sh: $plant: a 'file' line belongs to a 'from file' plant" >&2; exit 2; }

printf '%s\n' "$base" | awk -v plant="$plant" -v escapes="$escapes" "$decode"'
  function trim(text) { sub(/^[ \t]+/, "", text); sub(/[ \t\r]+$/, "", text); return text }
  function apply(   i, j, at, matches, count, out, k) {
    matches = 0
    for (i = 1; i + old_count - 1 <= line_count; i++) {
      for (j = 1; j <= old_count && trim(line[i + j - 1]) == trim(old[j]); j++)
        ;
      if (j > old_count) { matches++; at = i }
    }
    if (matches != 1) {
      printf "plant.sh: %s:%d: the replace block stands %d times in the source, not once\n",
             plant, block_line, matches > "/dev/stderr"
      failed = 1
      exit 2
    }
    count = 0
    for (k = 1; k < at; k++) out[++count] = line[k]
    for (k = 1; k <= new_count; k++) out[++count] = new[k]
    for (k = at + old_count; k <= line_count; k++) out[++count] = line[k]
    delete line
    for (k = 1; k <= count; k++) line[k] = out[k]
    line_count = count
  }
  FNR == NR { line[++line_count] = $0; next }
  mode == "" && $1 == "replace" { mode = "old"; old_count = new_count = 0; block_line = FNR; next }
  mode == "old" && trim($0) == "with" { mode = "new"; next }
  mode == "old" { old[++old_count] = $0; next }
  mode == "new" && trim($0) == "end" { apply(); mode = ""; next }
  mode == "new" { new[++new_count] = decode($0); next }
  END {
    if (failed) exit 2
    if (mode != "") { printf "plant.sh: %s: a replace block is not closed by end\n", plant > "/dev/stderr"; exit 2 }
    for (k = 1; k <= line_count; k++) print line[k]
  }
' - "$plant"

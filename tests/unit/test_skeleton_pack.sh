#!/usr/bin/env bash
# test_skeleton_pack: ./memlab student-pack hands out no answer.
#   tests/unit/test_skeleton_pack.sh PATH/TO/memlab_skeleton PATH/TO/memlab_grade
# Builds the pack from this tree, unpacks it, and checks five classes of leak:
#   1. Nothing for instructors: their notes, their guide, the figures' data (the measurements
#      students are asked to predict), a lab's demo.md, the planted submissions, the git history,
#      a hidden case; no figure that no shipped page shows, no dead link in a shipped page; the
#      lab sources are the generator's student versions and the instructor's host programs.
#   2. The README: the pack's README.md is the students' own (tools/skeleton/student_readme.md),
#      its lab table listing every labs/NN_name/ folder and nothing else, and no line of the
#      instructor README's "Reading the table" section (its reading of a measured table answers
#      handout 04) and no sentence of the instructor README that carries a measured figure
#      stands in any file of the pack (sentences compared across line breaks).
#   3. Measured results in what a lab ships: no host program or header (every .cu but
#      kernels.cu, every .h under labs/), rubric, args file, test, plot or build file names a GPU
#      model in any line, and no comment of a lab source (kernels.cu included), no "#" comment
#      of another lab file and no rubric hint matches a pattern of a measured figure or of a
#      handout's answer (the list below says why each pattern is there).
#   4. Given kernels that answer their TODOs: no function the pack's kernels.cu gives whole (one
#      with no TODO in it) holds, as a run of statements, a solution region of three statements
#      or more, statements compared with every name but keywords and calls made one placeholder
#      (lab 07's chase_local and chase_constant were chase_shared and chase_global so renamed).
#   5. Solution lines: every file of the pack (sources, comments, tests, build files, handouts)
#      is searched for every line inside a // BEGIN SOLUTION region of every lab, compared
#      without its indentation. Lines that say nothing of the solution are left out: code with
#      no assignment, index, call or returned value ("}", "else", "break;", a bare bounds check
#      "if (i < n)"), comments of fewer than four words, and lines that are public anyway because
#      they also stand outside the regions of some lab file or in common/, reporting/ or
#      profiling/.
set -uo pipefail
skeleton=${1:?usage: test_skeleton_pack.sh MEMLAB_SKELETON MEMLAB_GRADE}
grade=${2:?usage: test_skeleton_pack.sh MEMLAB_SKELETON MEMLAB_GRADE}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The default pack is the one checked here (an optional region kept whole is given code by
# design: test_pack_coarsened checks that pack).
unset MEMLAB_PACK_KEEP

if [[ -e $root/STUDENT.md ]]; then
  echo "a student pack holds no solution to look for: test skipped"
  exit 77
fi

MEMLAB_SKELETON=$skeleton MEMLAB_GRADE=$grade "$root/memlab" student-pack "$work/pack.tar.gz" >/dev/null ||
  { echo "FAIL: ./memlab student-pack failed"; exit 1; }
mkdir "$work/unpacked"
tar -xzf "$work/pack.tar.gz" -C "$work/unpacked" || { echo "FAIL: the pack does not unpack"; exit 1; }
pack=$work/unpacked/memlab

# ---- 1. what is in it, and what is not --------------------------------------------------------
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
[[ ! -e $pack/tests/grade ]] || fail "the pack holds the planted submissions' scripts"
! compgen -G "$pack/labs/*/plants" >/dev/null || fail "the pack holds the planted submissions (labs/*/plants)"
# The GPU tests that run the tree's own kernels assert handout answers (lab 09's: pinned beats
# pageable, prefetched beats faulted), and the model tests quote the runs that measured the
# model's rules: a pack's ./memlab test checks the student's kernels.
for path in "$pack"/labs/*/tests/test_gpu.c "$pack"/labs/*/tests/test_model.c \
  "$pack/tests/gpu/test_degraded.sh"; do
  [[ ! -e $path ]] || fail "the pack holds a test of the solutions or the model: ${path#"$pack"/}"
done
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

# Every line of every text file of the pack: "PATH<TAB>LINE<TAB>TEXT".
find "$pack" -type f | while read -r file; do
  grep -Iq . "$file" 2>/dev/null || continue   # binary files
  awk -v name="${file#"$pack"/}" '{ print name "\t" FNR "\t" $0 }' "$file"
done >"$work/pack_lines"

# ---- 2. the README: the students' own, nothing of the instructor's -----------------------------
template=$root/tools/skeleton/student_readme.md
# The template holds no lab row: the driver writes them all, where its "<!-- labs: " line is.
! grep -q '^| \[Lab ' "$template" ||
  fail "tools/skeleton/student_readme.md has lab rows: ./memlab student-pack writes them from labs/"
# The README is the template, its "<!-- labs: " line made the lab table (header, rule, rows).
awk '/^\| handout \| program \| lesson \|$/ { table = 1 }
  table && /^\|/ { next } { table = 0; print }' "$pack/README.md" >"$work/readme_without_labs"
grep -v '^<!-- labs: ' "$template" | cmp -s - "$work/readme_without_labs" ||
  fail "the pack's README.md is not the students' README (tools/skeleton/student_readme.md)"
# The table lists every labs/NN_name/ folder, in order, and nothing else, each row
# "| [Lab NN](handouts/NN_name.md) | `name` | LESSON |" (LESSON not empty).
shipped=$(for directory in "$root"/labs/[0-9][0-9]_*/; do basename "$directory"; done)
row='^| \[Lab \([0-9][0-9]\)\](handouts/\1_\([^)/]*\)\.md) | `\2` | [^ |].* |$'
listed=$(sed -n "s#$row#\\1_\\2#p" "$pack/README.md")
[[ -n $shipped && $listed == "$shipped" ]] || fail "the pack's README lists the labs" \
  "$(tr '\n' ' ' <<<"$listed")but labs/ holds $(tr '\n' ' ' <<<"$shipped")"
[[ $(grep -c '^| \[Lab ' "$pack/README.md") -eq $(grep -c . <<<"$listed") ]] || fail "the pack's" \
  "README has lab rows not of the form | [Lab NN](handouts/NN_name.md) | \`name\` | LESSON |"

# Every text file of the pack, one line each, its whitespace made single spaces: "PATH<TAB>TEXT".
find "$pack" -type f | sort | while read -r file; do
  grep -Iq . "$file" 2>/dev/null || continue   # binary files
  printf '%s\t' "${file#"$pack"/}"
  tr -s ' \t\r\n' ' ' <"$file"
  echo
done >"$work/pack_texts"

# The lines of the instructor README's "Reading the table" section that say something: four
# words or more, not its heading, not a marker comment, not a table's header or rule (a row
# without a digit), not a header line of a quoted report ("- seed: ...").
awk '
  /^## / { inside = ($0 == "## Reading the table") }
  !inside { next }
  { line = $0; gsub(/[ \t\r]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line) }
  split(line, words, " ") < 4 || line ~ /^(#|<!--)/ { next }
  (line ~ /^\|/ && line !~ /[0-9]/) || line ~ /^- [a-z]+: / { next }
  { print line }
' "$root/README.md" >"$work/reading_lines"
[[ -s $work/reading_lines ]] ||
  fail "README.md has no \"## Reading the table\" section with text in it: nothing to look for"

# The sentences of the instructor README's prose (outside code, tables and quoted output) that
# carry a measured figure: a GPU model, a number with a unit of time, rate, size or count, a
# factor or a percentage, or "measured" near a number. Six words or more.
awk '
  function flush(   text, sentence) {
    text = paragraph; paragraph = ""
    gsub(/[ \t\r]+/, " ", text); sub(/^ /, "", text)
    while (text != "") {
      if (match(text, /[.!?] +[A-Z(`*]/)) {
        sentence = substr(text, 1, RSTART); text = substr(text, RSTART + RLENGTH - 1)
      } else {
        sentence = text; text = ""
      }
      sub(/ +$/, "", sentence)
      if (split(sentence, words, " ") >= 6 && measured(sentence)) print sentence
    }
  }
  function measured(sentence,   unit) {
    unit = "(%|GB/s|GFLOP/s|MB|KB|GB|ms|s|cycles|bytes|times|x)([^A-Za-z0-9_]|$)"
    return sentence ~ /(^|[^A-Za-z0-9_])(H100|H200|A100|V100|RTX)([^A-Za-z0-9_]|$)/ ||
           sentence ~ ("[0-9][0-9.,]* ?" unit) || sentence ~ /[Mm]easured[^.]*[0-9]/
  }
  /^[ \t]*```/ { flush(); fenced = !fenced; next }
  /^<!-- quoted:/ { flush(); quoted = 1; next }
  /^<!-- end quoted -->/ { quoted = 0; next }
  fenced || quoted || /^(    |\t)/ || /^\|/ || /^#/ || NF == 0 { flush(); next }
  /^([-*]|[0-9]+\.) / { flush() } # a list item starts a paragraph of its own
  { paragraph = paragraph " " $0 }
  END { flush() }
' "$root/README.md" >"$work/measured_sentences"
[[ -s $work/measured_sentences ]] ||
  fail "no sentence of README.md carries a measured figure: the check has nothing to look for"

awk -F '\t' '
  FILENAME ~ /reading_lines$/ { reading[$0] = 1; next }
  FILENAME ~ /measured_sentences$/ { sentence[$0] = 1; next }
  FILENAME ~ /pack_lines$/ {
    line = $0; sub(/^[^\t]*\t[^\t]*\t/, "", line)
    gsub(/[ \t\r]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line)
    if (line in reading) {
      printf "FAIL: %s:%s holds a line of the README'"'"'s Reading the table: %s\n", $1, $2, line
      found++
    }
    next
  }
  {
    for (s in sentence)
      if (index($2, s) > 0) {
        printf "FAIL: %s holds a measured sentence of the instructor README: %s\n", $1, s
        found++
      }
  }
  END { exit found > 0 }
' "$work/reading_lines" "$work/measured_sentences" "$work/pack_lines" "$work/pack_texts" ||
  failures=$((failures + 1))

# ---- 3. no measured result in the lab sources ------------------------------------------------
# "LINE<TAB>TEXT": the comment text on each line of a C or CUDA source (string and character
# literals skipped).
comment_lines() { # FILE
  awk '
    {
      text = ""
      line = $0
      while (line != "") {
        if (in_block) {
          end = index(line, "*/")
          if (end == 0) { text = text " " line; line = ""; continue }
          text = text " " substr(line, 1, end - 1)
          line = substr(line, end + 2)
          in_block = 0
        } else if (match(line, /\/\/|\/\*|"|'"'"'/)) {
          token = substr(line, RSTART, RLENGTH)
          line = substr(line, RSTART + RLENGTH)
          if (token == "//") { text = text " " line; line = "" }
          else if (token == "/*") in_block = 1
          else {
            while (line != "" && substr(line, 1, 1) != token)
              line = substr(line, substr(line, 1, 1) == "\\" ? 3 : 2)
            line = substr(line, 2)
          }
        } else line = ""
      }
      if (text ~ /[^ \t*]/) printf "%d\t%s\n", FNR, text
    }
  ' "$1"
}

# A GPU's model, in any line of a host program or header and in the comments of kernels.cu: the
# programs read the device's name when they run (the model's GPUs are in common/), so a model
# named in a lab source is the card some figure was taken on.
gpu_model='(^|[^A-Za-z0-9_])(H100|H200|H800|GH100|GH200|GB200|B100|B200|A100|A800|A40|A30|A10'
gpu_model+='|L40S?|L4|T4|V100|P100|RTX|GTX|Quadro|TITAN|Titan|Tesla)([^A-Za-z0-9_]|$)'
# The patterns no comment of a lab source may match, each with why (ERE, case as written).
patterns=()
reasons=()
pattern() { patterns+=("$1"); reasons+=("$2"); }
pattern '[Mm]easured( [^ .;]+){0,6} [^ .;]*[0-9]' \
  "\"measured\" and a number in one clause: a figure someone measured"
pattern '[0-9][0-9.,%]*( [A-Za-z]+){0,2} measured' \
  "a number then \"measured\" (\"8.75 a warp measured\")"
pattern '(^|[^A-Za-z_])(took|ran|showed|gave|read) (about |only |roughly |nearly )?[0-9][0-9.,-]*'\
'( ?%| times|x)' "an outcome as a percentage or a factor (\"read 49% of\", \"took 11 times\")"
pattern '[0-9] ?(GB/s|GFLOP/s|TFLOP/s|ns|us|ms)([^A-Za-z0-9_/]|$)' \
  "a time or a rate: the programs compute them when they run and write none down"
pattern '[0-9]\.[0-9]+ s([^A-Za-z0-9_]|$)' "seconds (\"2.25 s\"): a measured time"
pattern '[0-9][0-9,]* cycles' \
  "a latency in cycles: lab 07 asks for every level's (the course table's lives in code strings)"
pattern '(far|near) half|two halves' \
  "the L2's two halves: handout 07 question 2 asks what about the L2 makes its second step"
pattern 'whole span' "handout 04 question 2: at which strides DRAM reads the whole span"
pattern '64 bytes (a|an|per|each) (element|float)' \
  "handout 04 question 2: from which stride each element costs a 64-byte fill"
pattern 'one (address|lane) at a time|[Ss]erializ' \
  "how a divergent constant load is served: handout 03 question 3, handout 07 question 4"
pattern '(which|that) the L1 caches|cached in (the )?L1' \
  "handout 07 question 10: why local_chase runs at about the L1's latency"
pattern 'the next warp (reads|needs|uses)' \
  "handout 04 question 5: whether DRAM pays for a misaligned warp's extra sector"
pattern '64 KiB (big page|block)|(grows to|moves) (its |the |a )?(own )?64 KiB' \
  "handout 09 question 8: what the driver moves for one fault on a lone page"
pattern '(two|three) transfers' \
  "handout 09 question 9: why bytes over migrations is not the size one fault moves"
pattern 'lanes of a warp read [0-9]* ?neighbouring' \
  "lab 09's scale_stream TODO: which elements the 32 lanes of a warp should read together"

tab=$'\t'
while IFS= read -r source; do
  relative=${source#"$pack"/}
  comment_lines "$source" >"$work/comments"
  if [[ $(basename "$source") == kernels.cu ]]; then
    grep -E "$tab.*($gpu_model)" "$work/comments" | sed "s/$tab/:/"
  else
    grep -nE "$gpu_model" "$source"
  fi >"$work/models"
  while IFS=: read -r number text; do
    fail "$relative:$number names a GPU model (a figure taken on that card): $text"
  done <"$work/models"
  for i in "${!patterns[@]}"; do
    while IFS=$tab read -r number text; do
      fail "$relative:$number: a comment with ${reasons[i]}:$text"
    done < <(grep -E "$tab.*(${patterns[i]})" "$work/comments")
  done
done < <(find "$pack/labs" -type f \( -name '*.cu' -o -name '*.h' \) | sort)

# Every other file a lab ships (rubric, args files, its tests, plot scripts, build files): the
# same checks on what a person wrote there, "LINE<TAB>TEXT" of each "#" comment and of each
# rubric check's hint (after "|"); a GPU model in any of its lines.
while IFS= read -r file; do
  relative=${file#"$pack"/}
  awk '
    /^[[:space:]]*#/ { text = $0; sub(/^[[:space:]]*#+/, "", text); printf "%d\t%s\n", FNR, text; next }
    /^[[:space:]]*check .*\|/ { text = $0; sub(/^[^|]*\|/, "", text); printf "%d\t%s\n", FNR, text }
  ' "$file" >"$work/comments"
  while IFS=: read -r number text; do
    fail "$relative:$number names a GPU model (a figure taken on that card): $text"
  done < <(grep -nE "$gpu_model" "$file")
  for i in "${!patterns[@]}"; do
    while IFS=$tab read -r number text; do
      fail "$relative:$number: a comment with ${reasons[i]}:$text"
    done < <(grep -E "$tab.*(${patterns[i]})" "$work/comments")
  done
done < <(find "$pack/labs" -type f ! -name '*.cu' ! -name '*.h' | sort)

# ---- 4. no kernel given whole repeats a solution region ----------------------------------------
for source in "$root"/labs/[0-9][0-9]_*/kernels.cu; do
  [[ -e $source ]] || continue
  relative=${source#"$root"/}
  [[ -e $pack/$relative ]] || continue # the comparison with the student version says so
  awk -v given="$relative" '
    # The solution file: every region'"'"'s statements; then the student version: the statements
    # of each function it gives. A statement is its tokens, every name that is neither a keyword
    # nor a call made "@", comments and preprocessor lines left out; the head of a for, if,
    # while or switch is a statement of its own.
    BEGIN {
      split("auto bool break case char const continue default do double else enum extern " \
            "float for goto if inline int long return short signed sizeof static struct " \
            "switch typedef union unsigned void volatile while __global__ __device__ " \
            "__shared__ __constant__ __restrict__ __forceinline__ __launch_bounds__ true false",
            names, " ")
      for (i in names) keyword[names[i]] = 1
    }
    FNR == 1 { file++; in_comment = 0; in_region = 0; depth = 0; parens = 0; statement = "" }
    file == 1 && /^[ \t]*\/\/ BEGIN SOLUTION[ \t\r]*$/ {
      regions++; region_line[regions] = FNR; in_region = 1; next
    }
    file == 1 && /^[ \t]*\/\/ END SOLUTION[ \t\r]*$/ { flush(); in_region = 0; next }
    file == 1 && !in_region { next }
    /^[ \t]*#/ { next }
    { scan($0) }
    END {
      for (r = 1; r <= regions; r++) {
        n = region_count[r]
        for (f = 1; f <= functions && n >= 3; f++) {
          if (has_todo[f]) continue
          for (start = 1; start + n - 1 <= function_count[f]; start++) {
            same = 1
            for (k = 1; k <= n && same; k++)
              same = function_statement[f, start + k - 1] == region_statement[r, k]
            if (same) {
              printf "FAIL: %s:%d: %s, given whole, holds the solution region of line %d (%d " \
                     "statements, from \"%s\")\n", given, function_line[f], function_name[f],
                     region_line[r], n, region_statement[r, 1]
              found++
              break
            }
          }
        }
      }
      exit found > 0
    }
    function flush() {
      if (statement == "") return
      if (file == 1) region_statement[regions, ++region_count[regions]] = statement
      else if (depth > 0) function_statement[functions, ++function_count[functions]] = statement
      else header = header " " statement
      statement = ""
    }
    function add(token) { statement = statement == "" ? token : statement " " token }
    function todo(text) { if (file == 2 && depth > 0 && text ~ /TODO/) has_todo[functions] = 1 }
    function scan(line,   c, name) {
      while (line != "") {
        if (in_comment) {
          c = index(line, "*/")
          todo(c == 0 ? line : substr(line, 1, c))
          if (c == 0) return
          line = substr(line, c + 2); in_comment = 0; continue
        }
        if (match(line, /^[ \t\r]+/)) { line = substr(line, RLENGTH + 1); continue }
        if (substr(line, 1, 2) == "//") { todo(line); return }
        if (substr(line, 1, 2) == "/*") { in_comment = 1; line = substr(line, 3); continue }
        if (match(line, /^[A-Za-z_][A-Za-z0-9_]*/)) {
          name = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
          add(name in keyword || line ~ /^[ \t]*\(/ ? name : "@")
          if (name == "else" || name == "do") flush()
          continue
        }
        if (match(line, /^[0-9][A-Za-z0-9_.]*/) || match(line, /^"([^"\\]|\\.)*"/) ||
            match(line, /^'"'"'([^'"'"'\\]|\\.)*'"'"'/)) {
          add(substr(line, 1, RLENGTH)); line = substr(line, RLENGTH + 1); continue
        }
        c = substr(line, 1, 1); line = substr(line, 2)
        if (c == "(") parens++
        if (c == ")") parens--
        if (c == "{") {
          flush()
          if (file == 2 && depth == 0) {
            # A function: its name is the last before a "(" in its head.
            functions++; function_line[functions] = FNR; function_name[functions] = "a block"
            while (match(header, /[A-Za-z_][A-Za-z0-9_]* \(/)) {
              name = substr(header, RSTART, RLENGTH - 2); header = substr(header, RSTART + RLENGTH)
              if (name != "__launch_bounds__") function_name[functions] = name
            }
            header = ""
          }
          depth++; continue
        }
        if (c == "}") { flush(); depth--; continue }
        add(c)
        if (c == ";" && parens == 0) {
          flush()
          if (file == 2 && depth == 0) header = ""
        }
        if (c == ")" && parens == 0 && statement ~ /^(for|if|while|switch) \(/) flush()
      }
    }
  ' "$source" "$pack/$relative" || failures=$((failures + 1))
done

# ---- 5. no solution line ---------------------------------------------------------------------
: >"$work/solution"
: >"$work/public"
for source in "$root"/labs/[0-9][0-9]_*/kernels.cu; do
  [[ -e $source ]] || continue
  "$skeleton" --solution-lines "$source" | sed "s|^|${source#"$root"/}\t|" >>"$work/solution"
  "$skeleton" "$source" | sed "s|^|public\t|" >>"$work/public"
done
find "$root/common" "$root/reporting" "$root/profiling" -type f | while read -r file; do sed "s|^|public\t|" "$file"; done >>"$work/public"
[[ -s $work/solution ]] || fail "no solution line found in the labs: nothing was checked"

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
echo "student pack: the students' README; none of $(wc -l <"$work/reading_lines") lines and" \
  "$(wc -l <"$work/measured_sentences") measured sentences of the instructor's, no measured" \
  "result in a lab source, no given kernel repeating a solution region, no solution line (of" \
  "$secrets distinct ones) in $(wc -l <"$work/pack_lines") lines"

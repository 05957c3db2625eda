#!/usr/bin/env bash
# test_quoted_tables: every table or program output that the documents quote is what its command
# prints today.
#   tests/unit/test_quoted_tables.sh [PAGE.md...]
# A quoted block is the text between two lines, each at the start of a line:
#   <!-- quoted: COMMAND -->
#   ...what COMMAND prints, as it prints it (a fence line, ```, may wrap it: it is left out)...
#   <!-- end quoted -->
# COMMAND runs with bash in the project root, with the build's tools and lab programs on PATH
# (MEMLAB_BUILD: CTest sets it, and MEMLAB_NO_BUILD=1 so ./memlab never builds here) and no CUDA
# device visible; its stdout must equal the block. A document must not run anything else in a
# test, so COMMAND is a pipeline of memlab_report, ./memlab run or list, a lab program, sed,
# grep, head and tail only (sed in its sandbox, nothing written by --out, -i or a redirection).
# The pages: README.md, labs/README.md, handouts/*.md and handouts/instructor/*.md, or the
# PAGEs given. Fails naming the page, the line and the first line that differs; on a marker left
# unclosed, an end marker with none open, a refused command; and when no block is found at all.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ -e $root/STUDENT.md ]]; then
  echo "a student pack: the pages that quote recorded tables are the instructor's: test skipped"
  exit 77
fi
build=${MEMLAB_BUILD:?"CTest sets MEMLAB_BUILD to the build directory"}
build=$(cd "$build" && pwd) || exit 1
export MEMLAB_BUILD=$build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if (($# > 0)); then
  pages=("$@")
else
  pages=("$root/README.md" "$root/labs/README.md" "$root"/handouts/*.md
    "$root"/handouts/instructor/*.md)
fi
for page in "${pages[@]}"; do
  [[ -f $page ]] || { echo "FAIL: no page $page"; exit 1; }
done

# The lab programs, as the driver finds them: labs/NN_PROGRAM/PROGRAM.cu.
lab_programs=()
for directory in "$root"/labs/[0-9][0-9]_*/; do
  program=$(basename "$directory")
  program=${program#[0-9][0-9]_}
  [[ -e $directory/$program.cu ]] && lab_programs+=("$program")
done

# sed in its sandbox: a script's e, r and w commands are refused, so sed runs and writes nothing.
mkdir "$work/bin"
real_sed=$(command -v sed)
printf '#!/usr/bin/env bash\nexec %q --sandbox "$@"\n' "$real_sed" >"$work/bin/sed"
chmod +x "$work/bin/sed"

# ---- finding the blocks ------------------------------------------------------------------------

# For block N of the pages: $work/N.where (PAGE:LINE of its opening marker), N.command, N.text
# (its lines, fences left out) and N.lines (the page's line number of each). A marker problem is
# a line "PAGE:LINE: what" in $work/problems. Markers inside a fenced code block (an example of
# the format) are text, not markers.
find_blocks() {
  awk -v work="$work" -v root="$root/" '
    function where(line) { return page ":" line }
    function problem(text) { print text > (work "/problems") }
    FNR == 1 {
      if (open) problem(where(opened) ": the quoted block is never closed (<!-- end quoted -->)")
      open = 0; fenced = 0; page = FILENAME
      if (index(page, root) == 1) page = substr(page, length(root) + 1)
    }
    /^<!-- quoted: .* -->[ \t]*$/ && !fenced {
      if (open) problem(where(opened) ": the quoted block is never closed: one opens at line " FNR)
      count++; open = 1; opened = FNR
      command = $0
      sub(/^<!-- quoted: /, "", command)
      sub(/ -->[ \t]*$/, "", command)
      print where(FNR) > (work "/" count ".where")
      print command > (work "/" count ".command")
      printf "" > (work "/" count ".text")
      printf "" > (work "/" count ".lines")
      next
    }
    /^<!-- end quoted -->[ \t]*$/ && !fenced {
      if (!open) problem(where(FNR) ": an end marker with no quoted block open")
      open = 0
      next
    }
    open && /^[ \t]*```/ { next }
    open {
      print > (work "/" count ".text")
      print FNR > (work "/" count ".lines")
      next
    }
    /^[ \t]*```/ { fenced = !fenced }
    END {
      if (open) problem(where(opened) ": the quoted block is never closed (<!-- end quoted -->)")
      print count + 0 > (work "/count")
    }
  ' "${pages[@]}"
}

# ---- what a block may run ----------------------------------------------------------------------

# Why COMMAND may not run here, or nothing when it may: a pipeline (|) of allowed programs, each a
# list of words, quoted or not; no other shell syntax (; & < > $ ` ( ) \), no expansion inside
# double quotes, no option that writes a file.
refusal() { # COMMAND
  local text=$1 quote="" character word="" i segment=0
  local -a words=()
  for ((i = 0; i <= ${#text}; i++)); do
    character=${text:i:1}
    if [[ $quote == "'" ]]; then
      if [[ $character == "'" ]]; then quote=""; else word+=$character; fi
      [[ $i -lt ${#text} ]] || { echo "a single quote is not closed"; return; }
      continue
    fi
    if [[ $quote == '"' ]]; then
      case $character in
        '"') quote="" ;;
        '$' | '`' | \\)
          echo "'$character' inside double quotes (an expansion): use single quotes"
          return
          ;;
        '') echo "a double quote is not closed"; return ;;
        *) word+=$character ;;
      esac
      continue
    fi
    case $character in
      "'" | '"') quote=$character ;;
      ' ' | $'\t') [[ -z $word ]] || words+=("$word"); word="" ;;
      '|' | '')
        [[ -z $word ]] || words+=("$word")
        word=""
        segment=$((segment + 1))
        local why
        why=$(refused_words "${words[@]}")
        [[ -z $why ]] || { echo "command $segment of the pipeline: $why"; return; }
        words=()
        ;;
      ';' | '&' | '<' | '>' | '$' | '`' | '(' | ')' | \\)
        echo "'$character' is shell syntax a quoted block may not use (only a pipeline)"
        return
        ;;
      *) word+=$character ;;
    esac
  done
}

# Why a command of the pipeline (its words) may not run, or nothing.
refused_words() { # WORDS...
  (($# > 0)) || { echo "it is empty"; return; }
  local program=$1 word
  for word in "$@"; do
    case $word in
      --out | --out=* | --save-kernels | --save-kernels=*) echo "$word writes a file"; return ;;
    esac
  done
  case $program in
    memlab_report | grep | head | tail) return ;;
    sed)
      for word in "${@:2}"; do
        if [[ $word == --in-place* || $word =~ ^-[^-]*i ]]; then
          echo "sed $word edits a file"
          return
        fi
      done
      return
      ;;
    ./memlab)
      [[ ${2:-} == run || ${2:-} == list ]] || echo "./memlab ${2:-} (only ./memlab run and list)"
      return
      ;;
  esac
  local lab
  for lab in "${lab_programs[@]}"; do [[ $program != "$lab" ]] || return; done
  echo "$program is not memlab_report, ./memlab run or list, a lab program, sed, grep, head or tail"
}

# ---- running the blocks ------------------------------------------------------------------------

# The first line where the block (N.text) and the output differ, as "PAGE:LINE: ...".
first_difference() { # N, OUTPUT FILE
  awk -v where="$(cat "$work/$1.where")" '
    FILENAME == ARGV[1] { quoted[FNR] = $0; quoted_count = FNR; next }
    FILENAME == ARGV[2] { line[FNR] = $0; next }
    { printed[FNR] = $0; printed_count = FNR }
    END {
      split(where, place, /:[0-9]+$/)
      page = place[1]
      for (i = 1; i <= quoted_count || i <= printed_count; i++) {
        if (i <= quoted_count && i <= printed_count && quoted[i] == printed[i]) continue
        at = i <= quoted_count ? page ":" line[i] : where " (the end of the block)"
        printf "%s: line %d of the block differs from what the command prints\n", at, i
        printf "    quoted:  %s\n", i <= quoted_count ? quoted[i] : "(nothing: the block ends)"
        printf "    printed: %s\n", i <= printed_count ? printed[i] : "(nothing: the output ends)"
        exit
      }
    }
  ' "$work/$1.text" "$work/$1.lines" "$2"
}

find_blocks
if [[ -s $work/problems ]]; then
  while IFS= read -r problem; do fail "$problem"; done <"$work/problems"
fi
count=$(cat "$work/count")
((count > 0)) || fail "no quoted block (<!-- quoted: COMMAND -->) in ${pages[*]#"$root"/}"

for ((n = 1; n <= count; n++)); do
  where=$(cat "$work/$n.where")
  command=$(cat "$work/$n.command")
  why=$(refusal "$command")
  if [[ -n $why ]]; then
    fail "$where: the command is refused: $why: $command"
    continue
  fi
  [[ -s $work/$n.text ]] || { fail "$where: the block quotes nothing"; continue; }
  (cd "$root" && PATH="$work/bin:$build/tools:$build/labs:$PATH" MEMLAB_NO_BUILD=1 \
    CUDA_VISIBLE_DEVICES='' timeout 300 bash -c "$command") >"$work/$n.out" 2>"$work/$n.err"
  status=$?
  if [[ $status -ne 0 ]]; then
    fail "$where: exit status $status: $command"
    tail -n 5 "$work/$n.err"
    continue
  fi
  difference=$(first_difference "$n" "$work/$n.out")
  if [[ -n $difference ]]; then
    fail "$difference"
    echo "    command: $command"
    continue
  fi
  echo "ok: $where: $command"
done

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "all $count quoted blocks print what they quote"

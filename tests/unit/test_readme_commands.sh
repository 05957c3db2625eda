#!/usr/bin/env bash
# test_readme_commands: every command that README.md, the instructor guide
# (handouts/instructor-guide.md), the students' README (tools/skeleton/student_readme.md, the
# pack's README.md) and STUDENT.md (tools/skeleton/student_pack.md) show runs here, without a
# GPU, on its success path, and its output holds what the pages promise.
#   tests/unit/test_readme_commands.sh
# The commands are read from the pages themselves: each line of a code block (indented or fenced)
# that starts with a command (./memlab, make, cmake, sudo, ...), up to its comment (two spaces
# or " #"), and each inline `./memlab ...` or `make ...` outside code blocks. run_command below
# is the table of how each kind of command runs here and what its output must hold:
#   - as written, or with --model appended where it would need a GPU (a lab run);
#   - GPU-only commands (check, bench, calibrate): their refusal without a GPU is asserted instead;
#   - grading, which needs a GPU for its cases: the submission is found and compiled, and every
#     case is NOT GRADED (exit 3); a class (Gradescope's export, cloned Classroom repositories)
#     made here gets its scores.csv, canvas.csv and feedback, with a submission that does not
#     compile (0) and one missing; ./memlab grade --help lists the options and exit statuses;
#   - packages for the course platforms: their files checked;
#   - skipped, with the reason (./memlab test is this suite; ./memlab setup installs packages).
# A command with no entry fails the test, so the pages cannot show a command that nothing runs.
# The commands run in a temporary directory, with no CUDA device visible (CUDA_VISIBLE_DEVICES=,
# so a GPU host takes CI's path) and ./memlab as this tree's driver; whatever they write goes
# there (demo --out, make OUT=, placeholders such as DIR, paths under ~/). CTest sets
# MEMLAB_BUILD to its build directory and MEMLAB_NO_BUILD=1, so the driver never builds here.
# Exit 77 (skipped) when all else passed but gnuplot is missing, so a plot went unchecked.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MEMLAB_BUILD:?"CTest sets MEMLAB_BUILD to the build directory"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/cwd" "$work/home"
failures=0
unchecked=()
context="" # the lab, where one command runs for several
fail() { echo "FAIL: $command${context:+ ($context)}: $*"; failures=$((failures + 1)); }

# The pages a tree has: the instructor's checkout all four, a student pack its README.md (the
# students' own) and STUDENT.md's source.
pages=()
for page in README.md handouts/instructor-guide.md tools/skeleton/student_readme.md \
  tools/skeleton/student_pack.md; do
  [[ ! -f $root/$page ]] || pages+=("$root/$page")
done

# "PAGE:LINE<TAB>COMMAND" for every command the pages show.
page_commands() {
  awk '
    function command_in(text) {
      sub(/^[ \t]+/, "", text)
      sub(/^\$ /, "", text)
      programs = "make|cmake|ctest|sudo|apt-get|apt|tar|cd|bash|sh|git|nvcc|ncu|nsys" \
        "|python3?|export"
      if (text !~ "^(\\./[^ ]+|" programs "|[A-Z_]+=[^ ]*)( |$)")
        return ""
      sub(/(  | #).*$/, "", text)
      sub(/[ \t]+$/, "", text)
      return text
    }
    FNR == 1 { fenced = 0; page = FILENAME; sub(/.*\//, "", page) }
    /^[ \t]*```/ { fenced = !fenced; next }
    fenced || /^(    |\t)/ {
      text = command_in($0)
      if (text != "") print page ":" FNR "\t" text
      next
    }
    {
      line = $0
      while (match(line, /`[^`]+`/)) {
        span = substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, RSTART + RLENGTH)
        if (span ~ /^(\.\/memlab|make)( |$)/) print page ":" FNR "\t" span
      }
    }
  ' "${pages[@]}"
}

# ---- running a command -------------------------------------------------------------------------

# Runs WORDS in $work/cwd with no CUDA device visible, ./memlab as this tree's driver. Sets
# $status; stdout and stderr in $work/out and $work/err.
run_words() {
  local words=("$@")
  [[ ${words[0]} != ./memlab ]] || words[0]=$root/memlab
  (cd "$work/cwd" && CUDA_VISIBLE_DEVICES='' timeout 600 "${words[@]}") >"$work/out" 2>"$work/err"
  status=$?
}

# Replaces each word FROM of the array "words" (the caller's) with TO.
replace_word() { # FROM TO
  local i
  for i in "${!words[@]}"; do [[ ${words[i]} != "$1" ]] || words[i]=$2; done
}

expect_status() { # N
  [[ $status -eq $1 ]] || { fail "exit status $status, expected $1"; tail -n 5 "$work/err"; }
}
expect_out() { # PATTERN (grep -E on stdout), what it shows
  grep -qE -- "$1" "$work/out" || fail "stdout does not show $2"
}
expect_err() { # PATTERN (grep -E on stderr), what it shows
  grep -qE -- "$1" "$work/err" || fail "stderr does not show $2"
}

# Lab programs, as the driver finds them: labs/NN_PROGRAM/PROGRAM.cu.
lab_programs() {
  local directory
  for directory in "$root"/labs/[0-9][0-9]_*/; do
    directory=$(basename "$directory")
    [[ -e $root/labs/$directory/${directory#[0-9][0-9]_}.cu ]] && echo "${directory#[0-9][0-9]_}"
  done
}

# A lab's variants, from its --list.
lab_variants() { # program [built program]
  "${2:-$build/labs/$1}" --list | sed -n 's/^  \([a-z0-9_]*\) .*/\1/p'
}

# "VARIANT NAME=VALUE..." for each row of the first table of a lab's output (FILE): the
# variant and its size parameters (the columns before the timings).
table_rows() { # FILE
  awk '
    header == 0 && /^variant / { header = 1; columns = split($0, names, / +/); next }
    header == 1 && /^-+ / { header = 2; next }
    header == 2 && NF == 0 { exit }
    header == 2 {
      row = $1
      for (i = 2; i <= columns && names[i] != "median"; i++) row = row " " names[i] "=" $i
      print row
    }
  ' "$1"
}

# A lab run under --model (ARGUMENTS as given, after the program): its table names the variants
# asked for (--variant, else all of them) and only the lab's variants, each point of a --sweep
# for each of them, the value of every size flag given in every row, and the --seed given.
check_lab_run() { # program arguments...
  local program=$1 asked=all sweep="" flag value
  shift
  local arguments=("$@") i
  local -A sizes=()
  for ((i = 0; i < ${#arguments[@]}; i++)); do
    flag=${arguments[i]}
    value=${arguments[i + 1]:-}
    case $flag in
      --variant) asked=$value ;;
      --sweep) sweep=$value ;;
      --seed) expect_out "^seed: +$value$" "the seed $value" ;;
      --*) [[ $value == -* || -z $value ]] || sizes[${flag#--}]=$value ;;
    esac
  done
  expect_out "^$program: " "the lab's title"
  expect_out "^device: +none \(--model" "that it shows predictions (--model)"
  local variants rows variant point
  variants=$(lab_variants "$program")
  [[ -n $variants ]] || fail "$program --list names no variant"
  [[ $asked == all ]] || variants=$asked
  rows=$(table_rows "$work/out")
  [[ -n $rows ]] || { fail "no table"; return; }
  for variant in $(cut -d' ' -f1 <<<"$rows" | sort -u); do
    grep -qx -- "$variant" <<<"$(lab_variants "$program")" ||
      fail "the table has a row of '$variant', not a $program variant"
  done
  for variant in $variants; do
    grep -q "^$variant " <<<"$rows" || fail "the table has no row of $variant"
    if [[ -n $sweep ]]; then
      local parameter=${sweep%%=*} range=${sweep#*=} first last step
      IFS=: read -r first last step <<<"$range"
      for ((point = first; point <= last; point += ${step:-1})); do
        grep -qE "^$variant .*\b$parameter=$point( |$)" <<<"$rows" ||
          fail "the table has no row of $variant at $parameter=$point (--sweep $sweep)"
      done
    fi
  done
  for flag in "${!sizes[@]}"; do
    # A flag that is a column of the table: every row shows its value.
    grep -q " $flag=" <<<"$rows" || continue
    awk -v flag="$flag" -v value="${sizes[$flag]}" '
      { for (i = 2; i <= NF; i++) if (index($i, flag "=") == 1 && $i != flag "=" value) wrong = 1 }
      END { exit wrong }' <<<"$rows" || fail "a row does not show --$flag ${sizes[$flag]}"
  done
}

# A demo report in DIR names every lab, with a section, its predictions runs and their data.
check_demo_report() { # DIR, how it got predictions: asked (--model) or fallback (no GPU)
  local out=$1 report=$1/report.md program
  [[ -f $report ]] || { fail "no $report"; return; }
  grep -q 'Predictions only' "$report" || fail "report.md does not say it holds predictions"
  if [[ $2 == asked ]]; then
    grep -q 'asked for predictions' "$report" || fail "report.md does not say --model was asked for"
  else
    grep -q 'No usable CUDA GPU was found' "$report" ||
      fail "report.md does not say there is no GPU"
    expect_err 'no usable CUDA GPU here' "that it falls back to predictions"
  fi
  for program in $(lab_programs); do
    grep -q "^<a id=\"$program\"></a>$" "$report" || fail "report.md has no section for $program"
    grep -q "^### \`$program.* --model\` (predictions)$" "$report" ||
      fail "report.md shows no run of $program"
    [[ -s $out/data/$program-1.json && -s $out/data/$program-1.csv ]] ||
      fail "no JSON and CSV of $program"
  done
  expect_err "report in $out/report.md \([0-9]+ runs, 0 failed\)" \
    "the report's place and no failed run"
}

# The plots of a demo report in DIR: SVG files, each linked from report.md.
check_plots() { # DIR
  local svg count=0
  for svg in "$1"/plots/*.svg; do
    [[ -e $svg ]] || continue
    grep -q '<svg' "$svg" || fail "${svg##*/} is not an SVG"
    grep -qF "plots/${svg##*/}" "$1/report.md" || fail "report.md does not link ${svg##*/}"
    count=$((count + 1))
  done
  ((count > 0)) || fail "no SVG in $1/plots"
}

# ---- grading a class -----------------------------------------------------------------------------

# The lab's folder, labs/NN_PROGRAM.
lab_directory() { # program
  local directory
  for directory in "$root"/labs/[0-9][0-9]_"$1"; do echo "$directory"; done
}

# A kernels.cu that does not compile: what a student's syntax error looks like.
broken_kernels() { # FILE
  printf 'extern "C" __global__ void copy_coalesced(float *out) { out[0] = ; }\n' >"$1"
}

# Gradescope's export of the lab as it downloads it, FILE.zip: submission_101 the tree's own
# kernels.cu (Ada Lovelace), submission_102 one that does not compile (Grace Hopper),
# submission_103 listed in submission_metadata.yml but not in the export.
make_export() { # program, FILE.zip
  local export=$work/export-source/assignment_77_export
  rm -rf "$work/export-source"
  mkdir -p "$export/submission_101" "$export/submission_102"
  cp "$(lab_directory "$1")/kernels.cu" "$export/submission_101/kernels.cu"
  broken_kernels "$export/submission_102/kernels.cu"
  cat >"$export/submission_metadata.yml" <<'YAML'
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
submission_102:
  :submitters:
  - :name: Grace Hopper
    :sid: '1906'
    :email: grace@example.edu
submission_103:
  :submitters:
  - :name: Alan Turing
    :sid: '1912'
    :email: alan@example.edu
YAML
  (cd "$work/export-source" && python3 -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for folder, _, files in os.walk("assignment_77_export"):
        for name in files: z.write(os.path.join(folder, name))' "$2") ||
    fail "python3 could not write the export's zip"
}

# The students' GitHub Classroom repositories, cloned into FOLDER: each a copy of the starting
# repository that ./memlab package classroom writes. ada-LAB holds the tree's own kernels.cu in
# labs/NN_PROGRAM/, ben-LAB one that does not compile, cy-LAB none (its lab folder removed).
make_clones() { # program, FOLDER
  local starter=$work/classroom-starter directory clone
  directory=$(basename "$(lab_directory "$1")")
  if [[ ! -d $starter ]]; then
    run_words ./memlab package classroom "$1" "$starter"
    [[ $status -eq 0 && -d $starter/labs/$directory ]] ||
      { fail "./memlab package classroom $1 wrote no starting repository"; return 1; }
  fi
  rm -rf "$2"
  mkdir -p "$2"
  for clone in ada ben cy; do cp -R "$starter" "$2/$clone-$1"; done
  cp "$(lab_directory "$1")/kernels.cu" "$2/ada-$1/labs/$directory/kernels.cu"
  broken_kernels "$2/ben-$1/labs/$directory/kernels.cu"
  rm -rf "$2/cy-$1/labs/$directory"
}

# The rubric's cases as scores.csv names its columns: "NAME (P pts)", comma-separated.
case_columns() { # program
  awk '$1 == "case" { printf "%s%s (%s pts)", n++ ? "," : "", $2, $3 }' \
    "$(lab_directory "$1")/rubric"
}

# A class graded in DIR without a GPU: OK was not graded, BROKEN did not compile and scores 0,
# MISSING has no submission; scores.csv has the documented columns in their order, canvas.csv
# the one student with a score, every submission its feedback file.
check_class_grades() { # program, DIR, OK (id), BROKEN (id), MISSING (id)
  local program=$1 out=$2 points header feedback
  points=$(awk '$1 == "case" { sum += $3 } END { print sum }' "$(lab_directory "$program")/rubric")
  header="Name,SID,Email,Submission ID,Total Score,Max Points,Status,$(case_columns "$program")"
  expect_status 3
  expect_out "^  not graded +1: $3 \(no usable CUDA device\)" "$3 not graded (no GPU)"
  expect_out "^  did not compile +1: $4$" "$4 as not compiled"
  expect_out "^  no submission +1: $5 " "$5 as no submission"
  expect_out "^scores: " "where the scores are"
  [[ -f $out/scores.csv ]] || { fail "no $out/scores.csv"; return; }
  [[ $(head -n 1 "$out/scores.csv") == "$header" ]] ||
    fail "scores.csv's header is not: $header"
  grep -q "^\(.*,\)\?$3,,$points,not graded: no usable CUDA device," "$out/scores.csv" ||
    fail "scores.csv has no row of $3 with an empty score, not graded"
  grep -q "^\(.*,\)\?$4,0,$points,did not compile," "$out/scores.csv" ||
    fail "scores.csv has no row of $4 scoring 0, did not compile"
  grep -q "^\(.*,\)\?$5,,$points,\"\?no submission: " "$out/scores.csv" ||
    fail "scores.csv has no row of $5, no submission"
  grep -qx "Points Possible,,,,,$points" "$out/canvas.csv" ||
    fail "canvas.csv has no Points Possible"
  [[ $(grep -c ',0$' "$out/canvas.csv") -eq 1 ]] || fail "canvas.csv does not hold $4's 0 alone"
  grep -q "^$3,feedback/" "$out/files.csv" || fail "files.csv does not name $3's feedback"
  feedback=$(awk -F, -v id="$3" '$1 == id { print $2 }' "$out/files.csv")
  grep -q 'NOT GRADED' "$out/$feedback" 2>/dev/null || fail "$3's feedback does not say NOT GRADED"
}

demo_runs=0
make_runs=0
last_demo=""

# ---- the table: how each command runs here, and what it must show -------------------------------

run_command() { # command
  local words=() program variant flag i out case_name rubric targets=() format directory file code
  read -ra words <<<"$command"
  # A path in the home directory (~/lecture-5) goes to the test's own.
  for i in "${!words[@]}"; do
    # shellcheck disable=SC2088 # the page's literal ~/, which no shell expanded here
    [[ ${words[i]} != '~/'* ]] || words[i]=$work/home/${words[i]#'~/'}
  done
  case $command in
    './memlab test' | [A-Z]*=*' ./memlab test')
      echo "skipped: $command: it runs this suite; unit_student_pack runs the pack's," \
        ".ci/run this tree's"
      ;;
    './memlab setup')
      echo "skipped: $command: it installs Debian packages; .ci/run's ./memlab test installs" \
        "them through the same step on a fresh machine"
      ;;

    './memlab demo' | './memlab demo '*)
      # DIR (or no --out: report/ in the tree) becomes a directory of the test's own.
      demo_runs=$((demo_runs + 1))
      last_demo=$work/demo-$demo_runs
      replace_word DIR "$last_demo"
      [[ " ${words[*]} " == *" --out "* ]] || words+=(--out "$last_demo")
      for ((i = 2; i < ${#words[@]}; i++)); do
        [[ ${words[i]} != --out ]] || last_demo=${words[i + 1]}
      done
      [[ $last_demo == /* ]] || last_demo=$work/cwd/$last_demo
      run_words "${words[@]}"
      expect_status 0
      if [[ " ${words[*]} " == *" --model "* ]]; then
        check_demo_report "$last_demo" asked
      else
        check_demo_report "$last_demo" fallback
      fi
      if [[ " ${words[*]} " == *" --quick "* ]]; then
        grep -q 'The quick version' "$last_demo/report.md" ||
          fail "the --quick report does not say it is the quick version"
        local last_quick
        last_quick=$(grep -v '^#' "$root/labs/04_coalescing/quick.args" | tail -n 1)
        grep -qF -- "coalescing $last_quick --model" "$last_demo/report.md" ||
          fail "the --quick report does not show coalescing's quick.args runs"
      fi
      if command -v gnuplot >/dev/null 2>&1; then check_plots "$last_demo"; fi
      ;;
    './memlab plot' | './memlab plot '*)
      # DIR (or report, the demo's default) is the last demo this test ran.
      if ! command -v gnuplot >/dev/null 2>&1; then
        unchecked+=("$command (no gnuplot: Debian package gnuplot-nox)")
        return
      fi
      if [[ -z $last_demo ]]; then
        last_demo=$work/demo-plot
        run_words ./memlab demo --model --out "$last_demo"
      fi
      run_words ./memlab plot "$last_demo"
      expect_status 0
      expect_err 'memlab: [1-9][0-9]* plots in .*, 0 failed' "plots drawn and none failed"
      check_plots "$last_demo"
      ;;

    './memlab run LAB [ARGS]')
      for program in $(lab_programs); do
        context=$program
        run_words ./memlab run "$program" --model
        expect_status 0
        check_lab_run "$program"
      done
      context=""
      ;;
    './memlab run '*' --help')
      run_words "${words[@]}"
      expect_status 0
      expect_out "^usage: ${words[2]} " "the usage line"
      for flag in --variant --sweep --model --format --out; do expect_out "^ +$flag " "$flag"; done
      expect_out '^exit status' "the exit statuses"
      ;;
    './memlab run '*)
      # A lab run: under --model, no GPU needed.
      program=${words[2]}
      for ((i = 3; i < ${#words[@]} - 1; i++)); do
        # A kernels file of the tree, named from its root; it must compile (no GPU needed).
        [[ ${words[i]} == --kernels ]] || continue
        [[ -f $root/${words[i + 1]} ]] ||
          { fail "--kernels ${words[i + 1]} is not a file of the tree"; return; }
        words[i + 1]=$root/${words[i + 1]}
        MEMLAB_CUDA_ARCH=75 run_words ./memlab run "$program" --kernels "${words[i + 1]}" \
          --save-kernels "$work/cwd/kernels.fatbin"
        expect_status 0
        [[ -s $work/cwd/kernels.fatbin ]] ||
          fail "--kernels ${words[i + 1]} did not compile into a fatbin"
      done
      [[ " ${words[*]} " == *" --model "* ]] || words+=(--model)
      run_words "${words[@]}"
      expect_status 0
      check_lab_run "$program" "${words[@]:3}"
      out=""
      for ((i = 3; i < ${#words[@]}; i++)); do
        [[ ${words[i]} != --out ]] || out=${words[i + 1]}
      done
      if [[ -n $out ]]; then
        # Written where it was asked (the test's directory), and read by the report tool.
        [[ $out == /* ]] || out=$work/cwd/$out
        [[ -s $out ]] || { fail "wrote no $out"; return; }
        "$build/tools/memlab_report" csv "$out" >"$work/csv" ||
          fail "$out does not read as a report"
        for variant in $(lab_variants "$program"); do
          grep -q "^$program,$variant," "$work/csv" || fail "$out has no record of $variant"
        done
      fi
      ;;

    './memlab list')
      run_words "${words[@]}"
      expect_status 0
      for program in $(lab_programs); do
        expect_out "^$program: Lab [0-9]+" "$program"
        for variant in $(lab_variants "$program"); do
          expect_out "^  $variant " "$program's $variant"
        done
      done
      ;;
    './memlab list --metrics')
      run_words "${words[@]}"
      expect_status 0
      expect_out 'gld_efficiency' "the nvprof name gld_efficiency"
      expect_out 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld\.sum' \
        "the Perfworks global load sectors"
      ;;

    './memlab check' | './memlab check '* | './memlab bench' | './memlab bench '*)
      # GPU only: here its refusal (exit 3, one line) is checked instead.
      if nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: $command: a GPU is here, and it runs for minutes" \
          "(the GPU tests cover its parts)"
        return
      fi
      replace_word '[LAB...]' coalescing
      replace_word '[OUT.json]' "$work/cwd/bench.json"
      run_words "${words[@]}"
      expect_status 3
      expect_err "needs a CUDA GPU and none was found" "why it cannot run"
      [[ $(wc -l <"$work/err") -eq 1 ]] || fail "not one line on stderr"
      [[ ! -e $work/cwd/bench.json ]] || fail "wrote bench.json without a GPU"
      ;;
    './memlab calibrate' | './memlab calibrate '*)
      # GPU only: here its refusal (exit 3, one line) is checked, and that nothing was written.
      if nvidia-smi -L >/dev/null 2>&1; then
        echo "skipped: $command: a GPU is here (tests/gpu/test_calibrate.sh runs it)"
        return
      fi
      run_words "${words[@]}"
      expect_status 3
      expect_err "no usable CUDA device" "why it cannot run"
      [[ $(wc -l <"$work/err") -eq 1 ]] || fail "not one line on stderr"
      [[ ! -e $build/profiles ]] || fail "made $build/profiles without a GPU"
      ;;
    './memlab student-pack '*)
      replace_word memlab-students.tar.gz "$work/cwd/pack.tar.gz"
      replace_word OUT.tar.gz "$work/cwd/pack.tar.gz"
      run_words "${words[@]}"
      expect_status 0
      expect_out "student pack in $work/cwd/pack.tar.gz" "where the pack is"
      tar -tzf "$work/cwd/pack.tar.gz" >"$work/listing" ||
        { fail "the pack does not unpack"; return; }
      for path in memlab/STUDENT.md memlab/labs/04_coalescing/kernels.cu \
        memlab/labs/04_coalescing/coalescing.cu memlab/labs/04_coalescing/rubric \
        memlab/handouts/04_coalescing.md; do
        grep -qx -- "$path" "$work/listing" || fail "the pack has no $path"
      done
      grep -q '^memlab/handouts/instructor' "$work/listing" &&
        fail "the pack holds the instructor notes"
      tar -xzf "$work/cwd/pack.tar.gz" -C "$work/cwd" memlab/labs/04_coalescing/kernels.cu
      grep -q 'TODO' "$work/cwd/memlab/labs/04_coalescing/kernels.cu" ||
        fail "the pack's kernels.cu has no TODO"
      grep -q 'SOLUTION' "$work/cwd/memlab/labs/04_coalescing/kernels.cu" &&
        fail "the pack's kernels.cu holds a solution marker"
      ;;
    './memlab grade --help')
      run_words "${words[@]}"
      expect_status 0
      expect_out '^usage: \./memlab grade LAB KERNELS\.cu' "the usage of one submission"
      expect_out '^ +\./memlab grade LAB SUBMISSIONS' "the usage of a class"
      for flag in --format --out --jobs --cases --case --check-rubric --visible-cases; do
        expect_out "^ +$flag( |$)" "the option $flag"
      done
      expect_out '^exit status' "the exit statuses"
      for code in 0 1 2 3; do expect_out "^ +$code +[a-z]" "what exit status $code means"; done
      # The usage names what a user types: --program is the driver's business.
      awk '/^usage:/ { usage = 1 } usage && /^$/ { exit } usage' "$work/out" |
        grep -q -- '--program' && fail "the usage lines name the internal --program"
      [[ ! -s $work/err ]] || fail "it wrote to stderr"
      ;;
    './memlab grade '*' export.zip'*)
      # Gradescope's export as it downloads it, graded as a class: no GPU, so the compiled
      # submission is not graded, the broken one scores 0 and the missing one has a row.
      program=${words[2]}
      make_export "$program" "$work/cwd/export.zip"
      MEMLAB_CUDA_ARCH=75 run_words "${words[@]}"
      out=grades-$program
      for ((i = 4; i < ${#words[@]}; i++)); do
        [[ ${words[i]} != --out ]] || out=${words[i + 1]}
      done
      check_class_grades "$program" "$work/cwd/$out" submission_101 submission_102 submission_103
      grep -q '^Ada Lovelace,1815,ada@example.edu,submission_101,' "$work/cwd/$out/scores.csv" ||
        fail "scores.csv does not take Ada's name, SID and email from submission_metadata.yml"
      grep -q '^Grace Hopper,,1906,grace@example.edu,,0$' "$work/cwd/$out/canvas.csv" ||
        fail "canvas.csv does not give Grace's 0 in its columns"
      ;;
    './memlab grade '*' classroom-clones'*)
      # The students' Classroom repositories, cloned into one folder: the grader finds each
      # one's labs/NN_PROGRAM/kernels.cu.
      program=${words[2]}
      make_clones "$program" "$work/cwd/classroom-clones" || return
      MEMLAB_CUDA_ARCH=75 run_words "${words[@]}"
      out=grades-$program
      for ((i = 4; i < ${#words[@]}; i++)); do
        [[ ${words[i]} != --out ]] || out=${words[i + 1]}
      done
      check_class_grades "$program" "$work/cwd/$out" "ada-$program" "ben-$program" "cy-$program"
      ;;
    './memlab grade '*)
      # GPU only: without a device the submission is compiled and every case is NOT GRADED
      # (exit 3). The submission is a file of the tree, named from its root.
      program=${words[2]}
      [[ -f $root/${words[3]} ]] || fail "the submission ${words[3]} is not a file of the tree"
      words[3]=$root/${words[3]}
      run_words "${words[@]}"
      expect_status 3
      expect_out '^NOT GRADED: the grading host has no usable CUDA device' "why nothing is graded"
      expect_err "compiling the submission" "that the submission was compiled"
      case_name=""
      out=""
      format=text
      for ((i = 4; i < ${#words[@]}; i++)); do
        case ${words[i]} in
          --case) case_name=${words[i + 1]} ;;
          --out) out=$work/cwd/${words[i + 1]} ;;
          --format) format=${words[i + 1]} ;;
        esac
      done
      if [[ -n $case_name ]]; then
        expect_out "^case $case_name: NOT GRADED" "the case $case_name"
        [[ $(grep -c '^case ' "$work/out") -eq 1 ]] || fail "more than the one case asked for"
      else
        rubric=$(lab_directory "$program")/rubric
        for case_name in $(awk '$1 == "case" { print $2 }' "$rubric"); do
          expect_out "^case $case_name: NOT GRADED" "the case $case_name"
        done
      fi
      if [[ -n $out ]]; then
        # The platform's results: a score of 0 and the reason, never points.
        [[ -s $out ]] || { fail "wrote no $out"; return; }
        case $format in
          gradescope)
            grep -qE '"score":[[:space:]]*0[,}]' "$out" || fail "$out does not give a score of 0"
            grep -q 'no usable CUDA device' "$out" || fail "$out does not say why"
            ;;
          prairielearn)
            grep -qE '"gradable":[[:space:]]*false' "$out" || fail "$out is not \"gradable\": false"
            ;;
        esac
        rm -f "$out"
      fi
      ;;

    './memlab package classroom '*)
      # The students' starting repository: the pack's tree, the assignment, the workflow of the
      # visible cases; no solution, no hidden case.
      program=${words[3]}
      out=$work/cwd/${words[4]}
      run_words "${words[@]}"
      expect_status 0
      expect_out "^memlab: classroom package of $program in " "where the package is"
      rubric=$(lab_directory "$program")/rubric
      directory=$(basename "$(lab_directory "$program")")
      for file in ASSIGNMENT.md STUDENT.md .github/workflows/classroom.yml \
        "labs/$directory/kernels.cu" "labs/$directory/rubric"; do
        [[ -s $out/$file ]] || fail "the repository has no $file"
      done
      grep -q "grade $program labs/$directory/kernels.cu --case " \
        "$out/.github/workflows/classroom.yml" ||
        fail "the workflow grades no case of labs/$directory/kernels.cu"
      grep -q 'TODO' "$out/labs/$directory/kernels.cu" || fail "its kernels.cu has no TODO"
      grep -q 'SOLUTION' "$out/labs/$directory/kernels.cu" &&
        fail "its kernels.cu holds a solution marker"
      for case_name in $(awk '$1 == "case" && $4 != "visible" { print $2 }' "$rubric"); do
        grep -rqF -- "$case_name" "$out" && fail "the repository names the hidden case $case_name"
      done
      ;;
    './memlab package gradescope '*)
      # The autograder: its two scripts and the instructor's checkout, the whole rubric with it,
      # without git's history or a build folder.
      program=${words[3]}
      out=$work/cwd/${words[4]}
      run_words "${words[@]}"
      expect_status 0
      expect_out "^memlab: gradescope package of $program in " "where the package is"
      directory=$(basename "$(lab_directory "$program")")
      for file in setup.sh run_autograder; do
        [[ -x $out/$file ]] || fail "the autograder has no executable $file"
      done
      grep -q "grade $program /autograder/submission/kernels.cu --format gradescope" \
        "$out/run_autograder" 2>/dev/null || fail "run_autograder does not grade the upload"
      cmp -s "$out/memlab/labs/$directory/rubric" "$(lab_directory "$program")/rubric" ||
        fail "the autograder's checkout lacks the lab's whole rubric"
      [[ ! -e $out/memlab/.git && -z $(find "$out/memlab" -maxdepth 1 -name 'build*') ]] ||
        fail "the autograder's checkout holds .git or a build folder"
      ;;
    './memlab package prairielearn '*)
      # The question, in a course repository's questions/ folder (made here: the course's own).
      program=${words[3]}
      out=$work/cwd/${words[4]}
      mkdir -p "$(dirname "$out")"
      run_words "${words[@]}"
      expect_status 0
      expect_out "^memlab: prairielearn package of $program in " "where the package is"
      for file in info.json question.html tests/rubric tests/run.sh grader-image/Dockerfile; do
        [[ -s $out/$file ]] || fail "the question has no $file"
      done
      grep -qE '"gradingMethod":[[:space:]]*"External"' "$out/info.json" 2>/dev/null ||
        fail "info.json does not ask for external grading"
      cmp -s "$out/tests/rubric" "$(lab_directory "$program")/rubric" ||
        fail "tests/rubric is not the lab's whole rubric"
      [[ -x $out/tests/run.sh ]] || fail "tests/run.sh is not executable"
      directory=$(basename "$(lab_directory "$program")")
      [[ -n $(find "$out" -name "$directory.md") ]] ||
        fail "the question ships no handout $directory.md"
      ;;

    'make -f Makefile.labs' | 'make -f Makefile.labs '*)
      # Into a directory of the test's own, for one architecture.
      make_runs=$((make_runs + 1))
      targets=("${words[@]:3}")
      out=$work/make-$make_runs
      ((${#targets[@]} > 0)) || mapfile -t targets < <(lab_programs)
      (cd "$root" && timeout 600 "${words[@]}" -j "$(nproc)" OUT="$out" CUDA_ARCH=75) \
        >"$work/out" 2>&1
      status=$?
      expect_status 0
      for program in "${targets[@]}"; do
        context=$program
        [[ -x $out/labs/$program ]] || { fail "built no $program"; continue; }
        "$out/labs/$program" --model >"$work/out" 2>"$work/err"
        status=$?
        expect_status 0
        for variant in $(lab_variants "$program" "$out/labs/$program"); do
          expect_out "^$variant " "$program's $variant"
        done
      done
      context=""
      ;;

    *) fail "no entry in this test's table (tests/unit/test_readme_commands.sh, run_command)" ;;
  esac
}

page_commands >"$work/commands"
if [[ $(wc -l <"$work/commands") -lt 10 ]]; then
  echo "FAIL: found only $(wc -l <"$work/commands") commands in the pages"
  exit 1
fi
declare -A done_commands=()
while IFS=$'\t' read -r where command; do
  [[ -z ${done_commands[$command]:-} ]] || continue
  done_commands[$command]=1
  echo "$where: $command"
  before=$failures
  run_command </dev/null
  ((failures == before)) || echo "  (from $where)"
done <"$work/commands"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
if ((${#unchecked[@]} > 0)); then
  printf 'SKIP: not checked: %s\n' "${unchecked[@]}"
  exit 77
fi
echo "all ${#done_commands[@]} commands of ${pages[*]#"$root"/} checked"

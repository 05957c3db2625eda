#!/usr/bin/env bash
# test_grade_cli: the grader as an instructor meets it, no GPU needed.
#   tests/unit/test_grade_cli.sh PATH/TO/memlab_grade PATH/TO/coalescing
#
# Bad usage, a missing or unusable program or submission, and malformed rubric or --cases files
# get one line on stderr, nothing on stdout and exit status 2. End to end on the coalescing lab
# (its built program, which compiles a submission without a GPU):
#   - a kernels.cu that #includes the rubric (or anything but CUDA headers and coalescing.h, in
#     any disguise: those a scan sees and those only the compiler's judge sees), or holds #line,
#     is refused: score 0 with the program's one line, and no text of the rubric in stdout,
#     stderr or the results of any --format;
#   - a syntax error scores 0 with the compiler's message, which names the student's file;
#   - the lab's kernels.cu compiles, and without a CUDA device (hidden with
#     CUDA_VISIBLE_DEVICES=) nothing is graded: exit 3 and the reason, never a point; a file
#     with host code (main, a constructor) compiles too, and its host code never runs.
# Runs in the instructor's tree and in a student pack (STUDENT.md at the root) alike: it plants
# nothing in the lab's kernels.cu, whichever version it is.
set -uo pipefail
grade=${1:?usage: test_grade_cli.sh MEMLAB_GRADE COALESCING_PROGRAM}
program=${2:?usage: test_grade_cli.sh MEMLAB_GRADE COALESCING_PROGRAM}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_refused() { # description, arguments...
  local what=$1
  shift
  "$grade" "$@" >"$work/out" 2>"$work/err"
  local status=$?
  [[ $status -eq 2 ]] || fail "$what: exit $status, expected 2"
  [[ $(wc -l <"$work/err") -eq 1 ]] || fail "$what: stderr has $(wc -l <"$work/err") lines, expected 1: $(cat "$work/err")"
  [[ ! -s $work/out ]] || fail "$what: wrote to stdout"
}

# ---- refusals: a tree with one lab whose rubric is set by each check ---------------------------
fake=$work/fake
mkdir -p "$fake/labs/01_toy"
echo 'int main(void) { return 0; }' >"$fake/labs/01_toy/toy.cu"
echo 'extern "C" __global__ void toy(float *out) { out[0] = 1.0f; }' >"$work/submission.cu"
printf '#!/bin/sh\nexit 0\n' >"$work/toy"
chmod +x "$work/toy"
printf 'case fine 1 visible --n 1\ncheck correct\n' >"$fake/labs/01_toy/rubric"
toy=(--root "$fake" toy "$work/submission.cu" --program "$work/toy")

expect_refused "no arguments"
expect_refused "one argument" toy
grep -q -- '--program\|--root' "$work/err" && fail "the usage line names an internal option: $(cat "$work/err")"
expect_refused "unknown option" "${toy[@]}" --bogus
expect_refused "bad format" "${toy[@]}" --format xml
expect_refused "--out without a value" "${toy[@]}" --out
expect_refused "unwritable --out" "${toy[@]}" --out /nonexistent/r.json
expect_refused "unknown lab" --root "$fake" nolab "$work/submission.cu" --program "$work/toy"
expect_refused "unknown case" "${toy[@]}" --case nope
expect_refused "--build-dir (gone in v2)" "${toy[@]}" --build-dir /tmp
expect_refused "missing --cases file" "${toy[@]}" --cases "$work/none"

# --help (or -h, anywhere): exit 0, on stdout the usage as ./memlab grade takes it (no internal
# option), every option, where a class's folder holds each submission, the exit statuses.
for arguments in "--help" "-h" "${toy[*]} --help" "--root $fake --help"; do
  # shellcheck disable=SC2086 # the arguments are words on purpose
  "$grade" $arguments >"$work/help" 2>"$work/err"
  status=$?
  [[ $status -eq 0 ]] || fail "$arguments: exit $status, expected 0"
  [[ ! -s $work/err ]] || fail "$arguments: wrote to stderr: $(cat "$work/err")"
  sed -n '/^usage:/,/^$/p' "$work/help" >"$work/usage"
  grep -q '^usage: ./memlab grade LAB KERNELS.cu ' "$work/usage" || fail "$arguments: no usage line"
  grep -q '^       ./memlab grade LAB SUBMISSIONS ' "$work/usage" || fail "$arguments: no class usage"
  grep -q '^       ./memlab grade LAB SUBMISSIONS --merge FOLDER\.\.\. ' "$work/usage" ||
    fail "$arguments: no usage of --merge"
  grep -qF '       ./memlab grade --status DIR [--format text|json]' "$work/usage" ||
    fail "$arguments: no usage of --status"
  grep -q -- '--program\|--root' "$work/usage" && fail "$arguments: the usage names an internal option"
  for option in --format --out --jobs --gpus --mixed-gpus --shard --merge --status --cases --case \
    --check-rubric --visible-cases --help; do
    grep -q -- "^  $option" "$work/help" || fail "$arguments: the option $option is not listed"
  done
  grep -q 'its labs/NN_LAB/kernels.cu' "$work/help" || fail "$arguments: no word of a clone's kernels.cu"
  grep -q '^exit status:$' "$work/help" || fail "$arguments: no exit statuses"
  for code in 0 1 2 3; do
    grep -q "^  $code  " "$work/help" || fail "$arguments: exit status $code is not described"
  done
done
expect_refused "an unknown option" "${toy[@]}" --hepl
grep -q "unknown option '--hepl' (./memlab grade --help lists them)" "$work/err" ||
  fail "an unknown option: message is '$(cat "$work/err")'"

# The program: the instructor's, built; the grader runs nothing else.
expect_refused "no --program" --root "$fake" toy "$work/submission.cu"
grep -q -- "--program PATH is needed" "$work/err" || fail "no --program: message is '$(cat "$work/err")'"
expect_refused "a missing program" --root "$fake" toy "$work/submission.cu" --program "$work/no_program"
grep -q "no such file" "$work/err" || fail "a missing program: message is '$(cat "$work/err")'"
printf 'not a program\n' >"$work/plain"
expect_refused "a program that is not executable" --root "$fake" toy "$work/submission.cu" --program "$work/plain"
grep -q "not an executable file" "$work/err" || fail "a plain file as program: message is '$(cat "$work/err")'"
expect_refused "a directory as program" --root "$fake" toy "$work/submission.cu" --program "$work"

# The submission: a regular file within the size limit, or one line and nothing else.
expect_refused "a missing submission" --root "$fake" toy "$work/nothing.cu" --program "$work/toy"
grep -q "no submission .*nothing.cu" "$work/err" || fail "a missing submission: message is '$(cat "$work/err")'"
# A directory is a class of submissions (test_grade_batch.sh): an empty one is refused.
mkdir "$work/directory.cu"
expect_refused "an empty directory as submissions" --root "$fake" toy "$work/directory.cu" --program "$work/toy"
grep -q "directory.cu is empty" "$work/err" || fail "an empty directory as submissions: message is '$(cat "$work/err")'"
expect_refused "--jobs for one submission" "${toy[@]}" --jobs 2
grep -q -- "--jobs is for a batch" "$work/err" || fail "--jobs for one submission: message is '$(cat "$work/err")'"
# A class's options beyond one GPU (test_grade_batch.sh grades with them), for one submission.
for option in "--gpus all" "--gpus 0 --mixed-gpus" "--shard 0/2" "--merge $work"; do
  # shellcheck disable=SC2086 # the option and its value are two words on purpose
  expect_refused "$option for one submission" "${toy[@]}" $option
  grep -qx -- "memlab grade: ${option%% *} is for a batch: a folder or an archive of submissions" "$work/err" ||
    fail "$option for one submission: message is '$(cat "$work/err")'"
done
expect_refused "--mixed-gpus for one submission" "${toy[@]}" --mixed-gpus
grep -qx -- "memlab grade: --mixed-gpus is for a batch: a folder or an archive of submissions" "$work/err" ||
  fail "--mixed-gpus for one submission: message is '$(cat "$work/err")'"
ln -s "$fake/labs/01_toy/rubric" "$work/link.cu"
expect_refused "a link to the rubric as submission" --root "$fake" toy "$work/link.cu" --program "$work/toy"
grep -q "symbolic link" "$work/err" || fail "a link as submission: message is '$(cat "$work/err")'"
expect_refused "a device as submission" --root "$fake" toy /dev/zero --program "$work/toy"
{
  cat "$work/submission.cu"
  head -c 262144 /dev/zero | tr '\0' ' '
} >"$work/large.cu"
expect_refused "a submission over 256 KiB" --root "$fake" toy "$work/large.cu" --program "$work/toy"
grep -q "more than the limit of 262144" "$work/err" || fail "over-size: message is '$(cat "$work/err")'"

printf 'case fine 1 visible --n 1\ncheck correct\ncase broken 2 visible\ncheck gld_efficiency >> 5\n' \
  >"$fake/labs/01_toy/rubric"
expect_refused "malformed rubric" "${toy[@]}"
grep -q "labs/01_toy/rubric:4: a check is" "$work/err" || fail "malformed rubric: message is '$(cat "$work/err")'"
expect_refused "--check-rubric" --check-rubric "$fake/labs/01_toy/rubric"
printf 'case fine 1 visible --n 1 --kernels other.cu\ncheck correct\n' >"$fake/labs/01_toy/rubric"
expect_refused "a case naming --kernels" "${toy[@]}"

printf 'case fine 1 visible --n 1\ncheck correct\n' >"$fake/labs/01_toy/rubric"
printf '# hidden cases\ncase fine 3 hidden --n 99\ncheck correct\n' >"$work/hidden"
expect_refused "a --cases file repeating a name" "${toy[@]}" --cases "$work/hidden"
grep -q "hidden:2: case 'fine' is defined twice" "$work/err" || fail "duplicate case: message is '$(cat "$work/err")'"
printf 'case other 3 hidden --n 99\n' >"$work/hidden"
expect_refused "a --cases file without checks" "${toy[@]}" --cases "$work/hidden"
rm -rf "$fake"

# Every lab's rubric reads; the student pack's copy keeps its visible cases only.
for rubric in "$root"/labs/*/rubric; do
  [[ -e $rubric ]] || continue
  "$grade" --check-rubric "$rubric" || fail "$rubric does not read"
  "$grade" --visible-cases "$rubric" >"$work/visible" || fail "--visible-cases $rubric"
  hidden=$(awk '$1 == "case" && $4 != "visible" { print $2 }' "$rubric")
  for name in $hidden; do
    ! grep -qw "$name" "$work/visible" || fail "--visible-cases keeps hidden case $name of $rubric"
  done
  visible=$(awk '$1 == "case" && $4 == "visible" { print $2 }' "$rubric")
  for name in $visible; do
    grep -q "^case $name " "$work/visible" || fail "--visible-cases drops visible case $name of $rubric"
  done
  "$grade" --check-rubric "$work/visible" || fail "the visible part of $rubric does not read"
done

# ---- end to end on the coalescing lab: compiling needs nvcc, not a GPU ---------------------------
export MEMLAB_CUDA_ARCH=${MEMLAB_CUDA_ARCH:-75}
export CUDA_VISIBLE_DEVICES= # no case may run: the machine may have a GPU
lab=$root/labs/04_coalescing
rubric=$lab/rubric
coalescing=(--root "$root" coalescing)

# What would show if the compiler ever read the rubric (it quotes the lines it cannot parse):
# its comments, its case lines and its check lines as written. The results name the cases and
# their arguments anyway, never these lines.
awk '
  /^#/ && NF > 4 { sub(/^#[ \t]*/, ""); print; next }
  $1 == "case" || $1 == "check" { print }
' "$rubric" >"$work/rubric_text"
[[ $(wc -l <"$work/rubric_text") -ge 5 ]] || fail "the rubric gave too few lines to look for"

# Grades SUBMISSION in every format; each output must show the refusal and no rubric text.
expect_refused_submission() { # description, submission, what the refusal line must say
  local what=$1 submission=$2 says=$3 format
  for format in text gradescope prairielearn; do
    "$grade" "${coalescing[@]}" "$submission" --program "$program" --format "$format" \
      --out "$work/results.$format" >"$work/out" 2>"$work/err"
    local status=$?
    [[ $status -eq 1 ]] || fail "$what ($format): exit $status, expected 1 ($(tail -n 2 "$work/err"))"
    grep -q 'score: 0 / ' "$work/out" || fail "$what ($format): the text on stdout does not score 0"
    grep -q 'refused before it was compiled' "$work/out" || fail "$what ($format): stdout does not say it was refused"
    local shown=$says
    [[ $format == text ]] || shown=${says//\"/\\\"} # JSON escapes the quotes
    grep -qF -- "$shown" "$work/results.$format" || fail "$what ($format): the results do not give the line '$says'"
    local stream
    for stream in "$work/out" "$work/err" "$work/results.$format"; do
      if grep -qF -f "$work/rubric_text" "$stream"; then
        fail "$what ($format): rubric text in $(basename "$stream"): $(grep -F -f "$work/rubric_text" "$stream" | head -n 2)"
      fi
    done
  done
  grep -q '"score":[[:space:]]*0,' "$work/results.gradescope" || fail "$what: Gradescope score is not 0"
  grep -q '"gradable":[[:space:]]*false' "$work/results.prairielearn" || fail "$what: PrairieLearn gradable is not false"
  grep -q '"format_errors"' "$work/results.prairielearn" || fail "$what: PrairieLearn has no format_errors"
}

kernels_with() { # lines to put first; the lab's kernels.cu follows
  printf '%s\n' "$@"
  cat "$lab/kernels.cu"
}

kernels_with '#include "../../labs/04_coalescing/rubric"' >"$work/include_path.cu"
expect_refused_submission "#include of the rubric by path" "$work/include_path.cu" \
  '#include "../../labs/04_coalescing/rubric" is not allowed'
kernels_with '#include "rubric"' >"$work/include_rubric.cu"
expect_refused_submission "#include \"rubric\"" "$work/include_rubric.cu" '#include "rubric" is not allowed'

# The include scan sees through the usual disguises (runner/source_judge.c).
kernels_with '%:include "rubric"' >"$work/digraph.cu"
expect_refused_submission "a digraph #include" "$work/digraph.cu" 'is not allowed'
kernels_with '  #  include   "rubric"' >"$work/spaced.cu"
expect_refused_submission "a spaced #include" "$work/spaced.cu" 'is not allowed'
kernels_with '#define RUBRIC "rubric"' '#include RUBRIC' >"$work/macro.cu"
expect_refused_submission "an #include through a macro" "$work/macro.cu" 'is not allowed'
kernels_with '#inc\' 'lude "rubric"' >"$work/spliced.cu"
expect_refused_submission "an #include split by a line splice" "$work/spliced.cu" 'is not allowed'
kernels_with '/* a comment */ # /* another */ include "rubric"' >"$work/commented.cu"
expect_refused_submission "an #include among comments" "$work/commented.cu" 'is not allowed'
kernels_with '#include_next <rubric>' >"$work/include_next.cu"
expect_refused_submission "#include_next" "$work/include_next.cu" '#include_next is not allowed'
kernels_with '#if __has_include("rubric")' '#endif' >"$work/has_include.cu"
expect_refused_submission "__has_include" "$work/has_include.cu" '__has_include is not allowed'
kernels_with '#embed "rubric"' >"$work/embed.cu"
expect_refused_submission "#embed" "$work/embed.cu" '#embed is not allowed'
kernels_with 'const char *text = R"(x)";' >"$work/raw.cu"
expect_refused_submission "a raw string" "$work/raw.cu" 'raw string literals are not allowed'
# The disguises the scan above cannot see (GCC reads the file otherwise than a lexer of ours):
# the compiler judges them, from the preprocessor's own list of the files it looks for, with
# one line and none of the preprocessor's messages.
printf '// a comment\r#include "rubric"\n' | cat - "$lab/kernels.cu" >"$work/cr.cu"
expect_refused_submission "#include after a lone CR" "$work/cr.cu" 'includes rubric: a kernels file includes only'
printf '/* a comment *\\ \n/ #include "rubric"\n// */\n' | cat - "$lab/kernels.cu" >"$work/splice.cu"
expect_refused_submission "#include after a splice with a space" "$work/splice.cu" 'includes rubric: a kernels file includes only'
printf "static const int separated = 1'0 + '/*';\n#include \"rubric\"\n// */\n" | cat - "$lab/kernels.cu" >"$work/digits.cu"
expect_refused_submission "#include after a digit separator" "$work/digits.cu" 'includes rubric: a kernels file includes only'
printf '\xef\xbb\xbf#include "%s/rubric"\n' "$lab" | cat - "$lab/kernels.cu" >"$work/bom.cu"
expect_refused_submission "#include after a byte-order mark" "$work/bom.cu" 'rubric: a kernels file includes only'
printf '// a comment\r#line 1 "not supported"\n' | cat - "$lab/kernels.cu" >"$work/line.cu"
expect_refused_submission "#line after a lone CR" "$work/line.cu" '#line and line markers'
kernels_with '#line 1 "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"' >"$work/line_plain.cu"
expect_refused_submission "#line" "$work/line_plain.cu" '#line is not allowed'

# The lab's own header and the CUDA headers are allowed (a refusal here would be wrong).
kernels_with '#include <cuda_runtime.h>' '#include <cuda_fp16.h>' >"$work/allowed.cu"
"$grade" "${coalescing[@]}" "$work/allowed.cu" --program "$program" --case strided_correct >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 3 ]] || fail "CUDA headers: exit $status, expected 3 (not gradable): $(head -n 8 "$work/out")"

# A syntax error: score 0 with the compiler's message, which names the student's file.
kernels_with '' >"$work/my_kernels.cu"
echo 'extern "C" __global__ void broken(float *out) { out[0] = 1.0f }' >>"$work/my_kernels.cu"
line=$(wc -l <"$work/my_kernels.cu")
"$grade" "${coalescing[@]}" "$work/my_kernels.cu" --program "$program" --format gradescope \
  --out "$work/gs.json" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 1 ]] || fail "compile error: exit $status, expected 1 ($(tail -n 3 "$work/err"))"
grep -q '"score":[[:space:]]*0,' "$work/gs.json" || fail "compile error: Gradescope score is not 0"
grep -q 'did not compile' "$work/gs.json" || fail "compile error: Gradescope output does not say so"
grep -q "my_kernels.cu($line): error: expected a" "$work/gs.json" ||
  fail "compile error: no compiler message naming my_kernels.cu($line) in results.json: $(head -c 600 "$work/gs.json")"
grep -q 'graded as labs/04_coalescing/kernels.cu, run by the instructor' "$work/gs.json" ||
  fail "compile error: the results do not say what the file was graded as"
grep -q 'memlab-grade-' "$work/gs.json" && fail "compile error: the results show the grader's scratch path"
grep -q 'score: 0 / ' "$work/out" || fail "compile error: the text summary is not on stdout"
"$grade" "${coalescing[@]}" "$work/my_kernels.cu" --program "$program" --format prairielearn \
  --out "$work/pl.json" >/dev/null 2>&1
grep -q '"gradable":[[:space:]]*false' "$work/pl.json" || fail "compile error: PrairieLearn gradable is not false"
grep -q '"format_errors"' "$work/pl.json" || fail "compile error: PrairieLearn has no format_errors"
grep -q 'error: expected a' "$work/pl.json" || fail "compile error: no compiler message for PrairieLearn"
grep -q '"score"' "$work/pl.json" && fail "compile error: PrairieLearn has a score"

# The lab's kernels.cu (the solution, or in a student pack the student version) compiles; with
# no device nothing is graded: the reason given, no point.
cp "$lab/kernels.cu" "$work/kernels.cu"
"$grade" "${coalescing[@]}" "$work/kernels.cu" --program "$program" --format gradescope \
  --out "$work/gs.json" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 3 ]] || fail "no device: exit $status, expected 3 ($(tail -n 3 "$work/err"))"
grep -q 'compiling the submission kernels.cu' "$work/err" || fail "no device: the grader did not compile the submission"
grep -q '"score":[[:space:]]*0,' "$work/gs.json" || fail "no device: Gradescope score is not 0"
grep -q 'NOT GRADED: the grading host has no usable CUDA device' "$work/gs.json" ||
  fail "no device: Gradescope output does not give the reason"
grep -q '"status":[[:space:]]*"passed"' "$work/gs.json" && fail "no device: a case passed"
grep -q 'NOT GRADED' "$work/out" || fail "no device: the text does not say NOT GRADED"
"$grade" "${coalescing[@]}" "$work/kernels.cu" --program "$program" --format prairielearn \
  --out "$work/pl.json" >/dev/null 2>&1
grep -q '"gradable":[[:space:]]*false' "$work/pl.json" || fail "no device: PrairieLearn gradable is not false"
grep -q 'no usable CUDA device' "$work/pl.json" || fail "no device: PrairieLearn gives no reason"

# One case, as a GitHub Classroom step runs it: its exit status says it was not graded.
"$grade" "${coalescing[@]}" "$work/kernels.cu" --program "$program" --case strided_correct \
  >"$work/out" 2>/dev/null
status=$?
[[ $status -eq 3 ]] || fail "one case, no device: exit $status, expected 3"
grep -q '^case strided_correct: NOT GRADED' "$work/out" || fail "one case: the text does not show it"
[[ $(grep -c '^case ' "$work/out") -eq 1 ]] || fail "one case: more than one case in the text"

# Host code compiles (it is parsed) but never runs: no main, no constructor of the file's is
# ever called, so what they print never shows.
cat - "$lab/kernels.cu" >"$work/host_code.cu" <<'EOF'
extern "C" int puts(const char *);
extern "C" void exit(int);
__attribute__((constructor)) static void tamper(void) { puts("TAMPERED score: 24 / 24"); exit(0); }
int main() { puts("TAMPERED main"); return 0; }
EOF
"$grade" "${coalescing[@]}" "$work/host_code.cu" --program "$program" --format gradescope \
  --out "$work/gs.json" >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 3 ]] || fail "host code: exit $status, expected 3 (it compiles; no device): $(tail -n 3 "$work/err")"
grep -q TAMPERED "$work/out" "$work/err" "$work/gs.json" && fail "host code: the file's host code ran"
grep -q '"status":[[:space:]]*"passed"' "$work/gs.json" && fail "host code: a case passed"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "grade cli: all checks passed"

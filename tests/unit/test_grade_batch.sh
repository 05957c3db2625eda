#!/usr/bin/env bash
# test_grade_batch: grading a whole class (tools/grade/batch.c), no GPU needed.
#   tests/unit/test_grade_batch.sh PATH/TO/memlab_grade PATH/TO/coalescing
#
# Most of it grades with a stand-in lab program (grade_fake_lab.sh: its "kernels" say what they
# do, WRONG, CRASH, HANG, SYNTAX_ERROR, REFUSE_ME) in a toy lab's tree, so every outcome is known:
#   - a class: each submission graded alone; a crash, a hang, a compile error, a refusal and a
#     folder without kernels.cu never stop the batch; scores.csv, canvas.csv, feedback/ and
#     results/ say what each got (hidden cases not in the feedback); exit 1;
#   - resuming: a submission not graded (no device) is graded the next time; one graded with
#     the same file, rubric and cases is not graded again and the grader says so; changing one
#     submission grades it alone again; changing the rubric grades them all;
#   - GitHub Classroom: a folder of cloned student repositories, each graded by its
#     labs/01_toy/kernels.cu (the other labs' kernels.cu left alone), a class of one clone not
#     taken for a folder of submissions; a clone whose labs/, labs/01_toy/ or kernels.cu is a
#     symbolic link leading out of it, or that lacks the lab, is that student's one line;
#   - Gradescope's export (a submission_metadata.yml written as Gradescope's documented layout,
#     a group, names with a comma and quotes, a folder missing, a folder not listed): names,
#     SIDs and emails reach both CSV files; the same export as a .zip gives the same scores;
#     a .zip whose names climb out ("../../") unpacks inside its scratch folder only;
#   - --roster: a CSV (a byte-order mark, CRLF, columns in another order, quoted fields) fills
#     Name, SID and Email of both CSV files, a formula-like name written as text, a student
#     without a submission a "no submission" row; a submission without a row (named, escaped),
#     a row of the wrong width, a missing column, a submission listed twice, an unclosed quote,
#     a missing file, --roster with an export or one submission: refused, nothing written;
#   - a submission not graded: its feedback says "not graded" and why, no "score: 0 / 6";
#   - archives (read by libarchive, no unzip program): a .zip graded where unzip would fail, a
#     .tar.gz; a zip bomb and a zip of too many entries refused before anything is written; a
#     symbolic link, __MACOSX and a dot-folder skipped and reported with their reasons;
#   - names are data: a 250-byte name, two names that differ only in a byte that is not UTF-8,
#     a dot-folder, a name with a line break, names that a spreadsheet reads as formulas; files
#     named by the hash of the name (files.csv says which), names escaped in every line, CSV
#     cells never formulas;
#   - the GPU lock: two batch graders started together while the test holds the lock both wait
#     and say for what, compile meanwhile, never overlap a run, and both finish;
#   - a host that cannot read the counters: not graded, said once at the top, score 0, every
#     case "not graded" with a few words;
#   - bad input: one line, exit 2, nothing written;
#   - beyond one GPU, with a stand-in nvidia-smi (two GPUs of one model, then of two): --gpus's
#     refusals; --gpus 0,1 and all run each submission's cases on one GPU (CUDA_VISIBLE_DEVICES
#     its UUID), both GPUs used, never two runs at once on one; the tables equal one GPU's; the
#     record keeps the model; --mixed-gpus; --shard K/N a partition (N = 1, 2, 3, 5) by the file
#     key, no submission moved when the class grows; --merge of 3 shards equal to one run byte
#     for byte, a shard missing "not graded: no shard graded it"; --status of shards done, not
#     begun, stopped (a record missing: left) and not graded;
#   - the output (students' names and emails) is left out by .gitignore and the grader image's
#     ignore file.
# And with the built coalescing program and no device (CUDA_VISIBLE_DEVICES=): every submission
# "not graded", the CSV says so, exit 3.
set -uo pipefail
grade=${1:?usage: test_grade_batch.sh MEMLAB_GRADE COALESCING_PROGRAM}
coalescing=${2:?usage: test_grade_batch.sh MEMLAB_GRADE COALESCING_PROGRAM}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
fake=$here/grade_fake_lab.sh
work=$(mktemp -d)
device=memlab-test-$$ # the lock of a device of this test's own: /tmp/memlab-gpu-$device.lock
lock=/tmp/memlab-gpu-$device.lock
# The two GPUs a stand-in nvidia-smi lists (--gpus), by UUIDs of this test's own: their locks too.
gpu_a=GPU-memlab-test-a-$$ gpu_b=GPU-memlab-test-b-$$
trap 'rm -rf "$work" "$lock" "/tmp/memlab-gpu-$gpu_a.lock" "/tmp/memlab-gpu-$gpu_b.lock"' EXIT
# Scratch folders (the graders', an unpacked .zip) go here: the test sees what is left.
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
export CUDA_VISIBLE_DEVICES=$device
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The toy lab: three cases, one hidden; a hang stops at 3 s.
tree=$work/tree
mkdir -p "$tree/labs/01_toy"
echo '// the toy lab' >"$tree/labs/01_toy/toy.cu"
cat >"$tree/labs/01_toy/rubric" <<'EOF'
timeout 3
case builds 1 visible --n 1 --metrics none
check correct
case counts 2 visible --n 2 --metrics gld_efficiency
check correct
check gld_efficiency >= 50 | load whole sectors
case secret 3 hidden --n 3 --metrics none
check correct
EOF
toy=(--root "$tree" toy)

run() { # NAME, arguments...: the grader's stdout, stderr and status in $work/NAME.{out,err,status}
  local name=$1
  shift
  "$grade" "$@" >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.status"
}
expect_status() { # NAME, status
  local got
  got=$(cat "$work/$1.status")
  [[ $got -eq $2 ]] || fail "$1: exit $got, expected $2: $(tail -n 3 "$work/$1.err")"
}
expect_line() { # FILE, the whole line it must hold
  grep -qxF -- "$2" "$1" || fail "$(basename "$1") has no line '$2': $(head -c 1500 "$1")"
}
expect_text() { # FILE, text it must hold
  grep -qF -- "$2" "$1" || fail "$(basename "$1") does not say '$2': $(head -c 1500 "$1")"
}
count_of() { # FILE, text: how many times it is there
  grep -oF -- "$2" "$1" | wc -l
}
key() { # a submission's name in its folder (ada.cu, eve, submission_101): its file key
  printf '%s' "$1" | sha256sum | cut -c1-64
}

# ---- bad input: one line, exit 2, nothing on stdout, nothing written ----------------------------
expect_refused() { # description, what the line must say, arguments...
  local what=$1 says=$2
  shift 2
  local out=$work/refused-out
  "$grade" "$@" >"$work/refused.out" 2>"$work/refused.err"
  local status=$?
  [[ $status -eq 2 ]] || fail "$what: exit $status, expected 2"
  [[ $(wc -l <"$work/refused.err") -eq 1 ]] || fail "$what: stderr has $(wc -l <"$work/refused.err") lines: $(cat "$work/refused.err")"
  grep -qF -- "$says" "$work/refused.err" || fail "$what: the line is '$(cat "$work/refused.err")', expected it to say '$says'"
  [[ ! -s $work/refused.out ]] || fail "$what: wrote to stdout"
  [[ ! -e $out ]] || fail "$what: made the output folder"
  [[ -z $(ls -A "$TMPDIR") ]] || fail "$what: left scratch files: $(ls -A "$TMPDIR")"
}
out=$work/refused-out
mkdir -p "$work/empty" "$work/no_cu" "$work/bad_yml/submission_1" "$work/class1"
echo 'a readme' >"$work/no_cu/README.md"
printf 'submission_1:\n\t:submitters: []\n' >"$work/bad_yml/submission_metadata.yml"
echo '// ada' >"$work/bad_yml/submission_1/kernels.cu"
echo '// ada' >"$work/class1/ada.cu"
echo 'not a zip' >"$work/notzip.zip"
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").close()' "$work/empty.zip" ||
  fail "python3 could not write an empty zip"
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z: z.writestr("ada.cu", "// ada\n")' "$work/class1.zip" ||
  fail "python3 could not write a zip"
echo 'a file' >"$work/afile"
expect_refused "a missing folder" "no submission $work/none (no such file)" \
  "${toy[@]}" "$work/none" --program "$fake" --out "$out"
expect_refused "an empty folder" "$work/empty is empty" "${toy[@]}" "$work/empty" --program "$fake" --out "$out"
expect_refused "a folder without a submission" "$work/no_cu holds no submission (only README.md)" \
  "${toy[@]}" "$work/no_cu" --program "$fake" --out "$out"
expect_refused "a .zip that is not one" "$work/notzip.zip is not a zip archive" \
  "${toy[@]}" "$work/notzip.zip" --program "$fake" --out "$out"
expect_refused "an empty .zip" "$work/empty.zip is empty" "${toy[@]}" "$work/empty.zip" --program "$fake" --out "$out"
# Limits of an archive, counted before anything is written: 10,001 entries; a zip bomb (two
# kilobytes of data whose headers declare 1.5 GiB, as a forger writes them).
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for i in range(10001): z.writestr("f%05d.cu" % i, "")' "$work/many.zip" || fail "python3 could not write a zip"
expect_refused "a .zip of 10,001 entries" "$work/many.zip holds more than 10000 entries, the limit for an archive" \
  "${toy[@]}" "$work/many.zip" --program "$fake" --out "$out"
python3 -c 'import struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("ada.cu", "// right\n")
    z.writestr("bomb1.bin", bytes(1024))
    z.writestr("bomb2.bin", bytes(1024))
data = bytearray(open(sys.argv[1], "rb").read())
for signature, name_at, size_at, header in ((b"PK\x03\x04", 26, 22, 30), (b"PK\x01\x02", 28, 24, 46)):
    at = data.find(signature)
    while at >= 0:
        length = struct.unpack_from("<H", data, at + name_at)[0]
        if data[at + header:at + header + length].startswith(b"bomb"):
            struct.pack_into("<I", data, at + size_at, 0x30000000)
        at = data.find(signature, at + 4)
open(sys.argv[1], "wb").write(data)' "$work/bomb.zip" || fail "python3 could not write the zip bomb"
expect_refused "a zip bomb" "$work/bomb.zip declares more than 1 GiB of files, the limit for an archive" \
  "${toy[@]}" "$work/bomb.zip" --program "$fake" --out "$out"
expect_refused "an unknown lab" "no lab 'nolab' here" --root "$tree" nolab "$work/class1" --program "$fake" --out "$out"
expect_refused "an output folder that cannot be made" "cannot make /nonexistent/grades" \
  "${toy[@]}" "$work/class1" --program "$fake" --out /nonexistent/grades
expect_refused "an output that is a file" "--out $work/afile is not a folder" \
  "${toy[@]}" "$work/class1" --program "$fake" --out "$work/afile"
expect_refused "--format for a batch" "--format is for one submission" \
  "${toy[@]}" "$work/class1" --program "$fake" --out "$out" --format gradescope
expect_refused "--jobs 0" "--jobs is a whole number from 1 to 64, got '0'" \
  "${toy[@]}" "$work/class1" --program "$fake" --out "$out" --jobs 0
expect_refused "a submission_metadata.yml that does not read" "submission_metadata.yml:2: a tab in the indentation" \
  "${toy[@]}" "$work/bad_yml" --program "$fake" --out "$out"

# ---- a class: every outcome, and resuming -----------------------------------------------------------
class=$work/class
mkdir -p "$class/eve" "$class/fay" "$class/gus"
echo '// ada: right' >"$class/ada.cu"
echo '// ben: WRONG' >"$class/ben.cu"
echo '// cy: SYNTAX_ERROR' >"$class/cy.cu"
echo '// dee: REFUSE_ME' >"$class/dee.cu"
echo '// eve: CRASH' >"$class/eve/kernels.cu"
echo '// fay: HANG' >"$class/fay/kernels.cu"
echo 'notes, no kernels' >"$class/gus/notes.txt"
echo 'the assignment' >"$class/README.md"
grades=$work/grades
export FAKE_LAB_LOG=$work/runs.log

# No device: nothing graded but what the compile decides (a compile error, a refusal).
CUDA_VISIBLE_DEVICES='' run nodevice "${toy[@]}" "$class" --program "$fake" --out "$grades"
expect_status nodevice 3
expect_line "$grades/scores.csv" ",,,ada,,6,not graded: no usable CUDA device,,,"
expect_line "$grades/scores.csv" ",,,cy,0,6,did not compile,0,0,0"
grep -q '^ada,' "$grades/canvas.csv" && fail "canvas.csv has a score for ada, who was not graded"
expect_text "$work/nodevice.out" "not graded       4: ada (no usable CUDA device); ben (no usable CUDA device)"
# A student's feedback says not graded, and why, where a score would be: no "score: 0 / 6".
expect_text "$grades/feedback/$(key ada.cu).txt" "not graded: no usable CUDA device (no score until it is graded; 0 of 3 cases passed, 3 not graded)"
expect_text "$grades/feedback/$(key ada.cu).txt" "case builds: NOT GRADED (1 points when graded)"
expect_text "$grades/feedback/$(key ada.cu).txt" "so no score is given until the submission is graded"
grep -q 'score: 0 /\|score is 0\|0 / [0-9]* points' "$grades/feedback/$(key ada.cu).txt" &&
  fail "nodevice: ada's feedback scores 0: $(cat "$grades/feedback/$(key ada.cu).txt")"
expect_text "$grades/feedback/$(key cy.cu).txt" "score: 0 / 6" # a compile error is a grade

# With the device: what was not graded is graded now; the compile's verdicts are kept.
: >"$FAKE_LAB_LOG"
run class "${toy[@]}" "$class" --program "$fake" --out "$grades"
expect_status class 1
expect_line "$grades/scores.csv" "Name,SID,Email,Submission ID,Total Score,Max Points,Status,builds (1 pts),counts (2 pts),secret (3 pts)"
expect_line "$grades/scores.csv" ",,,ada,6,6,passed,1,2,3"
expect_line "$grades/scores.csv" ",,,ben,0,6,failed,0,0,0"
expect_line "$grades/scores.csv" ",,,cy,0,6,did not compile,0,0,0"
grep -q '^,,,dee,0,6,"refused: toy: dee.cu: line 1: #include ""rubric"" is not allowed' "$grades/scores.csv" ||
  fail "scores.csv: dee's row does not give the refusal: $(grep dee "$grades/scores.csv")"
expect_line "$grades/scores.csv" ",,,eve,4,6,failed,1,0,3"
expect_line "$grades/scores.csv" ",,,fay,3,6,failed,1,2,0"
expect_line "$grades/scores.csv" ",,,gus,,6,no submission: its folder holds no kernels.cu and no labs/01_toy/,,,"
[[ $(wc -l <"$grades/scores.csv") -eq 8 ]] || fail "scores.csv: $(wc -l <"$grades/scores.csv") lines, expected a header and 7 rows"
expect_line "$grades/canvas.csv" "Student,ID,SIS User ID,SIS Login ID,Section,toy"
expect_line "$grades/canvas.csv" "Points Possible,,,,,6"
expect_line "$grades/canvas.csv" "ada,,,,,6"
expect_line "$grades/canvas.csv" "cy,,,,,0"
grep -q '^gus,' "$grades/canvas.csv" && fail "canvas.csv has a row for gus, who has no score"
expect_text "$work/class.err" "graded before with this file, rubric and cases, not graded again: 0 / 6, it did not compile"
[[ $(count_of "$work/class.err" "not graded again") -eq 2 ]] || fail "class: kept $(count_of "$work/class.err" "not graded again") submissions, expected cy and dee"
expect_line "$FAKE_LAB_LOG" "compile ada.cu"
expect_line "$FAKE_LAB_LOG" "compile ben.cu"
[[ $(grep -c '^compile kernels.cu$' "$FAKE_LAB_LOG") -eq 2 ]] || fail "class: eve's and fay's kernels.cu were not compiled"
grep -q 'compile cy.cu\|compile dee.cu' "$FAKE_LAB_LOG" && fail "class: cy or dee was compiled again"
expect_text "$work/class.err" "7/7 gus: no submission: its folder holds no kernels.cu and no labs/01_toy/"
expect_text "$work/class.err" "elapsed, about"
expect_text "$work/class.out" "passed           1: ada"
expect_text "$work/class.out" "failed           3: ben, eve, fay"
expect_text "$work/class.out" "did not compile  1: cy"
expect_text "$work/class.out" "refused          1: dee (toy: dee.cu: line 1: #include \"rubric\" is not allowed"
expect_text "$work/class.out" "no submission    1: gus (its folder holds no kernels.cu and no labs/01_toy/)"
expect_text "$work/class.out" "ignored          1 file, not .cu: README.md"
expect_text "$work/class.out" "(2 graded before with the same file, rubric and cases: kept)"
# Each submission alone: the crash and the hang are in their own results.
# Each submission's files are named by its file key; files.csv says which are whose.
eve=$(key eve) fay=$(key fay) ada=$(key ada.cu)
expect_text "$grades/results/$eve.txt" "case counts: FAIL, 0 / 2 points"
expect_text "$grades/results/$eve.txt" "crashed: killed by signal 11"
expect_text "$grades/results/$fay.txt" "ran past the case's time limit (3 s)"
grep -q '"score":[[:space:]]*6,' "$grades/results/$ada.json" || fail "results/$ada.json (ada's) does not score 6"
expect_line "$grades/files.csv" "Submission ID,Feedback,Results,Report"
expect_line "$grades/files.csv" "ada,feedback/$ada.txt,results/$ada.json,results/$ada.txt"
expect_line "$grades/files.csv" "eve,feedback/$eve.txt,results/$eve.json,results/$eve.txt"
[[ $(wc -l <"$grades/files.csv") -eq 8 ]] || fail "files.csv: $(wc -l <"$grades/files.csv") lines, expected a header and 7 rows"
# The feedback is what Gradescope shows a student: no hidden case.
expect_text "$grades/feedback/$ada.txt" "score: 6 / 6 (3 of 3 cases passed)"
expect_text "$grades/feedback/$ada.txt" "case counts: PASS, 2 / 2 points"
expect_text "$grades/feedback/$ada.txt" "1 hidden case is counted in the score; its result is not shown."
grep -q secret "$grades/feedback/$ada.txt" && fail "feedback/$ada.txt (ada's) shows the hidden case"
grep -q secret "$grades/results/$ada.txt" || fail "results/$ada.txt (ada's, the instructor's) lacks the hidden case"
expect_text "$grades/feedback/$(key cy.cu).txt" "The submission did not compile"
expect_text "$grades/feedback/$(key gus).txt" "No submission was graded: its folder holds no kernels.cu and no labs/01_toy/."
[[ -z $(ls -A "$TMPDIR") ]] || fail "class: scratch left behind: $(ls -A "$TMPDIR")"

# Again: nothing is graded again, and the grader says so; the scores stay.
cp "$grades/scores.csv" "$work/scores.before"
: >"$FAKE_LAB_LOG"
run again "${toy[@]}" "$class" --program "$fake" --out "$grades"
expect_status again 1
[[ $(count_of "$work/again.err" "not graded again") -eq 6 ]] || fail "again: $(count_of "$work/again.err" "not graded again") of 6 submissions kept"
[[ ! -s $FAKE_LAB_LOG ]] || fail "again: the lab program ran: $(head -n 3 "$FAKE_LAB_LOG")"
cmp -s "$grades/scores.csv" "$work/scores.before" || fail "again: scores.csv changed"

# One submission changed: it alone is graded again.
echo '// ben: fixed' >"$class/ben.cu"
run changed "${toy[@]}" "$class" --program "$fake" --out "$grades"
expect_status changed 1
[[ $(count_of "$work/changed.err" "not graded again") -eq 5 ]] || fail "changed: $(count_of "$work/changed.err" "not graded again") kept, expected 5"
[[ $(grep -c '^compile' "$FAKE_LAB_LOG") -eq 1 ]] && expect_line "$FAKE_LAB_LOG" "compile ben.cu" ||
  fail "changed: compiled $(grep '^compile' "$FAKE_LAB_LOG" | tr '\n' ' '), expected ben.cu alone"
expect_line "$grades/scores.csv" ",,,ben,6,6,passed,1,2,3"

# The rubric changed: every submission is graded again.
echo '# a comment' >>"$tree/labs/01_toy/rubric"
: >"$FAKE_LAB_LOG"
run rubric "${toy[@]}" "$class" --program "$fake" --out "$grades"
expect_status rubric 1
[[ $(count_of "$work/rubric.err" "not graded again") -eq 0 ]] || fail "rubric: a submission was kept after the rubric changed"
[[ $(grep -c '^compile' "$FAKE_LAB_LOG") -eq 6 ]] || fail "rubric: $(grep -c '^compile' "$FAKE_LAB_LOG") compiles, expected 6"
unset FAKE_LAB_LOG

# ---- GitHub Classroom: a folder of cloned student repositories --------------------------------
# Each clone is the student pack's tree (labs/NN_LAB/ of every lab, git's .git/, tests/, ...): the
# grader takes labs/01_toy/kernels.cu, the lab graded, and no other .cu (each other one says
# WRONG: lab-ann's full score shows that none of them was graded).
clones=$work/clones
outside=$work/outside # what a link may point at: a right answer outside the student's folder
mkdir -p "$outside/01_toy"
echo '// right' >"$outside/01_toy/kernels.cu"
clone() { # NAME, what its labs/01_toy/kernels.cu says
  mkdir -p "$clones/$1/.git" "$clones/$1/labs/01_toy" "$clones/$1/labs/02_other" "$clones/$1/tests"
  echo 'the student pack' >"$clones/$1/README.md"
  echo '// the other lab: WRONG' >"$clones/$1/labs/02_other/kernels.cu"
  echo '// not the submission: WRONG' >"$clones/$1/tests/only.cu"
  echo "// $1: $2" >"$clones/$1/labs/01_toy/kernels.cu"
}
clone lab-ann right
clone lab-bo WRONG
clone lab-linked-labs right
rm -r "$clones/lab-linked-labs/labs"
ln -s "$outside" "$clones/lab-linked-labs/labs"
clone lab-linked-lab right
rm -r "$clones/lab-linked-lab/labs/01_toy"
ln -s "$outside/01_toy" "$clones/lab-linked-lab/labs/01_toy"
clone lab-linked-file right
ln -sf "$outside/01_toy/kernels.cu" "$clones/lab-linked-file/labs/01_toy/kernels.cu"
clone lab-other-course right
rm -r "$clones/lab-other-course/labs/01_toy"
export FAKE_LAB_LOG=$work/clones.log
run clones "${toy[@]}" "$clones" --program "$fake" --out "$work/clone-grades"
expect_status clones 1
scores=$work/clone-grades/scores.csv
expect_line "$scores" ",,,lab-ann,6,6,passed,1,2,3"
expect_line "$scores" ",,,lab-bo,0,6,failed,0,0,0"
expect_line "$scores" ",,,lab-linked-labs,,6,no submission: its labs is a symbolic link; links are never followed: one could lead out of the student's folder,,,"
expect_line "$scores" ",,,lab-linked-lab,,6,no submission: its labs/01_toy is a symbolic link; links are never followed: one could lead out of the student's folder,,,"
expect_line "$scores" ",,,lab-linked-file,,6,\"no submission: it is a symbolic link, not the file itself\",,,"
expect_line "$scores" ",,,lab-other-course,,6,no submission: its labs/01_toy is not there,,,"
[[ $(wc -l <"$scores") -eq 7 ]] || fail "clones: scores.csv has $(wc -l <"$scores") lines, expected a header and 6 rows: $(cat "$scores")"
[[ $(grep -c '^compile kernels.cu$' "$FAKE_LAB_LOG") -eq 2 ]] ||
  fail "clones: compiled $(grep '^compile' "$FAKE_LAB_LOG" | tr '\n' ' '), expected two kernels.cu (ann's and bo's)"
expect_text "$work/clones.out" "no submission    4: lab-linked-file (it is a symbolic link, not the file itself)"
# A class of one clone: the clone is the submission, not a folder of submissions (labs, tests).
mkdir -p "$work/one-clone"
cp -R "$clones/lab-ann" "$work/one-clone/"
run one-clone "${toy[@]}" "$work/one-clone" --program "$fake" --out "$work/one-clone-grades"
expect_status one-clone 0
expect_line "$work/one-clone-grades/scores.csv" ",,,lab-ann,6,6,passed,1,2,3"
[[ $(wc -l <"$work/one-clone-grades/scores.csv") -eq 2 ]] ||
  fail "one clone: scores.csv is $(cat "$work/one-clone-grades/scores.csv")"
# A folder of clones with no clone of the lab in any, and nothing else: every student's line.
mkdir -p "$work/no-lab/lab-cy/labs/02_other"
run no-lab "${toy[@]}" "$work/no-lab" --program "$fake" --out "$work/no-lab-grades"
expect_status no-lab 1
expect_line "$work/no-lab-grades/scores.csv" ",,,lab-cy,,6,no submission: its labs/01_toy is not there,,,"
unset FAKE_LAB_LOG

# ---- Gradescope's export ------------------------------------------------------------------------
# As Gradescope's "Export Submissions" lays it out: assignment_ID_export/ holding one folder per
# submission and submission_metadata.yml, keyed by folder, :submitters with :name, :sid, :email.
exported=$work/export/assignment_8046601_export
mkdir -p "$exported/submission_101" "$exported/submission_102" "$exported/submission_104"
cat >"$exported/submission_metadata.yml" <<'EOF'
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2026-04-26 17:34:00.861687000 Z
  :score: 0.0
  :results:
    score: 0.0
    output: |-
      what the autograder said, which can be anything:
      :submitters:
      - :name: Not A Student
submission_102:
  :submitters:
  - :name: "Hopper, Grace \"Amazing\""
    :sid: '1906'
    :email: grace@example.edu
  - :name: 'Kay O''Neil'
    :sid: 1940
    :email: kay@example.edu
  :created_at: 2026-04-27 09:00:00.000000000 Z
submission_103:
  :submitters:
  - :name: Missing Folder
    :sid: '2000'
    :email: missing@example.edu
EOF
echo '// right' >"$exported/submission_101/kernels.cu"
echo '// WRONG' >"$exported/submission_102/kernels.cu"
echo '// right, not named kernels.cu' >"$exported/submission_104/my_kernels.cu"
run export "${toy[@]}" "$work/export" --program "$fake" --out "$work/export-grades"
expect_status export 1
scores=$work/export-grades/scores.csv
expect_line "$scores" "Ada Lovelace,1815,ada@example.edu,submission_101,6,6,passed,1,2,3"
expect_line "$scores" '"Hopper, Grace ""Amazing""",1906,grace@example.edu,submission_102,0,6,failed,0,0,0'
expect_line "$scores" "Kay O'Neil,1940,kay@example.edu,submission_102,0,6,failed,0,0,0"
expect_line "$scores" 'Missing Folder,2000,missing@example.edu,submission_103,,6,"no submission: submission_metadata.yml lists it, but its folder is not there",,,'
expect_line "$scores" ",,,submission_104,6,6,passed,1,2,3"
grep -q "Not A Student" "$scores" && fail "export: a name from an autograder's output reached scores.csv"
canvas=$work/export-grades/canvas.csv
expect_line "$canvas" "Ada Lovelace,,1815,ada@example.edu,,6"
expect_line "$canvas" '"Hopper, Grace ""Amazing""",,1906,grace@example.edu,,0'
grep -q "Missing Folder" "$canvas" && fail "canvas.csv has a row for a student without a score"
expect_line "$canvas" "submission_104,,,,,6"
[[ -f $work/export-grades/feedback/$(key submission_101).txt ]] || fail "export: no feedback for submission_101"

# The same export as a .zip: the same scores; nothing left in the scratch folder.
(cd "$work/export" && python3 -c 'import os, sys, zipfile
with zipfile.ZipFile("../export.zip", "w") as z:
    for folder, _, files in os.walk("assignment_8046601_export"):
        for name in files: z.write(os.path.join(folder, name))') || fail "python3 could not zip the export"
run zip "${toy[@]}" "$work/export.zip" --program "$fake" --out "$work/zip-grades"
expect_status zip 1
cmp -s "$scores" "$work/zip-grades/scores.csv" ||
  fail "the export as a .zip scores otherwise: $(diff "$scores" "$work/zip-grades/scores.csv")"
[[ -z $(ls -A "$TMPDIR") ]] || fail "zip: the unpacked archive was left behind: $(ls -A "$TMPDIR")"

# A .zip whose names climb out of it: unpacked inside its scratch folder, graded there.
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("ada.cu", "// right\n")
    z.writestr("ben/kernels.cu", "// right\n")
    z.writestr("../../escaped.cu", "// right\n")' "$work/climb.zip" || fail "python3 could not write a zip"
run climb "${toy[@]}" "$work/climb.zip" --program "$fake" --out "$work/climb-grades"
expect_status climb 0
[[ ! -e $work/escaped.cu && ! -e $TMPDIR/escaped.cu ]] || fail "a name with ../ was unpacked outside the scratch folder"
expect_line "$work/climb-grades/scores.csv" ",,,escaped,6,6,passed,1,2,3"
expect_line "$work/climb-grades/scores.csv" ",,,ben,6,6,passed,1,2,3"
expect_line "$work/climb.out" "  renamed          ../../escaped.cu (in $work/climb.zip): unpacked as escaped.cu (a name may not begin at '/' or climb out with '..')"

# ---- --roster: a folder's students by submission name ---------------------------------------------
# A spreadsheet's CSV: a byte-order mark, CRLF, the columns in another order and case, one more
# column, quoted fields, an empty line; a student without a submission; cells a spreadsheet
# reads as formulas.
rostered=$work/rostered
mkdir -p "$rostered/ben" "$rostered/cloned/labs/01_toy"
echo '// right' >"$rostered/ada.cu"
echo '// WRONG' >"$rostered/ben/kernels.cu"
echo '// right' >"$rostered/cloned/labs/01_toy/kernels.cu"
printf '\xef\xbb\xbfName,SID,Email,Section,Submission\r\n%s\r\n%s\r\n%s\r\n\r\n%s\r\n' \
  'Ada Lovelace,1815,ada@example.edu,A,ada' \
  '"Hopper, Grace ""Amazing""",1906,grace@example.edu,B,ben' \
  '"=HYPERLINK(""http://x"")",42,"@evil",A,cloned' \
  'Zed Absent,7,zed@example.edu,A,zed' >"$work/roster.csv"
run roster "${toy[@]}" "$rostered" --roster "$work/roster.csv" --program "$fake" --out "$work/roster-grades"
expect_status roster 1
scores=$work/roster-grades/scores.csv
q="'"
expect_line "$scores" "Ada Lovelace,1815,ada@example.edu,ada,6,6,passed,1,2,3"
expect_line "$scores" '"Hopper, Grace ""Amazing""",1906,grace@example.edu,ben,0,6,failed,0,0,0'
expect_line "$scores" "\"${q}=HYPERLINK(\"\"http://x\"\")\",42,\"${q}@evil\",cloned,6,6,passed,1,2,3"
expect_line "$scores" 'Zed Absent,7,zed@example.edu,zed,,6,"no submission: the --roster lists it, but the folder has no such submission",,,'
[[ $(wc -l <"$scores") -eq 5 ]] || fail "roster: scores.csv has $(wc -l <"$scores") lines, expected a header and 4 rows: $(cat "$scores")"
canvas=$work/roster-grades/canvas.csv
expect_line "$canvas" "Ada Lovelace,,1815,ada@example.edu,,6"
expect_line "$canvas" "\"${q}=HYPERLINK(\"\"http://x\"\")\",,42,\"${q}@evil\",,6"
grep -q '^[=+@-]\|,[=+@-]' "$scores" "$canvas" && fail "roster: a CSV cell begins with a formula: $(grep '^[=+@-]\|,[=+@-]' "$scores" "$canvas")"
grep -q "Zed" "$canvas" && fail "roster: canvas.csv has a row for a student without a score"
expect_text "$work/roster.out" "no submission    1: zed (the --roster lists it, but the folder has no such submission)"

# What a roster is refused for: one line, exit 2, nothing graded or written. Submissions
# without a row are named (escaped: a name is data).
echo '// right' >"$rostered/"$'new\nline.cu'
printf 'submission,sid,email,name\nada,1,a@x,Ada\n' >"$work/roster-short.csv"
export FAKE_LAB_LOG=$work/roster.log
: >"$FAKE_LAB_LOG"
expect_refused "--roster without a row for a submission" \
  "--roster $work/roster-short.csv has no row for 3 submissions of $rostered: ben, cloned, new\u{000a}line (add a row" \
  "${toy[@]}" "$rostered" --roster "$work/roster-short.csv" --program "$fake" --out "$out"
[[ ! -s $FAKE_LAB_LOG ]] || fail "--roster unmatched: a submission was compiled or run: $(cat "$FAKE_LAB_LOG")"
unset FAKE_LAB_LOG
rm -f "$rostered/"$'new\nline.cu'
printf 'submission,sid,email,name\r\nada,1,a@x,Ada\r\nben,2,b@x\r\n' >"$work/roster-width.csv"
expect_refused "a roster row of the wrong width" "--roster $work/roster-width.csv:3: a row of 3 fields, but the header has 4" \
  "${toy[@]}" "$rostered" --roster "$work/roster-width.csv" --program "$fake" --out "$out"
printf 'submission,sid,name\nada,1,Ada\n' >"$work/roster-column.csv"
expect_refused "a roster without an email column" "--roster $work/roster-column.csv:1: the header has no 'email' column" \
  "${toy[@]}" "$rostered" --roster "$work/roster-column.csv" --program "$fake" --out "$out"
printf 'submission,sid,email,name\nada,1,a@x,Ada\nben,2,b@x,Ben\nada,3,c@x,Cy\n' >"$work/roster-twice.csv"
expect_refused "a roster that lists a submission twice" "--roster $work/roster-twice.csv:4: the submission of this row is listed on line 2 too" \
  "${toy[@]}" "$rostered" --roster "$work/roster-twice.csv" --program "$fake" --out "$out"
printf 'submission,sid,email,name\nada,1,a@x,"Ada\n' >"$work/roster-quote.csv"
expect_refused "a roster with a quote that does not end" "--roster $work/roster-quote.csv:2: a quoted field that does not end" \
  "${toy[@]}" "$rostered" --roster "$work/roster-quote.csv" --program "$fake" --out "$out"
expect_refused "a roster that is not there" "--roster cannot read $work/no-roster.csv" \
  "${toy[@]}" "$rostered" --roster "$work/no-roster.csv" --program "$fake" --out "$out"
expect_refused "--roster with Gradescope's export" "--roster $work/roster.csv: $work/export is Gradescope's export" \
  "${toy[@]}" "$work/export" --roster "$work/roster.csv" --program "$fake" --out "$out"
expect_refused "--roster for one submission" "--roster is for a batch" \
  "${toy[@]}" "$rostered/ada.cu" --roster "$work/roster.csv" --program "$fake" --out "$out"

# ---- archives without unzip; names are data ---------------------------------------------------
# A .zip where the unzip program would fail (one on the PATH that says so): libarchive reads it.
mkdir -p "$work/no-unzip"
printf '#!/bin/sh\necho ran >"%s/unzip-ran"\nexit 9\n' "$work" >"$work/no-unzip/unzip"
chmod +x "$work/no-unzip/unzip"
PATH=$work/no-unzip:$PATH run no-unzip "${toy[@]}" "$work/class1.zip" --program "$fake" --out "$work/no-unzip-grades"
expect_status no-unzip 0
expect_line "$work/no-unzip-grades/scores.csv" ",,,ada,6,6,passed,1,2,3"
[[ ! -e $work/unzip-ran ]] || fail "no-unzip: the grader ran the unzip program"

# A class of names a grader must take as data.
names=$work/names
long=$(printf 'n%.0s' $(seq 250))
mkdir -p "$names/$long" "$names/.alice" "$names/__MACOSX"
for name in "$long/kernels" $'a\xff' $'a\xfe' .alice/kernels $'new\nline' '=HYPERLINK("x")' +3003 @x -1; do
  echo '// right' >"$names/$name.cu"
done
echo '// right' >"$names/__MACOSX/._a.cu"
echo 'junk' >"$names/.DS_Store"
run names "${toy[@]}" "$names" --program "$fake" --out "$work/names-grades"
expect_status names 0
scores=$work/names-grades/scores.csv
expect_line "$scores" ",,,$long,6,6,passed,1,2,3"
expect_line "$scores" ',,,a\xff,6,6,passed,1,2,3'
expect_line "$scores" ',,,a\xfe,6,6,passed,1,2,3'
expect_line "$scores" ',,,new\u{000a}line,6,6,passed,1,2,3'
q="'" # a formula's cell: quoted, a single quote first
expect_line "$scores" ",,,\"${q}=HYPERLINK(\"\"x\"\")\",6,6,passed,1,2,3"
expect_line "$scores" ",,,\"${q}+3003\",6,6,passed,1,2,3"
expect_line "$scores" ",,,\"${q}@x\",6,6,passed,1,2,3"
expect_line "$scores" ",,,\"${q}-1\",6,6,passed,1,2,3"
[[ $(wc -l <"$scores") -eq 9 ]] || fail "names: scores.csv has $(wc -l <"$scores") lines, expected a header and 8 rows: $(cat "$scores")"
canvas=$work/names-grades/canvas.csv
for cell in "\"${q}=HYPERLINK(\"\"x\"\")\"" "\"${q}+3003\"" "\"${q}@x\"" "\"${q}-1\"" 'a\xff' 'new\u{000a}line'; do
  expect_line "$canvas" "$cell,,,,,6"
done
grep -q '^[=+@-]' "$scores" "$canvas" && fail "names: a CSV cell begins with a formula: $(grep '^[=+@-]' "$scores" "$canvas")"
# Each by the hash of its name: the 250-byte name and the bytes that are not UTF-8 too.
for name in "$long" $'a\xff.cu' $'a\xfe.cu' $'new\nline.cu' '=HYPERLINK("x").cu'; do
  [[ -f $work/names-grades/results/$(key "$name").record ]] || fail "names: no record for $(printf '%q' "$name")"
done
expect_line "$work/names-grades/files.csv" "a\xff,feedback/$(key $'a\xff.cu').txt,results/$(key $'a\xff.cu').json,results/$(key $'a\xff.cu').txt"
expect_text "$work/names-grades/feedback/$(key $'new\nline.cu').txt" "new\u{000a}line"
# What was left out, each with its reason; no line is broken by a name.
expect_line "$work/names.out" "  skipped          .DS_Store: a hidden name (it starts with a dot), no submission: rename it to grade it"
expect_line "$work/names.out" "  skipped          .alice: a hidden name (it starts with a dot), no submission: rename it to grade it"
expect_line "$work/names.out" "  skipped          __MACOSX: the Finder's metadata folder of a zip, no submission"
expect_text "$work/names.out" "passed           8: "
expect_text "$work/names.out" ", new\u{000a}line"
grep -q '^line' "$work/names.out" "$work/names.err" && fail "names: a name broke a line: $(grep '^line' "$work/names.out" "$work/names.err")"
# Graded once: the next run keeps every one (a long name is not graded again every run).
run names-again "${toy[@]}" "$names" --program "$fake" --out "$work/names-grades"
expect_status names-again 0
[[ $(count_of "$work/names-again.err" "not graded again") -eq 8 ]] ||
  fail "names again: $(count_of "$work/names-again.err" "not graded again") of 8 kept"

# As a .zip with a symbolic link, and as a .tar.gz: the same scores (the names that are UTF-8;
# Python writes no other into a zip); each entry left out said with its reason.
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name in ("ada.cu", "=HYPERLINK(\"x\").cu", "new\nline.cu", "ben/kernels.cu", "__MACOSX/._ada.cu"):
        z.writestr(name, "// right\n")
    link = zipfile.ZipInfo("passwd.cu")
    link.external_attr = 0o120777 << 16
    z.writestr(link, "/etc/passwd")' "$work/odd.zip" || fail "python3 could not write a zip"
run odd "${toy[@]}" "$work/odd.zip" --program "$fake" --out "$work/odd-grades"
expect_status odd 0
expect_line "$work/odd.out" "  skipped          passwd.cu (in $work/odd.zip): a symbolic link (links are never followed or made)"
expect_line "$work/odd.out" "  skipped          __MACOSX: the Finder's metadata folder of a zip, no submission"
expect_line "$work/odd-grades/scores.csv" ",,,\"${q}=HYPERLINK(\"\"x\"\")\",6,6,passed,1,2,3"
expect_line "$work/odd-grades/scores.csv" ',,,new\u{000a}line,6,6,passed,1,2,3'
grep -q passwd "$work/odd-grades/scores.csv" && fail "odd: the symbolic link was graded"
python3 -c 'import sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t: t.add(sys.argv[2], arcname="class")' "$work/class.tar.gz" "$class" ||
  fail "python3 could not write a .tar.gz"
run targz "${toy[@]}" "$work/class.tar.gz" --program "$fake" --out "$work/targz-grades"
expect_status targz 1
expect_line "$work/targz-grades/scores.csv" ",,,ben,6,6,passed,1,2,3"
expect_line "$work/targz-grades/scores.csv" ",,,gus,,6,no submission: its folder holds no kernels.cu and no labs/01_toy/,,,"
[[ -z $(ls -A "$TMPDIR") ]] || fail "archives: scratch left behind: $(ls -A "$TMPDIR")"

# ---- the GPU lock ---------------------------------------------------------------------------------
# The test holds the lock (as a grader would: the file says who) while two batch graders start
# together: both wait and say for what, compile meanwhile, and then take turns, never overlapping.
mkdir -p "$work/lock-a" "$work/lock-b"
for name in a1 a2 a3; do echo "// $name" >"$work/lock-a/$name.cu"; done
for name in b1 b2 b3; do echo "// $name" >"$work/lock-b/$name.cu"; done
printf 'owner 1\npid 99999: the test, holding the lock (since now)\n' >"$lock"
flock "$lock" sleep 2 &
holder=$!
for _ in $(seq 100); do flock -n "$lock" true || break; sleep 0.05; done
flock -n "$lock" true && fail "lock: the test could not take the lock"
export FAKE_LAB_LOG=$work/lock.log FAKE_LAB_SLEEP=0.2
"$grade" "${toy[@]}" "$work/lock-a" --program "$fake" --out "$work/lock-a-grades" --jobs 2 \
  >"$work/lock-a.out" 2>"$work/lock-a.err" &
first=$!
"$grade" "${toy[@]}" "$work/lock-b" --program "$fake" --out "$work/lock-b-grades" \
  >"$work/lock-b.out" 2>"$work/lock-b.err" &
second=$!
# Once the test lets go, the file names the grader that holds the lock, and for what.
wait "$holder"
named=""
for _ in $(seq 100); do
  # A submission's cases run together (the cases of a1), a case run alone by name.
  named=$(grep -E '^pid [0-9]+: (the cases|case (builds|counts|secret)) of [ab][123] \(since [0-9:]+\)$' "$lock")
  [[ -z $named ]] || break
  sleep 0.02
done
[[ -n $named ]] || fail "lock: while the graders ran, the lock file never named its holder: $(cat "$lock")"
wait "$first"
first_status=$?
wait "$second"
second_status=$?
unset FAKE_LAB_LOG FAKE_LAB_SLEEP
[[ $first_status -eq 0 && $second_status -eq 0 ]] || fail "lock: the graders exited $first_status and $second_status, expected 0 and 0"
for name in lock-a lock-b; do
  expect_text "$work/$name.err" "memlab grade: waiting for GPU $device: $lock is held by pid 99999: the test, holding the lock (since now)"
done
awk '
  $1 == "begin" { if (open != "") { print "run " $2 " began while " open " ran"; bad = 1 } open = $2; runs++ }
  $1 == "end" { if (open != $2) { print "run " $2 " ended, but " open " was running"; bad = 1 } open = "" }
  END { if (runs != 18) { print runs " runs, expected 18"; bad = 1 } exit bad }
' "$work/lock.log" >"$work/lock.check" || fail "lock: runs overlapped: $(cat "$work/lock.check")"
# Compiles do not wait for the GPU: three (two of one grader's --jobs 2, one of the other's)
# came before the first run.
[[ $(awk '$1 == "begin" { exit } $1 == "compile" { n++ } END { print n + 0 }' "$work/lock.log") -ge 3 ]] ||
  fail "lock: the compiles waited for the GPU: $(head -n 5 "$work/lock.log")"
for name in a1 a2 a3; do expect_line "$work/lock-a-grades/scores.csv" ",,,$name,6,6,passed,1,2,3"; done
for name in b1 b2 b3; do expect_line "$work/lock-b-grades/scores.csv" ",,,$name,6,6,passed,1,2,3"; done
[[ ! -s $lock ]] || fail "lock: the lock file still names a holder: $(cat "$lock")"

# ---- not graded reads as such: counters not readable ------------------------------------------------
echo '// right' >"$work/right.cu"
for format in text gradescope prairielearn; do
  FAKE_LAB_NO_COUNTERS=1 run "counters-$format" "${toy[@]}" "$work/right.cu" --program "$fake" \
    --format "$format" --out "$work/counters.$format"
  expect_status "counters-$format" 3
  [[ $(count_of "$work/counters.$format" "performance counters need permission") -eq 1 ]] ||
    fail "counters ($format): the reason is given $(count_of "$work/counters.$format" "performance counters need permission") times, expected once"
  [[ $(count_of "$work/counters.$format" "not graded: hardware counters not readable (see the top)") -ge 2 ]] ||
    fail "counters ($format): the cases do not say 'not graded: hardware counters not readable (see the top)'"
done
expect_text "$work/counters.text" "NOT GRADED: the grading host cannot read the GPU's hardware counters (not read: GPU performance counters need permission"
expect_text "$work/counters.text" "score: 0 / 6 (0 of 3 cases passed, 3 not graded)"
expect_line "$work/counters.text" "case builds: NOT GRADED, 0 / 1 points"
[[ $(count_of "$work/counters.gradescope" "not graded: hardware counters not readable (see the top)") -eq 3 ]] ||
  fail "counters (gradescope): not every case says it was not graded"
grep -q '"score":[[:space:]]*0,' "$work/counters.gradescope" || fail "counters (gradescope): the score is not 0"
grep -q '"status":[[:space:]]*"passed"' "$work/counters.gradescope" && fail "counters (gradescope): a case passed"
grep -q '"gradable":[[:space:]]*false' "$work/counters.prairielearn" || fail "counters (prairielearn): gradable is not false"

# ---- the output holds students' names and emails: git and the grader image leave it out ------------
grep -qx 'grades-\*/' "$root/.gitignore" || fail ".gitignore does not leave out grades-*/ (the batch's default --out)"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$root" check-ignore -q grades-coalescing/scores.csv || fail "git does not ignore grades-coalescing/scores.csv"
fi
grep -qx 'grades-\*' "$root/tools/grade/platforms/prairielearn/Dockerfile.dockerignore" ||
  fail "the grader image's build context keeps grades-*"

# ---- beyond one GPU: --gpus, --mixed-gpus, --shard, --merge, --status ----------------------------
# A stand-in nvidia-smi first on PATH lists two GPUs of one model (then of two); each GPU's UUID is
# this test's own, so their locks (/tmp/memlab-gpu-UUID.lock) are too.
smi=$work/smi
mkdir -p "$smi"
write_smi() { # what nvidia-smi prints (its lines), for the query the grader makes
  {
    echo '#!/bin/sh'
    echo '[ "$*" = "--query-gpu=index,uuid,name --format=csv,noheader" ] || { echo "nvidia-smi: not the query expected: $*" >&2; exit 9; }'
    printf "cat <<'EOF'\n%s\nEOF\n" "$1"
  } >"$smi/nvidia-smi"
  chmod +x "$smi/nvidia-smi"
}
h100="NVIDIA H100 80GB HBM3"
a100="NVIDIA A100-SXM4-40GB"
write_smi "0, $gpu_a, $h100
1, $gpu_b, $h100"
many=$work/many
mkdir -p "$many/zed"
for name in ada ben cy dee eve fay gus hal ivy jan kim lou; do echo "// $name: right" >"$many/$name.cu"; done
echo '// ben: WRONG' >"$many/ben.cu"
echo '// cy: SYNTAX_ERROR' >"$many/cy.cu"
echo '// zed: right' >"$many/zed/kernels.cu"
mkdir -p "$many/nix" # a folder without a .cu: no submission

# Refusals: one line, exit 2, nothing written (the nvidia-smi list leaves no scratch file).
many_args=("${toy[@]}" "$many" --program "$fake" --out "$out")
PATH=$smi:$PATH expect_refused "--gpus with an index not there" \
  "memlab grade: --gpus: there is no GPU 2 on this host (nvidia-smi lists 0, 1)" "${many_args[@]}" --gpus 0,2
PATH=$smi:$PATH expect_refused "--gpus naming a GPU twice" "memlab grade: --gpus: GPU 1 is named twice" \
  "${many_args[@]}" --gpus 1,0,1
PATH=$smi:$PATH expect_refused "--gpus not a list" \
  "memlab grade: --gpus is all or GPU indices separated by commas (0,1), got '0;1'" "${many_args[@]}" --gpus '0;1'
PATH=$smi:$PATH expect_refused "--mixed-gpus alone" "memlab grade: --mixed-gpus goes with --gpus" \
  "${many_args[@]}" --mixed-gpus
# No nvidia-smi on PATH (an empty PATH for the grader alone: the test's tools need theirs).
env PATH= "$grade" "${many_args[@]}" --gpus all >"$work/no-smi.out" 2>"$work/no-smi.err"
status=$?
[[ $status -eq 2 && ! -s $work/no-smi.out && ! -e $out && -z $(ls -A "$TMPDIR") ]] ||
  fail "--gpus without nvidia-smi: exit $status, or it wrote something"
[[ $(cat "$work/no-smi.err") == "memlab grade: --gpus needs nvidia-smi to list the GPUs, and it did not run (no NVIDIA driver here, or nvidia-smi is not on PATH)" ]] ||
  fail "--gpus without nvidia-smi: the line is '$(cat "$work/no-smi.err")'"
mkdir -p "$work/failing-smi"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver" >&2\nexit 9\n' \
  >"$work/failing-smi/nvidia-smi"
chmod +x "$work/failing-smi/nvidia-smi"
PATH=$work/failing-smi:$PATH expect_refused "--gpus where nvidia-smi fails" \
  "memlab grade: --gpus: nvidia-smi failed (exit 9), so no GPU is known here" "${many_args[@]}" --gpus all
printf '#!/bin/sh\nexit 0\n' >"$work/failing-smi/nvidia-smi"
PATH=$work/failing-smi:$PATH expect_refused "--gpus where nvidia-smi lists none" \
  "memlab grade: --gpus: nvidia-smi lists no GPU on this host" "${many_args[@]}" --gpus all
for shard in 3/3 0/0 -1/3 1/4097 1 a/b 1/3x; do
  expect_refused "--shard $shard" \
    "memlab grade: --shard is K/N, a shard K of N with 0 <= K < N <= 4096 (0/4), got '$shard'" "${many_args[@]}" --shard "$shard"
done
expect_refused "--merge without folders" "memlab grade: --merge needs the shard folders to merge" \
  "${many_args[@]}" --merge --jobs 2
expect_refused "--merge of a missing folder" "memlab grade: --merge $work/none: no such folder" \
  "${many_args[@]}" --merge "$work/none"
expect_refused "--merge of a folder that is no grading's" \
  "memlab grade: --merge $work/empty: not a grading's output folder (it has no results/)" "${many_args[@]}" --merge "$work/empty"
PATH=$smi:$PATH expect_refused "--merge with --gpus" \
  "memlab grade: --merge grades nothing: --gpus, --shard and --jobs are for a run that grades" \
  "${many_args[@]}" --merge "$work/grades" --gpus all
expect_refused "--status of a folder of no grading" \
  "memlab grade: --status $work/empty: no grading there (no $work/empty/submissions.txt, no $work/empty/shards/)" \
  --status "$work/empty"
expect_refused "--status with a lab" "memlab grade: --status DIR takes no lab, submission or other option" \
  "${toy[@]}" --status "$work/grades"

# One GPU, as before (no --gpus): the scores every other way of grading must give.
export FAKE_LAB_LOG=$work/one-gpu.log
run one-gpu "${toy[@]}" "$many" --program "$fake" --out "$work/one-gpu"
expect_status one-gpu 1
expect_line "$work/one-gpu/scores.csv" ",,,ada,6,6,passed,1,2,3"
expect_line "$work/one-gpu/scores.csv" ",,,ben,0,6,failed,0,0,0"
grep -q ' on GPU' "$work/one-gpu.err" && fail "one GPU: a progress line names a GPU: $(grep ' on GPU' "$work/one-gpu.err")"
grep -q '"gpu"' "$work/one-gpu/results/"*.record && fail "one GPU: a record names a GPU"
# Without --gpus every run saw CUDA_VISIBLE_DEVICES as the test set it.
[[ $(awk '$1 == "begin" && $4 != "'"$device"'"' "$FAKE_LAB_LOG" | wc -l) -eq 0 ]] ||
  fail "one GPU: a run saw another device: $(awk '$1 == "begin" && $4 != "'"$device"'"' "$FAKE_LAB_LOG" | head -n 2)"

# --gpus 0,1: each submission's runs on one GPU, named by its UUID; both GPUs used; runs on
# one GPU never overlap (its lock); the scores, canvas.csv and files.csv those of one GPU.
check_lanes() { # NAME: the log of a --gpus 0,1 run
  awk -v a="$gpu_a" -v b="$gpu_b" '
    $1 == "begin" {
      if ($4 != a && $4 != b) { print "run " $2 " saw CUDA_VISIBLE_DEVICES=" $4; bad = 1 }
      if (($3 in device) && device[$3] != $4) { print $3 " ran on " device[$3] " and " $4; bad = 1 }
      device[$3] = $4; used[$4] = 1; on[$2] = $4
      if (open[$4] != "") { print "run " $2 " began on " $4 " while " open[$4] " ran"; bad = 1 }
      open[$4] = $2; runs++
    }
    $1 == "end" { open[on[$2]] = "" }
    END {
      if (!(a in used) || !(b in used)) { print "not both GPUs were used"; bad = 1 }
      if (runs != 36) { print runs " runs, expected 36 (12 submissions that compile, 3 cases)"; bad = 1 }
      exit bad
    }' "$work/$1.log" >"$work/$1.check" || fail "$1: $(cat "$work/$1.check")"
}
export FAKE_LAB_LOG=$work/gpus.log FAKE_LAB_SLEEP=0.05
PATH=$smi:$PATH run gpus "${toy[@]}" "$many" --program "$fake" --out "$work/gpus" --gpus 0,1
unset FAKE_LAB_SLEEP
expect_status gpus 1
check_lanes gpus
for table in scores.csv canvas.csv files.csv; do
  cmp -s "$work/one-gpu/$table" "$work/gpus/$table" ||
    fail "--gpus 0,1: $table differs from one GPU's: $(diff "$work/one-gpu/$table" "$work/gpus/$table")"
done
expect_text "$work/gpus.err" "14 submissions in $many, 13 to grade (0 graded before), 2 at a time on GPUs 0, 1 ($h100); results in $work/gpus"
grep -q "^memlab grade: [0-9]*/14 ada on GPU [01]: 6 / 6, every case passed" "$work/gpus.err" ||
  fail "--gpus: ada's progress line does not name its GPU: $(grep ' ada' "$work/gpus.err")"
for index in 0 1; do
  grep -q " on GPU $index: " "$work/gpus.err" || fail "--gpus: no progress line names GPU $index"
done
grep -q "nix on GPU" "$work/gpus.err" && fail "--gpus: a submission never graded is said to be on a GPU"
# The record keeps the GPU's model (not its index, which another host numbers otherwise), and a
# rerun without --gpus keeps the record as it is.
[[ $(grep -l "\"gpu\":[[:space:]]*\"$h100\"" "$work/gpus/results/"*.record | wc -l) -eq 13 ]] ||
  fail "--gpus: not every one of the 13 records names the $h100"
run gpus-again "${toy[@]}" "$many" --program "$fake" --out "$work/gpus"
[[ $(count_of "$work/gpus-again.err" "not graded again") -eq 13 ]] ||
  fail "--gpus, again: $(count_of "$work/gpus-again.err" "not graded again") of 13 kept"
[[ $(grep -l "\"gpu\":[[:space:]]*\"$h100\"" "$work/gpus/results/"*.record | wc -l) -eq 13 ]] ||
  fail "--gpus, again: a kept record lost its GPU"
# --gpus all is every GPU listed; --jobs still sets the submissions in flight.
: >"$FAKE_LAB_LOG"
PATH=$smi:$PATH run gpus-all "${toy[@]}" "$many" --program "$fake" --out "$work/gpus-all" --gpus all --jobs 3
expect_status gpus-all 1
expect_text "$work/gpus-all.err" "3 at a time on GPUs 0, 1 ($h100)"
check_lanes gpus
cmp -s "$work/one-gpu/scores.csv" "$work/gpus-all/scores.csv" || fail "--gpus all: scores.csv differs from one GPU's"

# Two models: refused, unless --mixed-gpus; then each GPU's model in the records.
write_smi "0, $gpu_a, $h100
1, $gpu_b, $a100"
PATH=$smi:$PATH expect_refused "--gpus of two models" \
  "memlab grade: --gpus: GPU 0 ($h100) and GPU 1 ($a100) are of different models: a speed case's limits suit one model, so a score would depend on the GPU a submission got; --mixed-gpus grades on them anyway" \
  "${many_args[@]}" --gpus all
: >"$FAKE_LAB_LOG"
PATH=$smi:$PATH run mixed "${toy[@]}" "$many" --program "$fake" --out "$work/mixed" --gpus all --mixed-gpus
expect_status mixed 1
expect_text "$work/mixed.err" "2 at a time on GPUs 0 ($h100), 1 ($a100)"
check_lanes gpus
cmp -s "$work/one-gpu/scores.csv" "$work/mixed/scores.csv" || fail "--mixed-gpus: scores.csv differs from one GPU's"
for model in "$h100" "$a100"; do
  grep -q "\"gpu\":[[:space:]]*\"$model\"" "$work/mixed/results/"*.record || fail "--mixed-gpus: no record names the $model"
done
unset FAKE_LAB_LOG

# --shard K/N: every submission in exactly one shard, by the first 8 hex digits of its file key
# mod N; each shard's tables hold its rows alone.
rows() { tail -n +2 "$1"; } # a table without its header
shard_rows() { # CLASS, N, WHERE: grades each shard into WHERE/shards/K; their rows, sorted
  mkdir -p "$3/shards"
  for ((k = 0; k < $2; k++)); do
    run "shard-$k" "${toy[@]}" "$1" --program "$fake" --out "$3/shards/$k" --shard "$k/$2"
    [[ $(cat "$work/shard-$k.status") -le 1 ]] || fail "--shard $k/$2: exit $(cat "$work/shard-$k.status")"
    expect_text "$work/shard-$k.err" " (shard $k/$2), "
    rows "$3/shards/$k/files.csv" | while IFS=, read -r _ feedback _; do
      file_key=${feedback#feedback/}
      file_key=${file_key%.txt}
      [[ $((16#${file_key:0:8} % $2)) -eq $k ]] ||
        echo "--shard $k/$2 holds $file_key, of shard $((16#${file_key:0:8} % $2))" >&2
    done
  done
  for ((k = 0; k < $2; k++)); do rows "$3/shards/$k/scores.csv"; done | LC_ALL=C sort
}
rows "$work/one-gpu/scores.csv" | LC_ALL=C sort >"$work/whole.rows"
for n in 1 2 3 5; do
  shard_rows "$many" "$n" "$work/sharded-$n" >"$work/sharded-$n.rows" 2>"$work/sharded-$n.fails"
  [[ ! -s $work/sharded-$n.fails ]] || fail "--shard of $n: $(cat "$work/sharded-$n.fails")"
  cmp -s "$work/whole.rows" "$work/sharded-$n.rows" ||
    fail "--shard of $n: the shards' rows are not the class's, each once: $(diff "$work/whole.rows" "$work/sharded-$n.rows")"
done
# A shard of 5 is not the whole class (so the test can fail).
[[ $(rows "$work/sharded-5/shards/0/scores.csv" | wc -l) -lt 14 ]] || fail "--shard 0/5 holds the whole class"
# The class grows: no submission moves to another shard.
grown=$work/grown
cp -R "$many" "$grown"
for name in new1 new2 new3 new4 new5 new6; do echo "// $name: right" >"$grown/$name.cu"; done
shard_rows "$grown" 3 "$work/grown-3" >/dev/null 2>"$work/grown-3.fails"
[[ ! -s $work/grown-3.fails ]] || fail "--shard of 3, the class grown: $(cat "$work/grown-3.fails")"
for ((k = 0; k < 3; k++)); do
  rows "$work/sharded-3/shards/$k/files.csv" | while read -r line; do
    grep -qxF -- "$line" "$work/grown-3/shards/$k/files.csv" || echo "$line"
  done >"$work/moved-$k"
  [[ ! -s $work/moved-$k ]] || fail "the class grew: shard $k lost $(cat "$work/moved-$k")"
done

# --merge: the shards of 3 joined equal one run over the class, byte for byte; so do their files.
run merge "${toy[@]}" "$many" --program "$fake" --out "$work/merged" \
  --merge "$work/sharded-3/shards/0" "$work/sharded-3/shards/1" "$work/sharded-3/shards/2"
expect_status merge 1
for table in scores.csv canvas.csv files.csv; do
  cmp -s "$work/one-gpu/$table" "$work/merged/$table" ||
    fail "--merge: $table differs from one run's: $(diff "$work/one-gpu/$table" "$work/merged/$table")"
done
for file in "$work/one-gpu/results/"*.record "$work/one-gpu/feedback/"*.txt; do
  cmp -s "$file" "$work/merged/${file#"$work/one-gpu/"}" || fail "--merge: ${file#"$work/one-gpu/"} differs"
done
expect_text "$work/merge.err" "merged from 3 folders into $work/merged"
# A shard that graded nothing yet: its submissions "not graded: no shard graded it", exit 3.
run merge-part "${toy[@]}" "$many" --program "$fake" --out "$work/merged-part" \
  --merge "$work/sharded-3/shards/0" "$work/sharded-3/shards/2"
expect_status merge-part 3
missing=$(rows "$work/sharded-3/shards/1/scores.csv" | grep -v ',no submission: ' | head -n 1 | cut -d, -f4)
expect_line "$work/merged-part/scores.csv" ",,,$missing,,6,not graded: no shard graded it,,,"
[[ $(grep -c ',not graded: no shard graded it,' "$work/merged-part/scores.csv") -eq \
   $(rows "$work/sharded-3/shards/1/scores.csv" | grep -cv ',no submission: ') ]] ||
  fail "--merge without shard 1: $(grep -c 'no shard graded it' "$work/merged-part/scores.csv") not graded"
"$grade" "${toy[@]}" "$many" --program "$fake" --out "$work/merged" --merge "$work/merged" \
  >"$work/merge-self.out" 2>"$work/merge-self.err"
[[ $? -eq 2 && $(cat "$work/merge-self.err") == "memlab grade: --merge $work/merged is the --out folder itself: merge into another folder" ]] ||
  fail "--merge into itself: $(cat "$work/merge-self.err")"
cmp -s "$work/one-gpu/scores.csv" "$work/merged/scores.csv" || fail "--merge into itself changed scores.csv"

# --status: each shard's counts and who is left, from the files; exit 0.
status_of() { # NAME, DIR
  "$grade" --status "$2" >"$work/$1.out" 2>"$work/$1.err"
  local got=$?
  [[ $got -eq 0 ]] || fail "$1: exit $got: $(cat "$work/$1.err")"
  [[ ! -s $work/$1.err ]] || fail "$1: wrote to stderr: $(cat "$work/$1.err")"
}
expected_counts() { # SCORES.CSV: the counts --status gives for a folder all graded
  local total passed failed compiled none
  total=$(rows "$1" | wc -l)
  passed=$(rows "$1" | grep -c ',passed,')
  failed=$(rows "$1" | grep -c ',failed,')
  compiled=$(rows "$1" | grep -c ',did not compile,')
  none=$(rows "$1" | grep -c ',no submission: ')
  printf '%d submission%s: %d graded (%d passed, %d failed' "$total" "$([[ $total -eq 1 ]] || echo s)" \
    $((passed + failed + compiled)) "$passed" "$failed"
  ((compiled == 0)) || printf ', %d did not compile' "$compiled"
  printf '); 0 not graded'
  ((none == 0)) || printf '; %d no submission' "$none"
  printf '; 0 left\n'
}
status_of status "$work/sharded-3"
expect_line "$work/status.out" "memlab grade: $work/sharded-3: lab toy, 3 shards"
for ((k = 0; k < 3; k++)); do
  expect_line "$work/status.out" "  shard $k/3: $(expected_counts "$work/sharded-3/shards/$k/scores.csv")"
done
expect_line "$work/status.out" "  all shards: 14 submissions: 13 graded (11 passed, 1 failed, 1 did not compile); 0 not graded; 1 no submission; 0 left"
mkdir -p "$work/not-begun/shards"
status_of status-not-begun "$work/not-begun"
[[ $(cat "$work/status-not-begun.out") == "memlab grade: $work/not-begun: no shard has started yet (no $work/not-begun/shards/K/submissions.txt)" ]] ||
  fail "--status, no shard begun: $(cat "$work/status-not-begun.out")"
status_of status-one "$work/one-gpu"
expect_line "$work/status-one.out" "memlab grade: $work/one-gpu: lab toy, 14 submissions: 13 graded (11 passed, 1 failed, 1 did not compile); 0 not graded; 1 no submission; 0 left"
# A shard not started, one whose grading stopped (a record missing: left), one not graded.
rm -r "$work/sharded-3/shards/1"
left=$(rows "$work/sharded-3/shards/0/scores.csv" | grep ',passed,' | head -n 1 | cut -d, -f4)
left_key=$(grep "^$left," "$work/sharded-3/shards/0/files.csv" | cut -d, -f2 | sed 's|feedback/||; s|\.txt||')
rm "$work/sharded-3/shards/0/results/$left_key.record"
rm "$work/sharded-3/shards/2/results/"*.record
CUDA_VISIBLE_DEVICES='' run shard-2-nodevice "${toy[@]}" "$many" --program "$fake" --out "$work/sharded-3/shards/2" --shard 2/3
expect_status shard-2-nodevice 3
status_of status-part "$work/sharded-3"
expect_line "$work/status-part.out" "  shard 1/3: not started (no $work/sharded-3/shards/1/submissions.txt)"
grep -q "^  shard 0/3: .*; 1 left: $left\$" "$work/status-part.out" ||
  fail "--status: shard 0 does not say $left is left: $(cat "$work/status-part.out")"
grep -q "^  shard 2/3: .* graded (0 passed, 0 failed[^)]*); [1-9][0-9]* not graded: [a-z]" "$work/status-part.out" ||
  fail "--status: shard 2 does not list what was not graded: $(cat "$work/status-part.out")"
grep -q "^  all shards: .*; 1 left\$" "$work/status-part.out" || fail "--status: the total's left: $(cat "$work/status-part.out")"

# ---- the coalescing lab's program, no device: every submission not graded ------------------------
gpu_class=$work/gpu-class
mkdir -p "$gpu_class/bob"
cp "$root/labs/04_coalescing/kernels.cu" "$gpu_class/alice.cu"
cp "$root/labs/04_coalescing/kernels.cu" "$gpu_class/bob/kernels.cu"
cp "$root/labs/04_coalescing/kernels.cu" "$gpu_class/carol.cu"
CUDA_VISIBLE_DEVICES='' MEMLAB_CUDA_ARCH=${MEMLAB_CUDA_ARCH:-75} run coalescing --root "$root" coalescing "$gpu_class" \
  --program "$coalescing" --out "$work/gpu-grades" --jobs 2
expect_status coalescing 3
# The rubric's cases and points (a student pack's rubric holds the visible ones only).
cases=$(awk '$1 == "case" { n++ } END { print n }' "$root/labs/04_coalescing/rubric")
points=$(awk '$1 == "case" { sum += $3 } END { print sum }' "$root/labs/04_coalescing/rubric")
empty_cases=$(printf ',%.0s' $(seq "$cases"))
for name in alice bob carol; do
  expect_line "$work/gpu-grades/scores.csv" ",,,$name,,$points,not graded: no usable CUDA device$empty_cases"
  [[ $name == bob ]] && file=$(key bob) || file=$(key "$name.cu")
  json=$work/gpu-grades/results/$file.json
  [[ $(count_of "$json" "the grading host has no usable CUDA device") -eq 1 ]] ||
    fail "coalescing: results/$name.json gives the reason $(count_of "$json" "the grading host has no usable CUDA device") times, expected once"
  [[ $(count_of "$json" "not graded: no usable CUDA device (see the top)") -eq $cases ]] ||
    fail "coalescing: not every case of results/$name.json is marked not graded"
  expect_text "$work/gpu-grades/feedback/$file.txt" "NOT GRADED: the grading host has no usable CUDA device"
done
expect_text "$work/coalescing.out" "not graded       3: alice (no usable CUDA device); bob (no usable CUDA device); carol (no usable CUDA device)"

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "grade batch: all checks passed"

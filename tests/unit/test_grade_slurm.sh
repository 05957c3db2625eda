#!/usr/bin/env bash
# unit_grade_slurm: ./memlab grade LAB CLASS --slurm (the driver's Slurm side), with no Slurm and
# no GPU.
#   tests/unit/test_grade_slurm.sh PATH/TO/memlab_grade
#   - every refusal: one line on stderr, exit 2, nothing written (bad --shards, --time,
#     --partition, --account, --gres, --jobs, --cases, --case, a missing class, an output folder
#     of something else, options that are not for --slurm, no sbatch, a second run that does not
#     match the first);
#   - --dry-run: grade.sbatch and merge.sbatch pass bash -n and hold the array, the gres, the
#     time, the partition, the account, the logs, the absolute paths and the commands; the two
#     sbatch commands are printed, with the dependency, and sbatch is not run;
#   - the submit path, with a fake sbatch first on PATH: two calls, the merge's depending
#     (afterany) on the array's job id; a failing sbatch is said;
#   - the scripts run as Slurm would run them (bash, SLURM_ARRAY_TASK_ID), with the real grader
#     and a stand-in lab program (grade_fake_lab.sh) as the built coalescing: every shard, then
#     the merge, give the scores.csv, canvas.csv and files.csv of a one-host run, byte for byte;
#     a task that sees one GPU (a fake nvidia-smi) locks it by its UUID, one that sees two keeps
#     CUDA_VISIBLE_DEVICES as Slurm set it;
#   - a second --slurm run on the same folder submits only the shards left (one graded with no
#     device, one never started: --array=1,3), and a third, with every shard graded, nothing;
#   - ./memlab grade --merge DIR and --status DIR by hand.
set -uo pipefail
grade=${1:?usage: test_grade_slurm.sh MEMLAB_GRADE}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
memlab=$root/memlab
work=$(mktemp -d)
device=memlab-slurm-test-$$ # the lock of a device of this test's own
lock=/tmp/memlab-gpu-$device.lock
uuid=GPU-memlab-slurm-test-$$ # the GPU a fake nvidia-smi lists
uuid_lock=/tmp/memlab-gpu-$uuid.lock
trap 'rm -rf "$work" "$lock" "$uuid_lock"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The "built" checkout: the stand-in lab program as coalescing (the scripts name it, and the
# tasks run it), the real grader. The driver builds nothing.
mkdir -p "$work/build/labs" "$work/bin" "$work/tmp"
cp "$here/grade_fake_lab.sh" "$work/build/labs/coalescing"
export MEMLAB_BUILD=$work/build MEMLAB_NO_BUILD=1 MEMLAB_GRADE=$grade
export CUDA_VISIBLE_DEVICES=$device TMPDIR=$work/tmp
# A fake sbatch: logs its arguments a line a call, prints a job id (the second as JOBID;CLUSTER,
# as --parsable does on a federation), or fails when FAKE_SBATCH_FAIL is set.
cat >"$work/bin/sbatch" <<'EOF'
#!/usr/bin/env bash
echo "$*" >>"$FAKE_SBATCH_LOG"
if [[ -n ${FAKE_SBATCH_FAIL:-} ]]; then
  echo "sbatch: error: Batch job submission failed: Invalid account" >&2
  exit 1
fi
calls=$(wc -l <"$FAKE_SBATCH_LOG")
if ((calls % 2 == 1)); then echo "$((1000 + calls))"; else echo "$((1000 + calls));cluster"; fi
EOF
chmod +x "$work/bin/sbatch"
export FAKE_SBATCH_LOG=$work/sbatch.log
with_sbatch=$work/bin:$PATH
no_sbatch=$PATH
if command -v sbatch >/dev/null 2>&1; then
  no_sbatch="" # this host has a real sbatch: the "no sbatch" case is left out
fi

# A class of 12: every shard of 4 gets some, one does not compile, one is wrong.
class=$work/class
mkdir "$class"
for i in $(seq -w 1 12); do echo "// student $i: fine" >"$class/student$i.cu"; done
echo 'SYNTAX_ERROR' >"$class/student05.cu"
echo 'WRONG' >"$class/student08.cu"
echo 'not a class' >"$work/notes.txt"
mkdir "$work/other" && echo "a file" >"$work/other/scores.csv"
echo 'case extra 1 hidden --n 4' >"$work/extra.cases"
printf 'check correct\n' >>"$work/extra.cases"
# The classes graded here are graded on that case alone: the rubric's cases that compare with
# the reference solution, or run compute-sanitizer, would not grade in a student pack, whose
# test suite runs this test too.
extra=(--cases extra.cases --case extra)

run_memlab() { # NAME, PATH for the run, arguments...: out/err/status in $work/NAME.*
  local name=$1 path=$2
  shift 2
  (cd "$work" && PATH=$path timeout 300 "$memlab" "$@") >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.status"
}
status_of() { cat "$work/$1.status"; }

expect_refused() { # DESCRIPTION, arguments...
  local what=$1
  shift
  : >"$FAKE_SBATCH_LOG"
  run_memlab refused "$with_sbatch" "$@"
  local status lines
  status=$(status_of refused)
  lines=$(wc -l <"$work/refused.err")
  if [[ $status != 2 ]]; then
    fail "$what: exit $status, expected 2: $(head -n 3 "$work/refused.err")"
  elif [[ $lines != 1 ]]; then
    fail "$what: $lines lines on stderr, expected 1: $(head -n 3 "$work/refused.err")"
  fi
  [[ ! -s $FAKE_SBATCH_LOG ]] || fail "$what: sbatch was run"
  [[ ! -e $work/out ]] || fail "$what: it wrote $work/out"
}

# ---- refusals ----------------------------------------------------------------------------------
slurm=(grade coalescing class --slurm --out out)
expect_refused "--slurm without a class" grade coalescing --slurm --out out
expect_refused "--slurm without a lab" grade --slurm
expect_refused "an unknown lab" grade no_such_lab class --slurm --out out
expect_refused "a missing class" grade coalescing missing --slurm --out out
expect_refused "a class that is a text file" grade coalescing notes.txt --slurm --out out
for value in 0 4097 -1 abc 1.5 "" 04; do
  expect_refused "--shards '$value'" "${slurm[@]}" --shards "$value"
done
expect_refused "--shards without a value" "${slurm[@]}" --shards
for value in "" abc 1:2:3:4 1-25 10:60 1:60:00 -5 "1 h" "2-" "1-2:3:4:5"; do
  expect_refused "--time '$value'" "${slurm[@]}" --time "$value"
done
for value in "" "gpu a" "gpu;rm" "-x" "gpu\$x" "a,,b"; do
  expect_refused "--partition '$value'" "${slurm[@]}" --partition "$value"
done
for value in "" "a/b" "cs 101" "-x"; do
  expect_refused "--account '$value'" "${slurm[@]}" --account "$value"
done
for value in "" gpu:2 gpu:h100:2 mps:1 "gpu:h100:1,gpu:a100:1" "gpu;x"; do
  expect_refused "--gres '$value'" "${slurm[@]}" --gres "$value"
done
for value in 0 65 x; do expect_refused "--jobs '$value'" "${slurm[@]}" --jobs "$value"; done
expect_refused "--cases of a missing file" "${slurm[@]}" --cases missing.cases
expect_refused "--case of no such case" "${slurm[@]}" --case no_such_case
expect_refused "--gpus with --slurm" "${slurm[@]}" --gpus all
expect_refused "--mixed-gpus with --slurm" "${slurm[@]}" --mixed-gpus
expect_refused "--shard with --slurm" "${slurm[@]}" --shard 0/2
expect_refused "--merge with --slurm" "${slurm[@]}" --merge out/shards/0
expect_refused "--format with --slurm" "${slurm[@]}" --format text
expect_refused "an unknown option" "${slurm[@]}" --bogus
expect_refused "an output folder in a missing parent" grade coalescing class --slurm \
  --out missing/out
mkdir "$work/with space"
expect_refused "an output path with a space (#SBATCH lines)" grade coalescing class --slurm \
  --out "with space/out"
rmdir "$work/with space"
expect_refused "an output folder of other files" grade coalescing class --slurm --out other
[[ $(ls -A "$work/other") == scores.csv ]] || fail "the refusal wrote into the other folder"
if [[ -n $no_sbatch ]]; then
  run_memlab no-sbatch "$no_sbatch" "${slurm[@]}"
  [[ $(status_of no-sbatch) == 2 && $(wc -l <"$work/no-sbatch.err") == 1 ]] ||
    fail "no sbatch: exit $(status_of no-sbatch), expected 2 and one line"
  grep -q 'sbatch not found.*--dry-run' "$work/no-sbatch.err" ||
    fail "no sbatch: the line does not say so, nor offer --dry-run"
  [[ ! -e $work/out ]] || fail "no sbatch: it wrote $work/out"
fi
expect_refused "--merge by hand of a folder --slurm did not write" grade --merge other
mkdir "$work/line"$'\n'"break"
expect_refused "a class whose path holds a line break" grade coalescing "line"$'\n'"break" \
  --slurm --out out

# --help with --slurm: the grader's usage, then the driver's Slurm options; nothing written.
run_memlab help "$with_sbatch" grade coalescing class --slurm --help
[[ $(status_of help) == 0 ]] || fail "--slurm --help: exit $(status_of help)"
grep -q '^usage: \./memlab grade LAB KERNELS\.cu' "$work/help.out" ||
  fail "--slurm --help: no grader usage"
for flag in --slurm --shards --partition --gres --time --account --dry-run; do
  grep -q -- "^  $flag " "$work/help.out" || fail "--slurm --help: no line of $flag"
done
[[ ! -e $work/out ]] || fail "--slurm --help wrote $work/out"

# ---- --dry-run: the scripts --------------------------------------------------------------------
: >"$FAKE_SBATCH_LOG"
run_memlab dry "$with_sbatch" grade coalescing class --slurm --shards 4 --partition gpu \
  --gres gpu:h100:1 --time 1-02:00:00 --account cs101 --jobs 2 --cases extra.cases --dry-run \
  --out out
out=$work/out
[[ $(status_of dry) == 0 ]] || fail "--dry-run: exit $(status_of dry): $(cat "$work/dry.err")"
[[ ! -s $FAKE_SBATCH_LOG ]] || fail "--dry-run ran sbatch: $(cat "$FAKE_SBATCH_LOG")"
grep -qxF "sbatch --parsable $out/slurm/grade.sbatch" "$work/dry.out" ||
  fail "--dry-run does not print the array's sbatch command: $(cat "$work/dry.out")"
grep -qxF "sbatch --parsable --dependency=afterany:JOBID $out/slurm/merge.sbatch" \
  "$work/dry.out" || fail "--dry-run does not print the merge's sbatch command with its dependency"
script=$out/slurm/grade.sbatch
merge=$out/slurm/merge.sbatch
for file in "$script" "$merge"; do
  [[ -x $file ]] || fail "no executable $file"
  bash -n "$file" 2>"$work/syntax" || fail "$file does not pass bash -n: $(cat "$work/syntax")"
  [[ $(head -n 1 "$file") == '#!/bin/bash' ]] || fail "$file does not start with #!/bin/bash"
  # sbatch reads #SBATCH lines only before the first command.
  awk '/^[^#]/ { body = 1 } body && /^#SBATCH/ { exit 1 }' "$file" ||
    fail "$file has an #SBATCH line after a command (sbatch would not read it)"
  grep -qxF "cd $root || exit 2" "$file" || fail "$file does not run in the checkout"
  grep -q "^export MEMLAB_NO_BUILD=1 MEMLAB_BUILD=$work/build " "$file" ||
    fail "$file does not run the checkout's build with MEMLAB_NO_BUILD=1"
done
expect_line() { # FILE, LINE (exactly)
  grep -qxF -- "$2" "$1" || fail "$(basename "$1") has no line '$2'"
}
expect_line "$script" "#SBATCH --array=0-3"
expect_line "$script" "#SBATCH --gres=gpu:h100:1"
expect_line "$script" "#SBATCH --time=1-02:00:00"
expect_line "$script" "#SBATCH --partition=gpu"
expect_line "$script" "#SBATCH --account=cs101"
expect_line "$script" "#SBATCH --cpus-per-task=2"
expect_line "$script" "#SBATCH --output=$out/slurm/grade-%A_%a.out"
expect_line "$script" "./memlab grade coalescing $class --shard \"\$SLURM_ARRAY_TASK_ID/4\" \\"
expect_line "$script" \
  "  --out \"$out/shards/\$SLURM_ARRAY_TASK_ID\" --jobs 2 --cases $work/extra.cases"
expect_line "$merge" "#SBATCH --time=1-02:00:00"
expect_line "$merge" "#SBATCH --partition=gpu"
expect_line "$merge" "#SBATCH --account=cs101"
expect_line "$merge" "#SBATCH --output=$out/slurm/merge-%j.out"
expect_line "$merge" "./memlab grade coalescing $class --merge $out/shards/* \\"
expect_line "$merge" "  --out $out --cases $work/extra.cases"
grep -q -e '--gres' -e '--array' "$merge" && fail "the merge job asks for a GPU or an array"
[[ -d $out/shards ]] || fail "--dry-run made no $out/shards for the tasks"
# Without --time, --partition or --account: no such line, the cluster's defaults.
run_memlab dry2 "$with_sbatch" grade coalescing "$class" --slurm --dry-run --out out2
[[ $(status_of dry2) == 0 ]] || fail "--dry-run with defaults: exit $(status_of dry2)"
expect_line "$work/out2/slurm/grade.sbatch" "#SBATCH --array=0-3"
expect_line "$work/out2/slurm/grade.sbatch" "#SBATCH --gres=gpu:1"
grep -q -e '--time' -e '--partition' -e '--account' "$work/out2/slurm/grade.sbatch" &&
  fail "with no --time, --partition or --account the script still names one"

# A second run that does not match the first is refused, and leaves the scripts alone.
cp "$script" "$work/script.before"
expect_refused_again() { # DESCRIPTION, arguments...
  : >"$FAKE_SBATCH_LOG"
  run_memlab again "$with_sbatch" "${@:2}"
  [[ $(status_of again) == 2 && $(wc -l <"$work/again.err") == 1 ]] ||
    fail "$1: exit $(status_of again), expected 2 and one line: $(cat "$work/again.err")"
  cmp -s "$script" "$work/script.before" || fail "$1: the script was rewritten"
}
expect_refused_again "a second run with other --shards" grade coalescing class --slurm \
  --shards 5 --out out
expect_refused_again "a second run of another lab" grade bank_conflicts class --slurm --out out
mkdir "$work/class2" && cp "$class/student01.cu" "$work/class2/"
expect_refused_again "a second run of another class" grade coalescing class2 --slurm --out out

# ---- submitting, with a fake sbatch ------------------------------------------------------------
: >"$FAKE_SBATCH_LOG"
run_memlab submit "$with_sbatch" grade coalescing class --slurm --shards 4 --jobs 2 \
  "${extra[@]}" --out sub
sub=$work/sub
[[ $(status_of submit) == 0 ]] || fail "submit: exit $(status_of submit): $(cat "$work/submit.err")"
mapfile -t calls <"$FAKE_SBATCH_LOG"
if [[ ${#calls[@]} != 2 ]]; then
  fail "submit: sbatch ran ${#calls[@]} times, expected 2"
else
  [[ ${calls[0]} == "--parsable $sub/slurm/grade.sbatch" ]] ||
    fail "submit: the first sbatch call is '${calls[0]}'"
  [[ ${calls[1]} == "--parsable --dependency=afterany:1001 $sub/slurm/merge.sbatch" ]] ||
    fail "submit: the merge's sbatch call is '${calls[1]}' (not after job 1001)"
fi
grep -q "job 1001 grades lab coalescing's shards 0-3 of 4, a task each" "$work/submit.out" ||
  fail "submit: job 1001 not named"
grep -q 'job 1002 joins the shards' "$work/submit.out" ||
  fail "submit: the merge's job 1002 not named (JOBID;CLUSTER read as 1002)"
grep -qF "./memlab grade --status $sub" "$work/submit.out" || fail "submit: no --status command"
# A failing sbatch: said, exit 1.
: >"$FAKE_SBATCH_LOG"
FAKE_SBATCH_FAIL=1 run_memlab failing "$with_sbatch" grade coalescing class --slurm --out failing
[[ $(status_of failing) == 1 ]] || fail "a failing sbatch: exit $(status_of failing), expected 1"
grep -q 'sbatch did not submit' "$work/failing.err" || fail "a failing sbatch is not said"

# ---- the scripts run as Slurm would: shards, then the merge, equal to one host ------------------
run_task() { # OUT, K (SLURM_ARRAY_TASK_ID), [environment NAME=VALUE...]
  local folder=$1 shard=$2
  shift 2
  env SLURM_ARRAY_TASK_ID="$shard" "$@" bash "$folder/slurm/grade.sbatch" \
    >"$work/task-$shard.out" 2>"$work/task-$shard.err"
}
# Task 0 sees one GPU (cgroups hide the others): it locks it by the UUID nvidia-smi gives. Task 2
# sees two: it keeps CUDA_VISIBLE_DEVICES as Slurm set it.
mkdir "$work/one-gpu" "$work/two-gpus"
printf '#!/bin/sh\necho %s\n' "$uuid" >"$work/one-gpu/nvidia-smi"
printf '#!/bin/sh\necho %s\necho GPU-other\n' "$uuid" >"$work/two-gpus/nvidia-smi"
chmod +x "$work/one-gpu/nvidia-smi" "$work/two-gpus/nvidia-smi"
rm -f "$lock"
run_task "$sub" 0 PATH="$work/one-gpu:$PATH" ||
  fail "task 0: exit $?: $(tail -n 3 "$work/task-0.err")"
[[ -e $uuid_lock && ! -e $lock ]] ||
  fail "task 0, the only GPU it sees: not locked by its UUID ($uuid_lock)"
rm -f "$uuid_lock"
run_task "$sub" 2 PATH="$work/two-gpus:$PATH" ||
  fail "task 2: exit $?: $(tail -n 3 "$work/task-2.err")"
[[ -e $lock && ! -e $uuid_lock ]] ||
  fail "task 2, two GPUs seen: CUDA_VISIBLE_DEVICES not kept as Slurm set it ($lock)"
# Shard 1 on a node with no device: its submissions not graded (the task fails, exit 3).
run_task "$sub" 1 CUDA_VISIBLE_DEVICES=
[[ $? == 3 ]] || fail "task 1 with no device: not exit 3: $(tail -n 3 "$work/task-1.err")"
# Shard 3 never ran. Progress, by hand:
run_memlab status "$PATH" grade --status "$sub"
[[ $(status_of status) == 0 ]] || fail "--status: exit $(status_of status)"
grep -q '^  shard 1/4: .*[1-9][0-9]* not graded' "$work/status.out" ||
  fail "--status does not show shard 1 not graded: $(cat "$work/status.out")"
grep -q '^  shard 3/4: not started' "$work/status.out" ||
  fail "--status does not show shard 3 not started"
# The same for programs (the Slurm scripts read it): one JSON document.
run_memlab status-json "$PATH" grade --status "$sub" --format json
[[ $(status_of status-json) == 0 ]] || fail "--status --format json: exit $(status_of status-json)"
python3 - "$work/status-json.out" <<'CHECK' || fail "--status --format json: $(cat "$work/status-json.out")"
import json, sys
status = json.load(open(sys.argv[1]))
shards = {shard["shard"]: shard for shard in status["shards"]}
assert status["shards_left"] == [1, 3], status["shards_left"]
assert status["lab"] == "coalescing" and status["shard_count"] == 4
assert sorted(shards) == [0, 1, 2, 3]
assert shards[0]["done"] and shards[2]["done"] and shards[0]["left"] == 0
assert not shards[3]["started"] and not shards[3]["done"]
assert shards[1]["started"] and shards[1]["not_graded"] > 0 and not shards[1]["done"]
assert len(shards[1]["not_graded_names"]) == shards[1]["not_graded"]
total = sum(shard["submissions"] for shard in status["shards"])
assert status["all"]["submissions"] == total and status["all"]["not_graded"] == shards[1]["not_graded"]
CHECK
run_memlab status-bad "$PATH" grade --status "$sub" --format gradescope
[[ $(status_of status-bad) == 2 && $(wc -l <"$work/status-bad.err") == 1 ]] ||
  fail "--status --format gradescope: exit $(status_of status-bad), expected 2 and one line"

# A second --slurm run submits shards 1 and 3 only.
: >"$FAKE_SBATCH_LOG"
run_memlab again "$with_sbatch" grade coalescing class --slurm --jobs 2 "${extra[@]}" --out sub
[[ $(status_of again) == 0 ]] ||
  fail "second run: exit $(status_of again): $(cat "$work/again.err")"
expect_line "$sub/slurm/grade.sbatch" "#SBATCH --array=1,3"
[[ $(wc -l <"$FAKE_SBATCH_LOG") == 2 ]] || fail "second run: sbatch not run twice"
grep -q "grades lab coalescing's shards 1,3 of 4, those left" "$work/again.out" ||
  fail "second run: does not say it grades shards 1,3: $(cat "$work/again.out")"
for shard in 1 3; do
  run_task "$sub" "$shard" || fail "task $shard: exit $?: $(tail -n 3 "$work/task-$shard.err")"
done
# A third: every shard graded, nothing submitted.
: >"$FAKE_SBATCH_LOG"
run_memlab third "$with_sbatch" grade coalescing class --slurm --jobs 2 "${extra[@]}" --out sub
[[ $(status_of third) == 0 ]] || fail "third run: exit $(status_of third)"
[[ ! -s $FAKE_SBATCH_LOG ]] || fail "third run: sbatch was run with every shard graded"
grep -q 'every shard of .* is graded: nothing to submit' "$work/third.out" ||
  fail "third run: does not say that nothing is left"

# The merge, by hand, against the same class graded on one host.
run_memlab merge "$PATH" grade --merge "$sub"
[[ $(status_of merge) == 0 ]] ||
  fail "--merge by hand: exit $(status_of merge): $(cat "$work/merge.err")"
run_memlab whole "$PATH" grade coalescing class "${extra[@]}" --out whole
[[ $(status_of whole) == 1 ]] || fail "one host: exit $(status_of whole), expected 1 (a failure)"
for file in scores.csv canvas.csv files.csv; do
  [[ -s $work/whole/$file ]] || fail "one host wrote no $file"
  cmp -s "$work/whole/$file" "$sub/$file" || {
    fail "the merged $file differs from one host's"
    diff "$work/whole/$file" "$sub/$file" | head -n 6
  }
done
head -n 1 "$sub/scores.csv" | grep -q ',extra (1 pts)$' ||
  fail "the merged scores.csv has no column of the --cases file's case"
[[ $(grep -c ',student[0-9]*,' "$sub/scores.csv") == 12 ]] ||
  fail "the merged scores.csv has not the 12 students"
grep -q 'not graded' "$sub/scores.csv" && fail "the merged scores.csv still has a row not graded"
for key in $(cd "$work/whole/feedback" && ls); do
  cmp -s "$work/whole/feedback/$key" "$sub/feedback/$key" || fail "feedback/$key differs"
done

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "all --slurm refusals, scripts, submissions, resubmission and merge checked"

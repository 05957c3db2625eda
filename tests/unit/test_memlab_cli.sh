#!/usr/bin/env bash
# unit_memlab_cli: ./memlab's subcommands refuse bad input with exit 2 and one line on stderr,
# before building or writing anything, and never hang; and they take good input: run of every
# lab (--model, --help), check of every lab name. Every subcommand's --help (-h) prints its
# usage and builds nothing; a student pack refuses to make another. No GPU needed: the refusals
# come before a lab runs, the runs are --model, and check without a GPU stops at its own GPU
# check (exit 3).
# CTest sets MEMLAB_BUILD to its build directory and MEMLAB_NO_BUILD=1.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
memlab=$root/memlab
build=${MEMLAB_BUILD:-$root/build}
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mkdir "$work/read-only" && chmod a-w "$work/read-only"
mkdir "$work/full" && echo "not a demo" >"$work/full/notes.txt"
touch "$work/file"

expect_refused() {  # DESCRIPTION ARGUMENT...
  local what=$1
  shift
  timeout 60 "$memlab" "$@" >"$work/out" 2>"$work/err"
  local status=$? lines
  lines=$(wc -l <"$work/err")
  if [[ $status != 2 ]]; then
    fail "$what: exit $status, expected 2"
    cat "$work/err"
  elif [[ $lines != 1 ]]; then
    fail "$what: $lines lines on stderr, expected 1"
    cat "$work/err"
  fi
}

expect_refused "no command"
expect_refused "an unknown command" frobnicate
expect_refused "an empty command" ""
expect_refused "run without a lab" run
expect_refused "run of an unknown lab" run no_such_lab
expect_refused "run of an empty lab name" run ""
expect_refused "run of an option as the lab" run --bogus
expect_refused "list with an argument" list register_spill
expect_refused "list with two arguments" list --metrics extra
expect_refused "check of an unknown lab" check no_such_lab
expect_refused "check of an empty lab name" check ""
expect_refused "check of a known and an unknown lab" check coalescing coalesce
expect_refused "bench with two files" bench a.json b.json
expect_refused "bench to a file that is not JSON" bench "$work/bench.txt"
expect_refused "bench into a missing directory" bench "$work/missing/bench.json"
expect_refused "bench to an empty name" bench ""
expect_refused "demo with an unknown option" demo --bogus
expect_refused "demo --out without a value" demo --out
expect_refused "demo --out with an empty value" demo --out ""
expect_refused "demo with two directories" demo "$work/a" "$work/b"
expect_refused "demo into a directory of other files" demo --out "$work/full"
expect_refused "demo into a missing parent" demo --out "$work/missing/report"
expect_refused "demo over a file" demo --out "$work/file/report"
expect_refused "plot without a directory" plot
expect_refused "plot of two directories" plot "$work/a" "$work/b"
expect_refused "plot of a directory without reports" plot "$work/full"
expect_refused "plot of a missing directory" plot "$work/missing"
expect_refused "student-pack without an archive" student-pack
expect_refused "student-pack to a .zip" student-pack "$work/pack.zip"
expect_refused "student-pack into a missing directory" student-pack "$work/missing/pack.tar.gz"

# root may write into a read-only directory (as CI does): these cases need another user.
if [[ $(id -u) != 0 ]]; then
  expect_refused "bench into a read-only directory" bench "$work/read-only/bench.json"
  expect_refused "demo into a read-only directory" demo --out "$work/read-only/report"
  expect_refused "student-pack into a read-only directory" student-pack "$work/read-only/pack.tar.gz"
else
  echo "running as root: the read-only directory cases are left out"
fi

# ---- good input is taken ------------------------------------------------------------------------
# Every lab as the driver finds it (labs/NN_PROGRAM/PROGRAM.cu): each one, not only the last,
# is a lab program to run and check (a pipe into grep -q once refused all but the last).
programs=()
for directory in "$root"/labs/[0-9][0-9]_*/; do
  directory=$(basename "$directory")
  [[ -e $root/labs/$directory/${directory#[0-9][0-9]_}.cu ]] && programs+=("${directory#[0-9][0-9]_}")
done
[[ ${#programs[@]} -gt 0 ]] || fail "no lab found in labs/"
for program in "${programs[@]}"; do
  timeout 120 "$memlab" run "$program" --model >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 0 ]] || { fail "run $program --model: exit $status, expected 0"; cat "$work/err"; }
  grep -q "^$program: Lab [0-9]" "$work/out" || fail "run $program --model: no title line"
  grep -q '^device: *none (--model' "$work/out" || fail "run $program --model: not predictions"
  for variant in $("$build/labs/$program" --list | sed -n 's/^  \([a-z0-9_]*\) .*/\1/p'); do
    grep -q "^$variant " "$work/out" || fail "run $program --model: no row of $variant"
  done
  timeout 60 "$memlab" run "$program" --help >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 0 ]] || fail "run $program --help: exit $status, expected 0"
  grep -q "^usage: $program " "$work/out" || fail "run $program --help: no usage line"
done
# grade --help, with or without a lab: the grader's usage, options and exit statuses, exit 0.
for arguments in "--help" "coalescing --help"; do
  # shellcheck disable=SC2086 # the arguments are words on purpose
  timeout 60 "$memlab" grade $arguments >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 0 ]] || { fail "grade $arguments: exit $status, expected 0"; cat "$work/err"; }
  grep -q '^usage: ./memlab grade LAB KERNELS.cu ' "$work/out" || fail "grade $arguments: no usage line"
  grep -q '^exit status:$' "$work/out" || fail "grade $arguments: no exit statuses"
  sed -n '/^usage:/,/^$/p' "$work/out" >"$work/usage"
  grep -q -- '--program' "$work/usage" && fail "grade $arguments: the usage names the internal --program"
done
# COMMAND --help and -h, for every command the driver has: exit 0, a usage line naming the
# command on stdout, nothing on stderr, and nothing built, installed, run or written. Twice: with
# an empty build directory and MEMLAB_NO_BUILD=1 (as CTest runs it), and with a build directory
# that does not exist and building allowed, where stand-ins for what a build or set-up runs
# (cmake, nvcc, apt-get, sudo, ...) are first on PATH and note any call.
# The commands: the labels of the driver's top-level case statements (two spaces in), so that a
# new command is asked too; the list below makes sure the reading finds them.
commands=$(sed -n 's/^  \([a-z][a-z-]*\)\( | [^)]*\)*) .*/\1/p;s/^  \([a-z][a-z-]*\)\( | [^)]*\)*)$/\1/p' "$memlab" |
  sort -u)
for command in setup demo plot test run list check bench grade student-pack package; do
  grep -qx "$command" <<<"$commands" || fail "the driver has no command '$command' to ask for help"
done
mkdir "$work/stand-ins" "$work/empty-build"
for tool in cmake ctest nvcc cc gcc apt-get sudo gnuplot nvidia-smi ncu compute-sanitizer tar; do
  printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 1\n' "$tool" "$work/called" >"$work/stand-ins/$tool"
  chmod +x "$work/stand-ins/$tool"
done
for command in $commands; do
  for flag in --help -h; do
    for arguments in "$flag" "coalescing $flag"; do
      # run LAB --help and test -R X --help belong to the lab program and ctest, not the driver.
      [[ $command == run || $command == test ]] && [[ $arguments != "$flag" ]] && continue
      for how in no-build stand-ins; do
        what="$command $arguments ($how)"
        rm -rf "$work/no-build-dir" "$work/called" "$work/cwd"
        mkdir "$work/cwd"
        if [[ $how == no-build ]]; then
          # shellcheck disable=SC2086 # the arguments are words on purpose
          (cd "$work/cwd" && MEMLAB_BUILD=$work/empty-build MEMLAB_NO_BUILD=1 \
            timeout 60 "$memlab" "$command" $arguments) >"$work/out" 2>"$work/err"
        else
          # shellcheck disable=SC2086
          (cd "$work/cwd" && unset MEMLAB_NO_BUILD MEMLAB_GRADE MEMLAB_SKELETON &&
            PATH=$work/stand-ins:$PATH MEMLAB_BUILD=$work/no-build-dir \
              timeout 60 "$memlab" "$command" $arguments) >"$work/out" 2>"$work/err"
        fi
        status=$?
        [[ $status -eq 0 ]] || { fail "$what: exit $status, expected 0"; cat "$work/err"; }
        [[ ! -s $work/err ]] || { fail "$what: wrote to stderr"; cat "$work/err"; }
        grep -q "^usage: ./memlab $command\( \|$\)" "$work/out" || fail "$what: no usage line of $command"
        [[ -z $(ls -A "$work/empty-build") && ! -e $work/no-build-dir ]] ||
          fail "$what: wrote into the build directory"
        [[ -z $(ls -A "$work/cwd") ]] || fail "$what: wrote $(ls -A "$work/cwd")"
        [[ ! -e $work/called ]] || fail "$what: ran $(cat "$work/called")"
      done
    done
  done
done
# The students' grade --help names no internal option, whether the grader is built or not.
for build_dir in "$build" "$work/empty-build"; do
  MEMLAB_BUILD=$build_dir MEMLAB_NO_BUILD=1 timeout 60 "$memlab" grade --help >"$work/out" 2>&1
  grep -q -- '--program' "$work/out" && fail "grade --help (build $build_dir) names the internal --program"
done
# ./memlab help COMMAND is COMMAND --help.
timeout 60 "$memlab" help demo >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 0 ]] || fail "help demo: exit $status, expected 0"
grep -q '^usage: ./memlab demo ' "$work/out" || fail "help demo: not demo's usage"
expect_refused "help of an unknown command" help frobnicate

# A student pack (STUDENT.md at its root) cannot make another pack: one line, exit 2, before
# anything is built, and no raw error of a tool (mv's "cannot stat" once).
mkdir -p "$work/pack/tools/skeleton" # as a pack has it: no student_readme.md left
cp "$memlab" "$work/pack/memlab"
cp -R "$root/tools/lib.sh" "$root/tools/package" "$work/pack/tools/"
cp -R "$root/labs" "$work/pack/"
echo "# a student pack" >"$work/pack/STUDENT.md"
for arguments in "$work/pack-out.tar.gz" ""; do
  # shellcheck disable=SC2086
  (cd "$work/pack" && MEMLAB_BUILD=$work/empty-build MEMLAB_NO_BUILD=1 \
    timeout 60 ./memlab student-pack $arguments) >"$work/out" 2>"$work/err"
  status=$?
  [[ $status -eq 2 ]] || fail "student-pack in a pack ($arguments): exit $status, expected 2"
  [[ $(wc -l <"$work/err") -eq 1 ]] || { fail "student-pack in a pack: not one line"; cat "$work/err"; }
  grep -q 'student pack' "$work/err" || fail "student-pack in a pack: does not say it is a pack"
  grep -q 'mv:\|cannot stat' "$work/err" && fail "student-pack in a pack: a raw tool error"
  [[ ! -e $work/pack-out.tar.gz && -z $(ls -A "$work/empty-build") ]] || fail "student-pack in a pack wrote"
done

# check takes every lab's name, one or all; with no GPU its own GPU check answers (exit 3).
if nvidia-smi -L >/dev/null 2>&1; then
  echo "a GPU is here: check's argument acceptance is left out (it would run for minutes)"
else
  for arguments in "${programs[0]}" "${programs[-1]}" "${programs[*]}" ""; do
    # shellcheck disable=SC2086 # the names are words on purpose
    timeout 60 "$memlab" check $arguments >"$work/out" 2>"$work/err"
    status=$?
    [[ $status -eq 3 ]] || { fail "check $arguments: exit $status, expected 3 (no GPU)"; cat "$work/err"; }
    grep -q 'needs a CUDA GPU' "$work/err" || fail "check $arguments: not refused for want of a GPU"
  done
fi

# Nothing was written by the refusals.
[[ -z $(ls -A "$work/read-only") ]] || fail "a refusal wrote into the read-only directory"
[[ ! -e $work/missing && ! -e $work/a && ! -e $work/bench.txt ]] || fail "a refusal created a file"

[[ $failures -eq 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "all ./memlab refusals, runs of every lab, check arguments and every command's --help checked"

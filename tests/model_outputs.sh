#!/usr/bin/env bash
# model_outputs: what every lab predicts, as its --model JSON, for each run line of its demo,
# check, bench and quick args files and each case of its rubric, on each GPU of memlab's table.
# A change that keeps the labs' behaviour (a refactor) leaves every one the same.
#
#   tests/model_outputs.sh BUILD OUTDIR     write them: OUTDIR/PROGRAM.SOURCE.N.GPU.json (SOURCE:
#                                           demo, check, bench, quick or rubric; N: the line's or
#                                           case's number in its file, from 1); then
#                                           diff -r BEFORE AFTER
#   tests/model_outputs.sh --check BUILD    compare their SHA-256 with tests/model_outputs.sha256;
#                                           exit 1 naming each run whose output changed
#   tests/model_outputs.sh --update BUILD   write that file anew, after a deliberate change
#   ... BUILD [OUTDIR] PROGRAM...           --check and write mode: only these labs (--check then
#                                           compares only their digests)
#
# BUILD holds labs/PROGRAM and tools/memlab_grade (which reads the rubrics). A line that gives no
# --seed runs with --seed 1, so that nothing drawn at random reaches a prediction. No GPU is
# needed: --model predicts for the GPU --gpu names, on the host. Exits 2 on bad usage, and in a
# student pack (which does not ship this script), whose rubrics hold only the visible cases.
set -uo pipefail
usage="usage: model_outputs.sh BUILD OUTDIR [PROGRAM...] | --check BUILD [PROGRAM...] | --update BUILD"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
manifest=$root/tests/model_outputs.sha256
mode=write
case ${1:-} in
  --check | --update) mode=${1#--}; shift ;;
esac
build=${1:?$usage}
[[ -x $build/tools/memlab_grade ]] || { echo "model_outputs: no $build/tools/memlab_grade: build first" >&2; exit 2; }
if [[ $mode == write ]]; then
  out=${2:?$usage}
  mkdir -p "$out" || exit 2
  shift 2
else
  shift
  [[ $mode == check || $# -eq 0 ]] || { echo "$usage" >&2; exit 2; }
  if [[ -e $root/STUDENT.md ]]; then
    echo "model_outputs: a student pack: its rubrics are not the ones the digests were taken from" >&2
    exit 2
  fi
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
gpus=(h100 h200)
only=("$@") # the labs to run; none named: every lab
for program in "${only[@]}"; do
  compgen -G "$root/labs/[0-9][0-9]_$program/" >/dev/null ||
    { echo "model_outputs: no lab called $program" >&2; exit 2; }
done

# One --model run; its JSON is the output, its table (stdout) is not kept.
predict() { # PROGRAM NAME ARGUMENTS (one string, split on spaces as the lab's files are)
  local program=$1 name=$2 arguments=$3 gpu
  local -a words
  read -r -a words <<<"$arguments"
  [[ " $arguments " == *" --seed "* ]] || words+=(--seed 1)
  for gpu in "${gpus[@]}"; do
    if ! "$build/labs/$program" "${words[@]}" --model --gpu "$gpu" --format json \
      --out "$out/$name.$gpu.json" >/dev/null 2>"$out/$name.$gpu.err"; then
      echo "model_outputs: $program $arguments --model --gpu $gpu failed: $(tail -n 1 "$out/$name.$gpu.err")" >&2
      failed=1
    fi
    rm -f "$out/$name.$gpu.err"
  done
}

failed=0
for directory in "$root"/labs/[0-9][0-9]_*/; do
  lab=$(basename "$directory")
  program=${lab#[0-9][0-9]_}
  [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" $program "* ]] || continue
  [[ -x $build/labs/$program ]] || { echo "model_outputs: no $build/labs/$program: build first" >&2; exit 2; }
  for source in demo check bench quick; do
    [[ -f $directory/$source.args ]] || continue
    number=0
    while IFS= read -r line; do
      number=$((number + 1))
      predict "$program" "$program.$source.$number" "$line"
    done < <(grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$directory/$source.args")
  done
  cases=$("$build/tools/memlab_grade" --case-arguments "$directory/rubric") || exit 2 # it said why
  number=0
  while IFS=$'\t' read -r name arguments; do
    number=$((number + 1))
    predict "$program" "$program.rubric.$number" "$arguments"
  done <<<"$cases"
done
((failed == 0)) || exit 1

case $mode in
  write) echo "model_outputs: $(ls "$out" | wc -l) outputs in $out" ;;
  update)
    (cd "$out" && sha256sum -- *.json) >"$manifest"
    echo "model_outputs: $(wc -l <"$manifest") digests in $manifest" ;;
  check)
    [[ -f $manifest ]] || { echo "model_outputs: no $manifest (--update writes it)" >&2; exit 2; }
    expected=$out.expected
    if [[ ${#only[@]} -eq 0 ]]; then
      cp "$manifest" "$expected"
    else
      grep -E "  ($(IFS='|'; echo "${only[*]}"))\." "$manifest" >"$expected"
    fi
    changed=$(cd "$out" && sha256sum --quiet -c "$expected" 2>/dev/null | sed 's/: FAILED.*//')
    added=$(comm -13 <(awk '{ print $2 }' "$expected" | sort) <(cd "$out" && ls -- *.json | sort))
    rm -f "$expected"
    if [[ -n $changed || -n $added ]]; then
      [[ -z $changed ]] || echo "model_outputs: changed or gone since tests/model_outputs.sha256:" $changed >&2
      [[ -z $added ]] || echo "model_outputs: not in tests/model_outputs.sha256:" $added >&2
      echo "model_outputs: a refactor must leave them alone; after a deliberate change:" \
        "tests/model_outputs.sh --update BUILD, and say why in the commit" >&2
      exit 1
    fi
    echo "model_outputs: the $(ls "$out" | wc -l) outputs match tests/model_outputs.sha256" ;;
esac

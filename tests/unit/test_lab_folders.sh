#!/usr/bin/env bash
# test_lab_folders: every lab has what labs/README.md says a lab must have before it counts as
# done: its folder's files (its plots among them), a student handout and instructor notes, its
# tests and its planted submissions. Prints each missing or misplaced piece; exits 1 if any is.
#   tests/unit/test_lab_folders.sh [ROOT]
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
missing=0
labs=0
need() { # PATH, what it is
  if [[ ! -s $root/$1 ]]; then
    echo "missing: $1 ($2)"
    missing=$((missing + 1))
  fi
}
for directory in "$root"/labs/[0-9][0-9]_*/; do
  lab=$(basename "$directory")
  program=${lab#[0-9][0-9]_}
  labs=$((labs + 1))
  need "labs/$lab/kernels.cu" "the student's file: the kernels"
  need "labs/$lab/$program.cu" "the instructor's host program"
  if grep -q "#include \"$program.h\"" "$directory/kernels.cu" 2>/dev/null; then
    need "labs/$lab/$program.h" "the header kernels.cu includes"
  fi
  for args in demo quick check bench; do
    need "labs/$lab/$args.args" "the runs of ./memlab $args"
  done
  need "labs/$lab/demo.md" "the demo report's text for this lab"
  need "labs/$lab/rubric" "the grading cases"
  if ! compgen -G "$directory/plots/*.gp" >/dev/null; then
    echo "missing: labs/$lab/plots/*.gp (the lab's plots, in its own folder)"
    missing=$((missing + 1))
  fi
  need "handouts/$lab.md" "the student handout"
  need "handouts/instructor/$lab.md" "the instructor notes"
  need "labs/$lab/tests/test_model.c" "the model's exact counts"
  need "labs/$lab/tests/cli.sh" "the program's command line"
  need "labs/$lab/tests/test_gpu.c" "measured against predicted on a GPU"
  for leftover in "tests/unit/test_model_$program.c" "tests/unit/cli_$program.sh" \
    "tests/gpu/test_$program.c"; do
    if [[ -e $root/$leftover ]]; then
      echo "misplaced: $leftover (a lab's own tests go in labs/$lab/tests/)"
      missing=$((missing + 1))
    fi
  done
  need "labs/$lab/plants/solution.plant" "the solution graded"
  need "labs/$lab/plants/skeleton.plant" "the student version graded"
  plants=$(ls "$directory"/plants/*.plant 2>/dev/null | wc -l)
  if ((plants < 3)); then
    echo "missing: labs/$lab/plants/ has $plants plants; a lab needs at least one wrong submission beside the solution and the skeleton"
    missing=$((missing + 1))
  fi
  if [[ -s $directory/kernels.cu ]] && ! grep -q 'BEGIN SOLUTION' "$directory/kernels.cu"; then
    echo "missing: labs/$lab/kernels.cu has no BEGIN SOLUTION region (the skeleton would be the solution)"
    missing=$((missing + 1))
  fi
done
# What is one lab's lives in its folder: no plot of a lab is left beside the shared settings.
for leftover in "$root"/tools/report/plots/*/ "$root"/tests/grade/*/; do
  [[ -d $leftover ]] || continue
  echo "misplaced: ${leftover#"$root"/} (a lab's plots and plants go in labs/NN_name/plots/ and plants/)"
  missing=$((missing + 1))
done
if ((labs == 0)); then
  echo "no lab folder (labs/NN_name/) under $root"
  exit 1
fi
echo "$labs labs, $missing missing pieces"
((missing == 0))

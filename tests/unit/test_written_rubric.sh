#!/usr/bin/env bash
# test_written_rubric: every question of every student handout has an entry in the written-answer
# rubric, handouts/instructor/written_answers.md (issue 48), and the rubric has no entry for a
# question that does not exist.
#   tests/unit/test_written_rubric.sh [ROOT]
# A handout's questions are the numbered items ("N. ") at the left margin of its "## Questions"
# section; they must run 1, 2, 3, ... A lab's entries are the "- **QN** (KIND, P point(s))."
# lines under the rubric's "## Lab NN: PROGRAM" heading, KIND core or extension, P a whole
# number; each must say what to accept ("Accept" or "Open"). Fails on a question without an
# entry, an entry without a question, an entry twice, a malformed entry, a lab section missing,
# or a handout without questions.
set -uo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
rubric=$root/handouts/instructor/written_answers.md
if [[ -e $root/STUDENT.md ]]; then
  echo "a student pack holds no instructor notes: test skipped"
  exit 77
fi
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[[ -f $rubric ]] || { echo "FAIL: no handouts/instructor/written_answers.md"; exit 1; }

total=0
for handout in "$root"/handouts/[0-9][0-9]_*.md; do
  [[ -e $handout ]] || continue
  lab=$(basename "$handout" .md)     # NN_program
  number=${lab%%_*}
  program=${lab#*_}
  # The handout's question numbers, in order.
  questions=$(awk '/^## /{ inside = ($0 == "## Questions"); next }
    inside && /^[0-9]+\. / { sub(/\..*/, ""); print }' "$handout")
  [[ -n $questions ]] || { fail "handouts/$lab.md has no numbered question under \"## Questions\""; continue; }
  expected=1
  for q in $questions; do
    ((q == expected)) || fail "handouts/$lab.md: question $q where $expected was due (questions run 1, 2, 3, ...)"
    expected=$((q + 1))
  done
  # The rubric's section for the lab, and its entries.
  section=$(awk -v heading="## Lab $number: $program" '
    /^## / { inside = ($0 == heading); next } inside' "$rubric")
  [[ -n $section ]] || { fail "written_answers.md has no section \"## Lab $number: $program\""; continue; }
  entries=$(grep -E '^- \*\*Q[0-9]+\*\*' <<<"$section" | sed -E 's/^- \*\*Q([0-9]+)\*\*.*/\1/')
  while IFS= read -r line; do
    [[ -z $line ]] && continue
    [[ $line =~ ^-\ \*\*Q[0-9]+\*\*\ \((core|extension)(,\ [^,\)]*)?,\ [0-9]+\ points?(\;[^\)]*)?\)\.\  ]] ||
      fail "written_answers.md, lab $number: malformed entry (want \"- **QN** (core|extension, P points). ...\"): ${line:0:90}"
  done < <(grep -E '^- \*\*Q' <<<"$section")
  # Each entry, up to the next one, says what earns the points.
  silent=$(awk '/^- \*\*Q[0-9]+\*\*/ { if (entry != "" && text !~ /(Accept|Open)/) print entry; entry = $2; text = $0; next }
    { text = text " " $0 } END { if (entry != "" && text !~ /(Accept|Open)/) print entry }' <<<"$section")
  for entry in $silent; do fail "written_answers.md, lab $number: $entry says neither Accept nor Open"; done
  for q in $questions; do
    count=$(grep -cx "$q" <<<"$entries")
    ((count == 1)) || fail "written_answers.md, lab $number: question $q has $count entries (want 1)"
    total=$((total + 1))
  done
  for q in $entries; do
    grep -qx "$q" <<<"$questions" || fail "written_answers.md, lab $number: an entry for Q$q, which handouts/$lab.md does not ask"
  done
done
# No section for a lab that has no handout.
while IFS= read -r heading; do
  lab=$(sed -E 's/^## Lab ([0-9][0-9]): (.*)$/\1_\2/' <<<"$heading")
  [[ -e $root/handouts/$lab.md ]] || fail "written_answers.md has \"$heading\" but no handouts/$lab.md"
done < <(grep -E '^## Lab [0-9]' "$rubric")
((total > 0)) || fail "no question found in any handout: nothing was checked"
if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "written answers: $total questions of $(ls "$root"/handouts/[0-9][0-9]_*.md | wc -l) handouts, each with one rubric entry"

#!/usr/bin/env bash
# tools/package/student_pack.sh OUT.tar.gz: ./memlab student-pack, which memlab runs (its --help
# says what it writes), and the tree of ./memlab package classroom (package.sh).
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# The student pack: what a student needs to build, run, test and grade the labs, and nothing that
# answers them. The harness, build files, tools and tests as they are; a README of its own for
# students (tools/skeleton/student_readme.md, its lab table written from labs/), never the
# instructor's, whose example table and its reading answer handout questions; each lab's
# kernels.cu through the skeleton generator (the host programs are the instructor's, whole: the
# grader runs them); each rubric without its hidden cases; the student handouts and the figures a
# shipped page shows. Never the instructor notes (handouts/instructor/), the instructor guide, the
# figures' data (handouts/figures/data/: every measurement the handouts ask students to predict),
# a lab's demo.md (the lecture's text, which explains what the lab measures) or the planted
# submissions (labs/NN_LAB/plants/), or the labs' tests but their bad-input checks (tests/cli.sh)
# and tests/gpu/test_degraded.sh (they test the solutions, and state the measured rules).
student_pack() {
  # A pack holds no solutions, hidden cases or students' README source to make a pack of (the
  # grader knows a pack by its STUDENT.md too): refuse before building anything.
  [[ ! -e $root/STUDENT.md ]] ||
    die "student-pack: this is a student pack, which cannot make another: run it in the instructor's checkout"
  [[ $# -eq 1 ]] || die "student-pack takes the archive to write: ./memlab student-pack OUT.tar.gz"
  local archive=$1
  [[ $archive == *.tar.gz ]] || die "student-pack writes a .tar.gz archive, got '$archive'"
  can_create "$archive" || die "student-pack: cannot write '$archive'"
  local skeleton grader
  skeleton=$(grading_tool memlab_skeleton)
  grader=$(grading_tool memlab_grade)
  pack_work=$(mktemp -d) # global: the EXIT trap runs after this function returns
  trap 'rm -rf "$pack_work"' EXIT
  local pack=$pack_work/memlab path directory file page link
  mkdir -p "$pack/labs" "$pack/tests" "$pack/handouts"
  for path in CMakeLists.txt CMakePresets.json Makefile.labs memlab .gitignore common runner \
    reporting profiling tools tests/unit tests/gpu; do
    if [[ -e $root/$path ]]; then cp -R "$root/$path" "$pack/$path"; fi
  done
  # The students' README, once: its links are written from the pack's root.
  [[ -f $pack/tools/skeleton/student_readme.md ]] ||
    die "student-pack: no tools/skeleton/student_readme.md to make the pack's README of"
  student_readme "$pack/tools/skeleton/student_readme.md" >"$pack/README.md"
  rm "$pack/tools/skeleton/student_readme.md"
  # STUDENT.md also tells the grader that this tree holds no reference solution.
  cp "$root/tools/skeleton/student_pack.md" "$pack/STUDENT.md"
  for page in "$root"/handouts/[0-9][0-9]_*.md; do
    if [[ -e $page ]]; then cp "$page" "$pack/handouts/"; fi
  done
  for page in "$pack"/*.md "$pack"/handouts/*.md; do
    for link in $(markdown_links "$page"); do
      path=$(dirname "${page#"$pack"/}")/$link
      path=${path#./}
      case $path in
        handouts/figures/*.png | handouts/figures/*.svg) ;;
        *) continue ;;
      esac
      [[ -f $root/$path ]] || continue # a dead link: the pack's test names it
      mkdir -p "$pack/${path%/*}"
      cp "$root/$path" "$pack/$path"
    done
  done
  for directory in "$root"/labs/[0-9][0-9]_*/; do
    directory=$(basename "$directory")
    mkdir -p "$pack/labs/$directory"
    for file in "$root/labs/$directory"/*; do
      case $file in
        */kernels.cu) "$skeleton" "$file" -o "$pack/labs/$directory/kernels.cu" ;;
        */rubric) "$grader" --visible-cases "$file" >"$pack/labs/$directory/rubric" ;;
        */demo.md | */plants) ;;
        *) cp -R "$file" "$pack/labs/$directory/" ;;
      esac || die "student-pack: $file could not be converted (see above)"
    done
  done
  # The labs' GPU tests and gpu_degraded run the lab programs on the kernels the tree holds: the
  # instructor's, in whose tree they test the tool. In a pack they could only fail until the
  # TODOs are done, and their assertions (pinned beats pageable, prefetched beats faulted) are
  # handout answers; a pack's ./memlab test checks the student's kernels instead. The labs'
  # model tests state the model's rules with the runs that measured them: answers too.
  rm -f "$pack"/labs/[0-9][0-9]_*/tests/test_gpu.c "$pack"/labs/[0-9][0-9]_*/tests/test_model.c \
    "$pack/tests/gpu/test_degraded.sh"
  tar -czf "$archive" -C "$pack_work" memlab
  echo "memlab: student pack in $archive"
}

student_pack "$@"

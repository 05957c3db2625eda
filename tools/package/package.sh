#!/usr/bin/env bash
# tools/package/package.sh prairielearn|gradescope|classroom LAB OUT: ./memlab package, which
# memlab runs (its --help says what it makes; handouts/instructor/platforms.md how to use it).
# The templates it fills are in tools/grade/platforms/.
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

platforms=$root/tools/grade/platforms
# The image a PrairieLearn question names. The default is a local name that no registry serves
# (Docker Hub's namespace of official images), so no one else's image can be pulled by it.
grader_image=${MEMLAB_GRADER_IMAGE:-memlab-grader:cuda13}
# The grader's limits that a platform's time limits add up (tools/grade/grading.c, rubric.h):
# one compile, each case's runs (its own time limit; the reference solution's, as long; the
# access model's), and a case's time limit when the rubric names none (lib.sh's
# rubric_default_timeout_s).
grade_compile_s=90
grade_model_s=120

# The longest a case can take to grade, in seconds (its reference run counted or not).
case_worst_s() { # TIME LIMIT, REFERENCE (1 to count it), MODEL
  echo $(($1 + $2 * $1 + $3 * grade_model_s))
}

# TEMPLATE with each @NAME@ replaced by VALUE, for each NAME=VALUE given; exit 2 if the template
# has a @NAME@ not given (it and this script disagree). Values go through the environment, as
# they are (no escapes, no "&"), and are not read again for placeholders.
fill_template() { # TEMPLATE, NAME=VALUE...
  local template=$1 pair placeholder names=() values=() filled
  [[ -r $template ]] || die "package: internal: no template $template"
  shift
  for pair in "$@"; do
    names+=("${pair%%=*}")
    values+=("MEMLAB_TEMPLATE_${pair%%=*}=${pair#*=}")
  done
  for placeholder in $(grep -o '@[A-Z_][A-Z_]*@' "$template" | sort -u || true); do
    [[ " ${names[*]} " == *" ${placeholder//@/} "* ]] ||
      die "package: internal: nothing given for $placeholder of $template"
  done
  # shellcheck disable=SC2016 # the $0 are awk's
  filled=$(env "${values[@]}" awk -v names="${names[*]}" '
    BEGIN { count = split(names, name, " ") }
    {
      done = ""
      while (1) {   # the first placeholder left in the line, replaced; the next one after it
        first = 0
        for (i = 1; i <= count; i++) {
          at = index($0, "@" name[i] "@")
          if (at > 0 && (first == 0 || at < first)) { first = at; which = i }
        }
        if (first == 0) break
        done = done substr($0, 1, first - 1) ENVIRON["MEMLAB_TEMPLATE_" name[which]]
        $0 = substr($0, first + length(name[which]) + 2)
      }
      print done $0
    }' "$template") || die "package: cannot read the template $template"
  printf '%s\n' "$filled"
}

# TEXT made safe inside a JSON string (no control characters in it here).
json_text() { # TEXT
  local text=${1//\\/\\\\}
  printf '%s' "${text//\"/\\\"}"
}

# FILE (or stdin) as the text of an HTML element that PrairieLearn reads as a template too: &, <
# and > escaped, and no "{{" left for its Mustache pass (lxml turns &#123; back into "{").
html_code() { # [FILE]
  sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/{{/{\&#123;/g' -e 's/}}/}\&#125;/g' "$@"
}

# The lab's title, from the first line of its handout ("# Lab 04: ..."), or "Lab 04: PROGRAM".
lab_handout_title() { # LAB DIRECTORY NAME (04_coalescing)
  local handout=$root/handouts/$1.md title=""
  [[ ! -f $handout ]] || title=$(sed -n '1s/^# *//p' "$handout")
  echo "${title:-Lab ${1%%_*}: ${1#[0-9][0-9]_}}"
}

# ./memlab package prairielearn|gradescope|classroom LAB OUT: what a course platform needs to hand
# out and grade one lab (handouts/instructor/platforms.md). Everything is made in a scratch
# directory and copied into OUT at the end: a refusal leaves nothing behind.
package() {
  local usage="./memlab package prairielearn|gradescope|classroom LAB OUT"
  [[ $# -eq 3 ]] || die "package takes a platform, a lab and a directory: $usage"
  local platform=$1 program=$2 out=$3
  case $platform in
    prairielearn | gradescope | classroom) ;;
    *) die "package: unknown platform '$platform': prairielearn, gradescope or classroom" ;;
  esac
  is_lab_program "$program" || die "package: no lab program '$program': one of $(lab_programs | tr '\n' ' ')"
  [[ ! -e $root/STUDENT.md ]] ||
    die "package: this is a student pack, which has no reference solution and no hidden case: package from the instructor's checkout"
  local directory rubric
  directory=$(basename "$(lab_dir "$program")")
  rubric=$root/labs/$directory/rubric
  [[ -f $rubric ]] || die "package: lab $program has no rubric (labs/$directory/rubric)"
  if [[ -e $out ]]; then
    [[ -d $out ]] || die "package: $out exists and is not a directory"
    [[ -r $out && -w $out && -x $out ]] || die "package: cannot write to '$out'"
    [[ -z $(ls -A "$out") ]] || die "package: $out is not empty: give a new or empty directory"
  else
    can_create "$out" || die "package: cannot write '$out' (its parent directory must exist and be writable)"
  fi
  if [[ $platform == prairielearn ]]; then
    # Docker's reference grammar for a name, less upper case and registry ports (PrairieLearn
    # takes neither).
    [[ $grader_image =~ ^[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$ ]] ||
      die "package: MEMLAB_GRADER_IMAGE '$grader_image' is not an image name (name[:tag], lower case, e.g. memlab-grader:cuda13)"
  fi

  local skeleton grader
  skeleton=$(grading_tool memlab_skeleton)
  grader=$(grading_tool memlab_grade)
  "$grader" --check-rubric "$rubric" >/dev/null || exit 2 # it said what is wrong, on one line
  package_work=$(mktemp -d) # global: the EXIT trap runs after this function returns
  trap 'rm -rf "$package_work"' EXIT
  local stage=$package_work/out
  mkdir "$stage"
  case $platform in
    prairielearn) package_prairielearn "$program" "$directory" "$rubric" "$skeleton" "$stage" ;;
    gradescope) package_gradescope "$program" "$directory" "$rubric" "$stage" ;;
    classroom) package_classroom "$program" "$directory" "$rubric" "$grader" "$stage" ;;
  esac
  mkdir -p "$out"
  cp -R "$stage/." "$out/" || die "package: copying into $out failed"
  echo "memlab: $platform package of $program in $out"
}

# The longest the rubric's cases can take to grade in one job, in seconds: one compile, then
# every case (hidden ones too: they all run) with its reference and prediction runs.
rubric_worst_s() { # RUBRIC
  local worst=$grade_compile_s name points visibility timeout reference model
  while IFS=$'\t' read -r name points visibility timeout reference model; do
    worst=$((worst + $(case_worst_s "$timeout" "$reference" "$model")))
  done < <(rubric_cases "$1")
  echo "$worst"
}

# The lab's student handout and the figures it shows, into DEST/handouts/ as the checkout lays
# them out, so that its links resolve there.
ship_handout() { # LAB DIRECTORY, DEST
  local handout=$root/handouts/$1.md link
  [[ -f $handout ]] || die "package: lab ${1#[0-9][0-9]_} has no handout (handouts/$1.md)"
  mkdir -p "$2/handouts"
  cp "$handout" "$2/handouts/"
  for link in $(markdown_links "$handout"); do
    case $link in
      figures/*.png | figures/*.svg) ;;
      ../README.md)
        # The students' README, as the student pack writes it (how the program runs kernels).
        [[ -f $2/README.md ]] || student_readme "$root/tools/skeleton/student_readme.md" >"$2/README.md"
        continue
        ;;
      *)
        echo "memlab: package: warning: handouts/$1.md links to $link, which is not shipped" >&2
        continue
        ;;
    esac
    [[ -f $root/handouts/$link ]] ||
      die "package: handouts/$1.md shows handouts/$link, which is not there"
    mkdir -p "$2/handouts/figures"
    cp "$root/handouts/$link" "$2/handouts/$link"
  done
}

# What a student's kernels.cu may include, as HTML: the CUDA headers, and the lab's header where
# it has one (lab 04 has none).
allowed_includes_html() { # PROGRAM, LAB DIRECTORY
  if [[ -f $root/labs/$2/$1.h ]]; then
    echo "the CUDA headers and <code>$1.h</code>"
  else
    echo "the CUDA headers"
  fi
}

# The question directory: info.json, question.html, clientFilesQuestion/ (the lab's handout and
# its figures, which the question links), tests/ (rubric, run.sh), the grader image's
# Dockerfile, a README with the steps.
package_prairielearn() { # PROGRAM, LAB DIRECTORY, RUBRIC, SKELETON TOOL, STAGE
  local program=$1 directory=$2 rubric=$3 skeleton=$4 stage=$5
  local uuid title worst
  if [[ -r /proc/sys/kernel/random/uuid ]]; then
    uuid=$(cat /proc/sys/kernel/random/uuid)
  elif command -v uuidgen >/dev/null 2>&1; then
    uuid=$(uuidgen)
  else
    die "package: cannot make a UUID for info.json (no /proc/sys/kernel/random/uuid, no uuidgen)"
  fi
  title=$(lab_handout_title "$directory")
  worst=$(rubric_worst_s "$rubric")
  local timeout_s=$((worst < 600 ? worst : 600)) # PrairieLearn's ceiling
  "$skeleton" "$root/labs/$directory/kernels.cu" -o "$package_work/kernels.cu" ||
    die "package: labs/$directory/kernels.cu could not be converted (see above)"

  fill_template "$platforms/prairielearn/info.json" UUID="$uuid" TITLE="$(json_text "$title")" \
    IMAGE="$grader_image" TIMEOUT="$timeout_s" >"$stage/info.json"
  fill_template "$platforms/prairielearn/question.html" TITLE="$(html_code <<<"$title")" NUMBER="${directory%%_*}" \
    PROGRAM="$program" LAB_DIR="$directory" SKELETON="$(html_code "$package_work/kernels.cu")" \
    INCLUDES="$(allowed_includes_html "$program" "$directory")" >"$stage/question.html"
  ship_handout "$directory" "$stage/clientFilesQuestion"
  mkdir "$stage/tests" "$stage/grader-image"
  cp "$rubric" "$stage/tests/rubric"
  fill_template "$platforms/prairielearn/run.sh" PROGRAM="$program" LAB_DIR="$directory" \
    >"$stage/tests/run.sh"
  chmod 755 "$stage/tests/run.sh"
  cp "$platforms/prairielearn/Dockerfile" "$platforms/prairielearn/Dockerfile.dockerignore" \
    "$stage/grader-image/"
  fill_template "$platforms/prairielearn/README.md.in" PROGRAM="$program" LAB_DIR="$directory" \
    ROOT="$root" IMAGE="$grader_image" TIMEOUT="$timeout_s" WORST="$worst" >"$stage/README.md"
}

# The autograder's files: setup.sh (installs and builds), run_autograder (grades one submission),
# memlab/ (this checkout, less what the grader image leaves out: its ignore file's names), a
# README with the steps.
package_gradescope() { # PROGRAM, LAB DIRECTORY, RUBRIC, STAGE
  local program=$1 directory=$2 rubric=$3 stage=$4
  local ignored=$platforms/prairielearn/Dockerfile.dockerignore pattern path name skip
  local patterns=()
  while IFS= read -r pattern; do
    [[ -z $pattern || $pattern == \#* || $pattern == */* ]] || patterns+=("$pattern")
  done <"$ignored"
  mkdir "$stage/memlab"
  for path in "$root"/* "$root"/.[!.]*; do
    [[ -e $path ]] || continue
    name=$(basename "$path")
    skip=0
    for pattern in "${patterns[@]}"; do
      # shellcheck disable=SC2053 # the pattern is a glob on purpose
      [[ $name == $pattern ]] && skip=1
    done
    ((skip)) || cp -R "$path" "$stage/memlab/" || die "package: copying $path failed"
  done
  local file
  for file in setup.sh run_autograder; do
    fill_template "$platforms/gradescope/$file" PROGRAM="$program" LAB_DIR="$directory" \
      >"$stage/$file"
    chmod 755 "$stage/$file"
  done
  fill_template "$platforms/gradescope/README.md.in" PROGRAM="$program" LAB_DIR="$directory" \
    ROOT="$root" WORST="$(rubric_worst_s "$rubric")" >"$stage/README.md"
}

# The students' starting repository: the student pack's tree (every lab's student version: they
# build and test together), ASSIGNMENT.md, and the workflow that grades LAB's visible cases.
package_classroom() { # PROGRAM, LAB DIRECTORY, RUBRIC, GRADER, STAGE
  local program=$1 directory=$2 rubric=$3 grader=$4 stage=$5
  # The visible cases, as the grader keeps them for the student pack.
  "$grader" --visible-cases "$rubric" >"$package_work/visible" ||
    die "package: the visible cases of labs/$directory/rubric could not be read"
  # The pack, as ./memlab student-pack makes it.
  "$root/tools/package/student_pack.sh" "$package_work/pack.tar.gz" >/dev/null || exit 2
  tar -xzf "$package_work/pack.tar.gz" -C "$package_work" || die "package: the student pack does not unpack"
  cp -R "$package_work/memlab/." "$stage/"

  local name points visibility timeout reference model minutes id ids="" steps="" results=""
  local cases="" left_out="" total=0 job_minutes=0 build_minutes=30 count=0
  while IFS=$'\t' read -r name points visibility timeout reference model; do
    [[ $visibility == visible ]] || continue
    if ((reference)); then
      left_out+="${left_out:+, }$name ($points points)"
      continue
    fi
    count=$((count + 1))
    id=case$count # step ids: letters and digits, which Classroom's reporter takes
    # The action's timeout is in minutes: one compile and the case's runs, rounded up.
    minutes=$(((grade_compile_s + $(case_worst_s "$timeout" 0 "$model") + 59) / 60))
    job_minutes=$((job_minutes + minutes))
    total=$(awk -v a="$total" -v b="$points" 'BEGIN { print a + b }')
    steps+="      - name: \"$name\"
        id: $id
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: \"$name\"
          command: \"./memlab grade $program labs/$directory/kernels.cu --case $name\"
          timeout: $minutes
          max-score: $points
"
    results+="          ${id^^}_RESULTS: \"\${{ steps.$id.outputs.result }}\"
"
    ids+="${ids:+,}$id"
    cases+="| \`$name\` | $points |
"
  done < <(rubric_cases "$package_work/visible")
  ((count > 0)) || die "package: lab $program has no visible case that a student's repository can grade (labs/$directory/rubric)"

  mkdir -p "$stage/.github/workflows"
  {
    fill_template "$platforms/classroom/classroom.yml.in" PROGRAM="$program" LAB_DIR="$directory" \
      TOTAL="$total" REFERENCE_CASES="${left_out:-none}" JOB_MINUTES="$((job_minutes + build_minutes))" \
      BUILD_MINUTES="$build_minutes"
    printf '%s' "$steps"
    printf '      - name: Autograding Reporter\n'
    printf '        uses: classroom-resources/autograding-grading-reporter@v1\n'
    printf '        env:\n%s' "$results"
    printf '        with:\n'
    printf '          runners: %s\n' "$ids"
  } >"$stage/.github/workflows/classroom.yml"
  fill_template "$platforms/classroom/ASSIGNMENT.md.in" PROGRAM="$program" LAB_DIR="$directory" \
    NUMBER="${directory%%_*}" TITLE="$(lab_handout_title "$directory")" TOTAL="$total" \
    CASES="${cases%$'\n'}" >"$stage/ASSIGNMENT.md"
}

package "$@"

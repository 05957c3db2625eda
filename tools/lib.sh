# shellcheck shell=bash
# tools/lib.sh: what memlab and the scripts it runs share (sourced, never run): the checkout and
# its build directory, the one error line, the Debian packages and the build, the labs' names and
# folders, the grading tools, the report tool, and the readers of args files, rubrics and
# handouts. Each script that sources it sets `set -euo pipefail` first; memlab's header lists the
# environment it reads (MEMLAB_BUILD, MEMLAB_NO_BUILD, MEMLAB_GRADE, ...).

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MEMLAB_BUILD:-$root/build}

die() { echo "memlab: $*" >&2; exit 2; }

# A file or directory can be made at PATH: its parent directory exists and is writable.
can_create() {
  local parent
  parent=$(dirname -- "$1")
  [[ -n $1 && -d $parent && -w $parent ]]
}

need_tool() { # command, Debian package
  command -v "$1" >/dev/null 2>&1 || die "$1 not found: install the Debian package $2"
}

# ---- set-up: the Debian packages memlab needs ---------------------------------------------------

# What the CMake build needs. CMakeLists.txt configures the tests too, so CMocka is one of them;
# the grader reads class archives with libarchive.
build_packages="cmake libcjson-dev libcmocka-dev libarchive-dev"

# Is what memlab uses of a Debian package here? A file test or a PATH lookup: a machine already
# set up (by apt-get or by hand, where CMake looks by default) pays nothing.
have_package() { # package
  case $1 in
    cmake) command -v cmake >/dev/null 2>&1 ;;
    gnuplot-nox) command -v "$gnuplot" >/dev/null 2>&1 ;;
    chromium) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ;;
    libcjson-dev) have_header cjson/cJSON.h ;;
    libcmocka-dev) have_header cmocka.h ;;
    libarchive-dev) have_header archive.h ;;
    *) die "internal: no test for the package $1" ;;
  esac
}
have_header() { [[ -e /usr/include/$1 || -e /usr/local/include/$1 ]]; }

# Installs what is missing of NEEDED and WANTED (space-separated package names) where this user
# may (root, or sudo without a password), with one line on stderr. Otherwise a missing NEEDED
# package stops memlab with the apt-get line to run (exit 2); a missing WANTED one does not (the
# demo and the tests go on without gnuplot, and say so).
setup_packages() { # NEEDED, WANTED
  local package needed=() missing=() sudo=() log
  for package in $1; do have_package "$package" || needed+=("$package"); done
  missing=("${needed[@]}")
  for package in $2; do have_package "$package" || missing+=("$package"); done
  ((${#missing[@]} > 0)) || return 0
  if [[ $EUID -ne 0 ]] && sudo -n true >/dev/null 2>&1; then sudo=(sudo -n); fi
  if command -v apt-get >/dev/null 2>&1 && [[ $EUID -eq 0 || ${#sudo[@]} -gt 0 ]]; then
    echo "memlab: installing the Debian packages ${missing[*]} (apt-get)" >&2
    log=$(mktemp)
    if ! { "${sudo[@]}" apt-get update -qq &&
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
      tail -n 20 "$log" >&2
      rm -f "$log"
      # Only a wanted package missing (no package source reachable, say): go on without it.
      if ((${#needed[@]} == 0)); then
        echo "memlab: warning: ${missing[*]} not installed: going on without" >&2
        return 0
      fi
      die "installing ${missing[*]} failed (apt-get's output is above)"
    fi
    rm -f "$log"
  elif ((${#needed[@]} > 0)); then
    die "missing Debian packages: run  sudo apt-get install ${missing[*]}  then this command again"
  fi
}

cuda_architectures() {
  if [[ -n ${MEMLAB_CUDA_ARCH:-} ]]; then
    echo "$MEMLAB_CUDA_ARCH"
  elif command -v nvidia-smi >/dev/null 2>&1 &&
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null) &&
    cap=${cap%%$'\n'*} && [[ $cap =~ ^[0-9]+\.[0-9]+$ ]]; then
    echo "${cap/./}"
  else
    echo "75;80;86;89;90"
  fi
}

# Sets up and builds everything, unless MEMLAB_NO_BUILD is set. WANTED: packages to install too
# where this user may (setup_packages).
# shellcheck disable=SC2120 # memlab and demo.sh name packages to want
build() { # [WANTED...]
  [[ -z ${MEMLAB_NO_BUILD:-} ]] || return 0
  setup_packages "$build_packages" "$*"
  need_tool nvcc nvidia-cuda-toolkit
  mkdir -p "$build"
  if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="$(cuda_architectures)" >"$build/configure.log" 2>&1 || {
      rm -f "$build/CMakeCache.txt" # so the next call configures again
      # CMakeLists.txt names the Debian package of anything missing. (grep -m1, not a pipe into
      # head: under pipefail an early exit or no match would end memlab before die says why.)
      local reason
      reason=$(grep -m1 -o '[^ ]* not found: install the Debian package [^ ]*' "$build/configure.log" || true)
      die "${reason:-configuring the build failed (log: $build/configure.log)}"
    }
  fi
  cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 || {
    # sed reads all of grep's output: head would leave grep to die of SIGPIPE under pipefail.
    { grep -h -B2 -A6 -E 'error|Error' "$build/build.log" || true; } | sed -n '1,40p' >&2
    die "the build failed (log: $build/build.log)"
  }
}

# Labs that exist: labs/NN_PROGRAM/PROGRAM.cu, in lesson order.
lab_programs() {
  for directory in "$root"/labs/[0-9][0-9]_*/; do
    directory=$(basename "$directory")
    [[ -e $root/labs/$directory/${directory#[0-9][0-9]_}.cu ]] && echo "${directory#[0-9][0-9]_}"
  done
}

# Is NAME a lab program? A loop, not lab_programs | grep -qx: under pipefail grep's exit at the
# first match kills lab_programs with SIGPIPE, and every lab but the last was refused.
is_lab_program() { # name
  local program
  for program in $(lab_programs); do
    [[ $program == "$1" ]] && return 0
  done
  return 1
}

# Exit 2 unless the lab program is built (with MEMLAB_NO_BUILD nothing builds it).
need_lab_program() { # program
  [[ -x $build/labs/$1 ]] || die "$build/labs/$1 is not built"
}

lab_dir() { echo "$root"/labs/[0-9][0-9]_"$1"; }

# ---- reports ----------------------------------------------------------------------------------

gnuplot=${MEMLAB_GNUPLOT:-gnuplot} # the tests name a missing one
# shellcheck disable=SC2034 # demo.sh's and plot.sh's
gnuplot_missing='gnuplot not found: install the Debian package gnuplot-nox to draw the plots'

# memlab_report reads the labs' JSON (tools/report/memlab_report.c). CMake builds it with
# everything else; where there is no build (a laptop without CUDA plotting a GPU host's data) it is
# compiled alone, from C and cJSON only: tools/report/ over reporting/ (the memlab_reporting
# library, which includes nothing above it).
report_tool() {
  local sources=("$root"/tools/report/*.c "$root"/reporting/*.c)
  local headers=("$root"/tools/report/*.h "$root"/reporting/*.h)
  local tool source fresh
  for tool in "$build/tools/memlab_report" "$build/standalone/memlab_report"; do
    fresh=1
    for source in "${sources[@]}" "${headers[@]}"; do [[ $tool -nt $source ]] || fresh=0; done
    if [[ -x $tool && $fresh -eq 1 ]]; then
      echo "$tool"
      return
    fi
  done
  need_tool cc gcc
  mkdir -p "$build/standalone"
  cc -std=c11 -O2 -I"$root/reporting" "${sources[@]}" \
    -lcjson -lm -o "$tool" 2>"$build/standalone/build.log" ||
    die "compiling memlab_report failed (log: $build/standalone/build.log): install the Debian package libcjson-dev"
  echo "$tool"
}

# The lines of a lab's demo.args, quick.args or check.args (one program run each); a lab without
# the file runs once, as is.
demo_runs() { # program, demo.args, quick.args or check.args
  local file
  file=$(lab_dir "$1")/$2
  if [[ -f $file ]]; then
    grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$file" || true
  else
    echo
  fi
}

# What plot.sh writes, so that a new run leaves no plot of an old one.
clean_plots() { # DIR
  rm -f "$1"/plots/*.svg "$1"/plots/*.png "$1"/plots/*.dat "$1"/plots/*.md "$1"/plots/gnuplot.log
}

# ---- grading and packs -------------------------------------------------------------------------

# A grading tool (memlab_grade, memlab_skeleton): the one MEMLAB_GRADE or MEMLAB_SKELETON names,
# else the build's.
grading_tool() {
  local variable=MEMLAB_${1#memlab_}
  variable=${variable^^}
  if [[ -n ${!variable:-} ]]; then
    echo "${!variable}"
    return
  fi
  build
  echo "$build/tools/$1"
}

# The local files a Markdown page links to or shows, as paths from the page's directory.
markdown_links() { # FILE
  grep -o '\]([^)#[:space:]]*' "$1" | sed 's/^](//' | grep -v -e '^$' -e '://' || true
}

# The pack's README: TEMPLATE with its marker line ("<!-- labs: ...") replaced by the lab table,
# one row per labs/NN_name/ folder, so that no lab that ships is left out of it. The lesson is
# the title of the lab's student handout, "# Lab NN: LESSON": the one source every lab has
# (unit_lab_folders asks for it) that already ships to students, so the table tells them nothing
# the pack does not.
student_readme() { # TEMPLATE, the README on stdout
  local template=$1 line directory lab number title
  grep -q '^<!-- labs: ' "$template" || die "student-pack: $template has no '<!-- labs: ' line"
  while IFS= read -r line; do
    if [[ $line != '<!-- labs: '* ]]; then
      printf '%s\n' "$line"
      continue
    fi
    echo '| handout | program | lesson |'
    echo '| --- | --- | --- |'
    for directory in "$root"/labs/[0-9][0-9]_*/; do
      lab=$(basename "$directory")
      number=${lab%%_*}
      [[ -f $root/handouts/$lab.md ]] || die "student-pack: labs/$lab has no handout, handouts/$lab.md"
      title=$(head -n 1 "$root/handouts/$lab.md")
      [[ $title == "# Lab $number: "?* ]] ||
        die "student-pack: handouts/$lab.md does not start with '# Lab $number: LESSON'"
      title=${title#"# Lab $number: "}
      echo "| [Lab $number](handouts/$lab.md) | \`${lab#*_}\` | ${title//|/\\|} |"
    done
  done <"$template"
}

# A case's time limit when the rubric names none (tools/grade/rubric.h).
rubric_default_timeout_s=60

# One line per case of a rubric that memlab_grade --check-rubric has read: NAME, POINTS,
# VISIBILITY, TIME LIMIT (s), 1 if it compares with the reference solution (time_ratio,
# ~ reference), 1 if it needs the access model's predictions (~ predicted); tab-separated.
rubric_cases() { # RUBRIC
  awk -v default_timeout="$rubric_default_timeout_s" '
    function flush() {
      if (name != "") printf "%s\t%s\t%s\t%s\t%d\t%d\n", name, points, visibility, timeout, reference, model
    }
    $1 ~ /^#/ || NF == 0 { next }
    $1 == "case" {
      flush()
      name = $2; points = $3; visibility = $4; timeout = default_timeout; reference = 0; model = 0
      next
    }
    $1 == "timeout" { if (name == "") default_timeout = $2; else timeout = $2; next }
    $1 == "check" {
      sub(/\|.*/, "")      # the hint says nothing of the kind of check
      if ($3 == "~" && $4 == "reference") reference = 1
      if ($2 == "time_ratio" && $3 != "~") reference = 1
      if ($3 == "~" && $4 == "predicted") model = 1
    }
    END { flush() }
  ' "$1"
}


#!/usr/bin/env bash
# tools/grade/slurm.sh: the Slurm side of ./memlab grade, which memlab runs:
#   tools/grade/slurm.sh LAB CLASS --slurm [OPTION...]   grade a class as a Slurm job array
#   tools/grade/slurm.sh --merge DIR                      the merge job's command, by hand
#   tools/grade/slurm.sh --help                           the options, for ./memlab grade --help
# handouts/instructor/grading.md is the instructor's guide; tests/unit/test_grade_slurm.sh its test.
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# ./memlab grade LAB CLASS --slurm writes two job scripts into OUT/slurm/ and submits them:
# grade.sbatch, a job array whose task K grades shard K of N (memlab_grade --shard K/N) into
# OUT/shards/K on a GPU node, and merge.sbatch, which joins the shard folders into OUT once the
# array has ended (memlab_grade --merge). OUT/slurm/settings keeps the lab, the class and N, so
# that a second run resubmits only the shards left and ./memlab grade --merge OUT needs no more.

slurm_usage="./memlab grade LAB CLASS --slurm [--shards N] [--partition P] [--gres gpu:1]"
slurm_usage+=" [--time T] [--account A] [--out DIR] [--dry-run]"
slurm_default_shards=4

# The options ./memlab grade adds for a Slurm cluster, after the grader's own (--help).
slurm_help() {
  cat <<'HELP'

a class on a Slurm cluster (the driver writes and submits the job scripts):
  ./memlab grade LAB CLASS --slurm [--shards N] [--partition P] [--gres gpu:1] [--time T]
                [--account A] [--out DIR] [--dry-run] [--jobs N] [--cases FILE]... [--case NAME]
  ./memlab grade --merge DIR         join the shards into DIR by hand (what the merge job runs)
  --slurm            grade the class as a job array, one task a shard, each task on one GPU
                     node compiling and grading its own shard's submissions; then a merge job
                     writes DIR's scores.csv, canvas.csv, files.csv, feedback/ and results/.
                     The checkout (built), CLASS and DIR must be on a file system that the
                     compute nodes share; CLASS and DIR are written into the scripts as
                     absolute paths. Run again on the same DIR: only the shards with
                     submissions left ungraded are submitted again
  --shards N         shards, 1 to 4096 (default 4; Slurm's MaxArraySize must exceed N - 1)
  --partition P      the partition (or P1,P2) the jobs go to (default: the cluster's)
  --gres GRES        a task's GPU, gpu:1 or gpu:TYPE:1 (default gpu:1): a shard grades on one
  --time T           each job's time limit, in Slurm's formats: M, M:S, H:M:S, D-H, D-H:M,
                     D-H:M:S (default: the partition's)
  --account A        the account the jobs are charged to (default: yours)
  --dry-run          write DIR/slurm/grade.sbatch and merge.sbatch, and print the sbatch
                     commands instead of running them
HELP
}

# Slurm's time formats (sbatch --time): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
is_slurm_time() { # TEXT
  [[ $1 =~ ^[0-9]{1,7}(:[0-5]?[0-9]){0,2}$ ||
    $1 =~ ^[0-9]{1,4}-([01]?[0-9]|2[0-3])(:[0-5]?[0-9]){0,2}$ ]]
}

# A name as Slurm takes it for a partition or an account, and that a script can hold unquoted.
is_slurm_name() { # TEXT
  [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$ ]]
}

# A path that an #SBATCH line can hold as it is: no space, quote, backslash or % (Slurm reads
# %j, %A, %a in a log's name).
is_sbatch_path() { # PATH
  [[ $1 =~ ^/[A-Za-z0-9_./+@,:=~-]*$ ]]
}

# An absolute path of PATH, whose parent directory exists.
absolute_path() { # PATH
  local parent
  parent=$(cd -- "$(dirname -- "$1")" && pwd -P) || return 1
  echo "${parent%/}/$(basename -- "$1")"
}

# Sorted shard numbers as Slurm's --array list: 0-3,7,9-10.
array_list() { # SHARD...
  local list="" first=-1 last=-1 shard
  for shard in "$@" -1; do
    if ((first >= 0 && shard == last + 1)); then
      last=$shard
      continue
    fi
    if ((first >= 0)); then
      if ((first == last)); then list+=",$first"; else list+=",$first-$last"; fi
    fi
    first=$shard
    last=$shard
  done
  echo "${list#,}"
}

# The value of KEY in OUT/slurm/settings (KEY=VALUE lines, read, never sourced).
slurm_setting() { # SETTINGS FILE, KEY
  local key value
  while IFS='=' read -r key value; do
    if [[ $key == "$2" ]]; then
      echo "$value"
      return 0
    fi
  done <"$1"
  return 1
}

# The shards of OUT that a job must grade (again): those that the grader's JSON status does not
# find done (no folder yet, not started, submissions left or not graded). Its "shards_left" and
# "shard_count" come before any submission's name, which is a JSON string (its quotes escaped),
# so no name can stand for them. Where no shard has started (or --status fails), every shard is
# left.
slurm_shards_left() { # GRADER, OUT, N
  local grader=$1 out=$2 count=$3 shard status_json="" known=0 listed=""
  status_json=$("$grader" --status "$out" --format json 2>/dev/null) || status_json=""
  local left_pattern='"shards_left":[[:space:]]*\[([0-9,[:space:]]*)\]'
  [[ ! $status_json =~ \"shard_count\":[[:space:]]*([0-9]+) ]] || known=${BASH_REMATCH[1]}
  if ((known == count)) && [[ $status_json =~ $left_pattern ]]; then
    listed=${BASH_REMATCH[1]//,/ }
    for shard in $listed; do echo "$shard"; done
    return
  fi
  for ((shard = 0; shard < count; shard++)); do echo "$shard"; done
}

# OUT/slurm/grade.sbatch and merge.sbatch. The paths in their commands are quoted for bash;
# those in #SBATCH lines (OUT) are checked to need no quotes (is_sbatch_path).
write_slurm_scripts() { # OUT, PROGRAM, CLASS, N, ARRAY, CASE OPTIONS...
  local out=$1 program=$2 class=$3 count=$4 array=$5
  shift 5
  local options="" option header="" environment
  for option in "$@"; do options+=" $(printf '%q' "$option")"; done
  [[ -z $slurm_partition ]] || header+="#SBATCH --partition=$slurm_partition"$'\n'
  [[ -z $slurm_account ]] || header+="#SBATCH --account=$slurm_account"$'\n'
  [[ -z $slurm_time ]] || header+="#SBATCH --time=$slurm_time"$'\n'
  # The tasks build nothing: the checkout was built before (no toolkit is needed where sbatch
  # runs, and N tasks building one tree at once would spoil it).
  environment="export MEMLAB_NO_BUILD=1 MEMLAB_BUILD=$(printf '%q' "$slurm_build")"
  [[ -z ${MEMLAB_GRADE:-} ]] || environment+=" MEMLAB_GRADE=$(printf '%q' "$MEMLAB_GRADE")"
  local quoted_root quoted_class
  quoted_root=$(printf '%q' "$root")
  quoted_class=$(printf '%q' "$class")
  {
    echo "#!/bin/bash"
    echo "# memlab (./memlab grade $program CLASS --slurm wrote it): task K of this job array"
    echo "# grades shard K of $count of the class into OUT/shards/K; ./memlab grade --status OUT"
    echo "# says how far they are."
    echo "#SBATCH --job-name=memlab-grade-$program"
    echo "#SBATCH --array=$array"
    echo "#SBATCH --ntasks=1"
    [[ -z $slurm_jobs ]] || echo "#SBATCH --cpus-per-task=$slurm_jobs"
    echo "#SBATCH --gres=$slurm_gres"
    printf '%s' "$header"
    echo "#SBATCH --output=$out/slurm/grade-%A_%a.out"
    echo "set -u"
    echo "cd $quoted_root || exit 2"
    echo "$environment"
    echo "# The grader's GPU lock is named after CUDA_VISIBLE_DEVICES. Where cgroups hide the node's"
    echo "# other GPUs, Slurm may call each task's GPU 0, and two tasks on one node would take turns"
    echo "# on one lock: name the GPU by its UUID when it is the only one this task sees."
    echo "gpus=\$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null)"
    echo "if [[ -n \${CUDA_VISIBLE_DEVICES:-} && \$gpus == GPU-* && \$gpus != *[[:space:]]* ]]; then"
    echo "  export CUDA_VISIBLE_DEVICES=\$gpus"
    echo "fi"
    echo "./memlab grade $program $quoted_class --shard \"\$SLURM_ARRAY_TASK_ID/$count\" \\"
    echo "  --out \"$out/shards/\$SLURM_ARRAY_TASK_ID\"${slurm_jobs:+ --jobs $slurm_jobs}$options"
    echo "status=\$?"
    echo "# 1 is a student's failed case, not the task's failure: only 2 (bad input) and 3 (this"
    echo "# node cannot grade) fail the task, so that sacct names the shards to look at."
    echo "if [[ \$status -eq 1 ]]; then exit 0; fi"
    echo "exit \$status"
  } >"$out/slurm/grade.sbatch.new"
  {
    echo "#!/bin/bash"
    echo "# memlab (./memlab grade $program CLASS --slurm wrote it): joins the shard folders"
    echo "# OUT/shards/* into OUT (scores.csv, canvas.csv, files.csv, feedback/, results/), with no"
    echo "# GPU; ./memlab grade --merge OUT runs it by hand."
    echo "#SBATCH --job-name=memlab-merge-$program"
    echo "#SBATCH --ntasks=1"
    printf '%s' "$header"
    echo "#SBATCH --output=$out/slurm/merge-%j.out"
    echo "set -u"
    echo "cd $quoted_root || exit 2"
    echo "$environment"
    echo "./memlab grade $program $quoted_class --merge $out/shards/* \\"
    echo "  --out $out$options"
    echo "status=\$?"
    echo "if [[ \$status -eq 1 ]]; then exit 0; fi # a student's failed case: the merge is done"
    echo "exit \$status"
  } >"$out/slurm/merge.sbatch.new"
  chmod +x "$out/slurm/grade.sbatch.new" "$out/slurm/merge.sbatch.new"
  mv "$out/slurm/grade.sbatch.new" "$out/slurm/grade.sbatch"
  mv "$out/slurm/merge.sbatch.new" "$out/slurm/merge.sbatch"
}

# ./memlab grade LAB CLASS --slurm [...]: every input is checked before anything is written.
grade_slurm() { # LAB, CLASS, OPTIONS...
  [[ $# -ge 2 && $1 != -* && $2 != -* ]] ||
    die "grade --slurm needs a lab and a class: $slurm_usage"
  local program=$1 class=$2
  shift 2
  local count="" out="" dry_run=0 value
  local case_options=() cases_files=() case_name="" # the cases: the tasks' and the merge's
  slurm_partition="" slurm_account="" slurm_time="" slurm_gres=gpu:1 slurm_jobs=""
  while (($# > 0)); do
    case $1 in
      --slurm | --dry-run)
        [[ $1 == --slurm ]] || dry_run=1
        shift
        continue
        ;;
      --shards | --partition | --gres | --time | --account | --out | --jobs | --cases | --case)
        (($# >= 2)) || die "grade --slurm: $1 needs a value"
        value=$2
        ;;
      --gpus | --mixed-gpus)
        die "grade --slurm: $1 is for one host:" \
          "each Slurm task grades on the one GPU of its --gres" ;;
      --shard | --merge | --status)
        die "grade --slurm: $1 is not for --slurm, which shards and merges itself ($slurm_usage)" ;;
      --format)
        die "grade --slurm: --format is for one submission: a class gets scores.csv and the rest" ;;
      *) die "grade --slurm: unknown option '$1' ($slurm_usage)" ;;
    esac
    case $1 in
      --shards)
        [[ $value =~ ^[1-9][0-9]{0,3}$ && $value -le 4096 ]] ||
          die "grade --slurm: --shards is a whole number from 1 to 4096, got '$value'"
        count=$value
        ;;
      --partition)
        [[ $value =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]*(,[A-Za-z0-9_][A-Za-z0-9_.-]*)*$ ]] ||
          die "grade --slurm: --partition is a partition's name (letters, digits, _ . -)," \
            "or names with commas, got '$value'"
        slurm_partition=$value
        ;;
      --gres)
        [[ $value =~ ^gpu(:1|:[A-Za-z_][A-Za-z0-9_.-]*(:1)?)?$ ]] ||
          die "grade --slurm: --gres asks for one GPU a task, gpu:1 or gpu:TYPE:1" \
            "(a shard grades on one GPU; give more --shards), got '$value'"
        slurm_gres=$value
        ;;
      --time)
        is_slurm_time "$value" ||
          die "grade --slurm: --time is in Slurm's formats," \
            "M, M:S, H:M:S, D-H, D-H:M or D-H:M:S, got '$value'"
        slurm_time=$value
        ;;
      --account)
        is_slurm_name "$value" ||
          die "grade --slurm: --account is an account's name (letters, digits, _ . -), got '$value'"
        slurm_account=$value
        ;;
      --out) out=$value ;;
      --jobs)
        [[ $value =~ ^[1-9][0-9]?$ && $value -le 64 ]] ||
          die "grade --slurm: --jobs is a whole number from 1 to 64, got '$value'"
        slurm_jobs=$value
        ;;
      --cases)
        [[ -f $value && -r $value ]] || die "grade --slurm: --cases $value: no such readable file"
        value=$(absolute_path "$value") ||
          die "grade --slurm: --cases: cannot resolve the path of '$2'"
        cases_files+=("$value")
        case_options+=(--cases "$value")
        ;;
      --case)
        case_name=$value
        case_options+=(--case "$value")
        ;;
    esac
    shift 2
  done

  is_lab_program "$program" ||
    die "grade --slurm: no lab program '$program': one of $(lab_programs | tr '\n' ' ')"
  local rubric
  rubric=$(lab_dir "$program")/rubric
  [[ -f $rubric ]] || die "grade --slurm: lab $program has no rubric ($rubric)"
  # The class: a folder or an archive (the grader's batch_is_batch), named by its absolute path
  # in the scripts. The driver cannot tell whether the compute nodes see it: the docs say so.
  if [[ -d $class ]]; then
    :
  elif [[ -f $class ]]; then
    [[ $class =~ \.(zip|tar|tar\.gz|tgz)$ ]] ||
      die "grade --slurm: the class is a folder or an archive" \
        "(.zip, .tar, .tar.gz, .tgz), got '$class'"
  else
    die "grade --slurm: no class '$class' (a folder or an archive of submissions)"
  fi
  class=$(absolute_path "$class") || die "grade --slurm: cannot resolve the path of '$2'"
  # (OUT/slurm/settings keeps it on a line.)
  [[ $class != *$'\n'* ]] || die "grade --slurm: the class's path holds a line break: rename it"

  out=${out:-grades-$program}
  if [[ -e $out ]]; then
    [[ -d $out && -w $out && -x $out ]] || die "grade --slurm: cannot write to '$out'"
  else
    can_create "$out" ||
      die "grade --slurm: cannot write '$out' (its parent directory must exist and be writable)"
  fi
  out=$(absolute_path "$out") || die "grade --slurm: cannot resolve the path of '$out'"
  is_sbatch_path "$out" ||
    die "grade --slurm: the output folder's path goes into #SBATCH lines," \
      "so letters, digits and _ . / + @ , : = ~ - only, got '$out'"
  local settings=$out/slurm/settings again=0
  if [[ -f $settings ]]; then
    # A second run on OUT: the same lab, class and shards, or the shards would not match.
    again=1
    local before
    before=$(slurm_setting "$settings" lab) || before=""
    [[ $before == "$program" ]] ||
      die "grade --slurm: $out holds the Slurm grading of lab ${before:-?}: give another --out"
    before=$(slurm_setting "$settings" class) || before=""
    [[ $before == "$class" ]] ||
      die "grade --slurm: $out holds the Slurm grading of the class ${before:-?}:" \
        "give another --out"
    before=$(slurm_setting "$settings" shards) || before=""
    [[ $before =~ ^[1-9][0-9]*$ ]] ||
      die "grade --slurm: $settings names no number of shards: give a new --out"
    [[ -z $count || $count == "$before" ]] ||
      die "grade --slurm: $out was split into $before shards, not $count:" \
        "give --shards $before or another --out"
    count=$before
  elif [[ -e $out && -n $(ls -A "$out") ]]; then
    die "grade --slurm: $out holds files but no Slurm grading ($out/slurm/settings):" \
      "give a new or empty folder"
  fi
  count=${count:-$slurm_default_shards}
  ((dry_run)) || command -v sbatch >/dev/null 2>&1 ||
    die "grade --slurm: sbatch not found: run this on the cluster's login node," \
      "or add --dry-run to write the job scripts only"

  # The checkout the tasks run, built here (unless MEMLAB_NO_BUILD): the tasks build nothing.
  local grader
  grader=$(grading_tool memlab_grade)
  need_lab_program "$program"
  "$grader" --check-rubric "$rubric" "${cases_files[@]}" >/dev/null || exit 2 # it said why
  if [[ -n $case_name ]]; then
    # (Into a variable first: grep -q's early exit would kill the pipe under pipefail.)
    local names
    names=$(rubric_cases <(cat "$rubric" "${cases_files[@]}") | cut -f1)
    grep -qxF -- "$case_name" <<<"$names" ||
      die "grade --slurm: no case named '$case_name' in the rubric (or the --cases files)"
  fi
  slurm_build=$(cd "$build" && pwd -P)

  local shards=() array
  if ((again)); then
    local left
    left=$(slurm_shards_left "$grader" "$out" "$count")
    mapfile -t shards < <(printf '%s' "$left")
    if ((${#shards[@]} == 0)); then
      echo "memlab grade: every shard of $out is graded: nothing to submit" \
        "(join them: ./memlab grade --merge $out)"
      return 0
    fi
    array=$(array_list "${shards[@]}")
  else
    array=0-$((count - 1))
  fi

  mkdir -p "$out/slurm" "$out/shards"
  printf 'lab=%s\nclass=%s\nshards=%s\n' "$program" "$class" "$count" >"$settings"
  write_slurm_scripts "$out" "$program" "$class" "$count" "$array" "${case_options[@]}"
  local what="lab $program's shards $array of $count"
  if ((again)); then what+=", those left"; fi
  if ((dry_run)); then
    echo "memlab grade: wrote $out/slurm/grade.sbatch ($what) and merge.sbatch; submit them with:"
    echo "sbatch --parsable $out/slurm/grade.sbatch"
    echo "sbatch --parsable --dependency=afterany:JOBID $out/slurm/merge.sbatch"
    return 0
  fi
  local job merge_job
  # sbatch --parsable prints JOBID, or JOBID;CLUSTER.
  job=$(sbatch --parsable "$out/slurm/grade.sbatch") || job=""
  job=${job%%;*}
  if [[ ! $job =~ ^[0-9]+$ ]]; then
    echo "memlab grade: sbatch did not submit $out/slurm/grade.sbatch (${job:-no job id})" >&2
    exit 1
  fi
  merge_job=$(sbatch --parsable --dependency="afterany:$job" "$out/slurm/merge.sbatch") ||
    merge_job=""
  merge_job=${merge_job%%;*}
  if [[ ! $merge_job =~ ^[0-9]+$ ]]; then
    echo "memlab grade: sbatch did not submit the merge (job $job grades;" \
      "join the shards after it: ./memlab grade --merge $out)" >&2
    exit 1
  fi
  echo "memlab grade: job $job grades $what, a task each (logs in $out/slurm/)"
  echo "memlab grade: job $merge_job joins the shards into $out once job $job has ended"
  echo "memlab grade: progress: ./memlab grade --status $out"
}

# ./memlab grade --merge DIR: by hand, the merge job's own command (DIR/slurm/merge.sbatch holds
# the lab and the class).
merge_by_hand() { # DIR
  [[ -f $1/slurm/merge.sbatch ]] ||
    die "grade --merge: $1/slurm/merge.sbatch not found: give a folder that" \
      "./memlab grade --slurm wrote, or the grader's own:" \
      "./memlab grade LAB CLASS --merge SHARD_FOLDER... --out OUT"
  exec bash "$1/slurm/merge.sbatch"
}

if [[ ${1:-} == --help ]]; then
  slurm_help
elif [[ ${1:-} == --merge && $# -eq 2 ]]; then
  merge_by_hand "$2"
else
  grade_slurm "$@"
fi

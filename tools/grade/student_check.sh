#!/usr/bin/env bash
# tools/grade/student_check.sh [LAB...]: a student pack's ./memlab test [LAB...], which memlab
# runs: builds if needed, then checks the student's kernels of each LAB (default: every lab), one
# line a lab, then how many are done. Exit 0 when every variant of every lab checked matched the
# CPU reference, 1 when one did not, 2 for bad usage or a failed build, 3 without a GPU.
set -euo pipefail
# shellcheck source=tools/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# "lab NN PROGRAM: ..." for one lab: every variant run at each size of the lab's check.args (the
# small sizes compute-sanitizer checks), one rep, no counters, each output against the CPU
# reference, read from the run's JSON report. Prints the lab's line; returns 0 when every
# variant was right, 1 when one was not, 3 when there is no GPU to run on.
check_student_lab() { # PROGRAM TOOL (memlab_report)
  local program=$1 tool=$2 directory number arguments log report status variant verdict
  directory=$(basename "$(lab_dir "$program")")
  number=${directory%%_*}
  log=$(mktemp)
  report=$(mktemp)
  local -A wrong=() seen=()
  local order=() failures=0
  while IFS= read -r arguments; do
    status=0
    # shellcheck disable=SC2086 # an args line is words on purpose
    "$build/labs/$program" $arguments --reps 1 --warmup 0 --metrics none --format json \
      --out "$report" >"$log" 2>&1 || status=$?
    if [[ $status -eq 3 ]]; then
      rm -f "$log" "$report"
      return 3
    fi
    # Each record's check from the run's report (memlab_report checks): "ok" or how many
    # checked values differed.
    while IFS=$'\t' read -r variant verdict; do
      [[ -n ${seen[$variant]:-} ]] || { seen[$variant]=1; order+=("$variant"); }
      if [[ $verdict != ok && -z ${wrong[$variant]:-} ]]; then
        wrong[$variant]="$verdict checked values differ from the CPU reference (at $arguments)"
      fi
    done < <([[ ! -s $report ]] || "$tool" checks "$report" 2>/dev/null)
    if [[ $status -ne 0 && $status -ne 1 ]] || { [[ $status -eq 1 ]] && ((${#wrong[@]} == 0)); }; then
      printf 'lab %s %s: FAIL: the run stopped (exit %d) at %s: %s\n' "$number" "$program" \
        "$status" "$arguments" "$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)"
      rm -f "$log" "$report"
      return 1
    fi
    : >"$report"
  done < <(demo_runs "$program" check.args)
  rm -f "$log" "$report"
  if ((${#order[@]} == 0)); then
    printf 'lab %s %s: FAIL: no run checked a variant\n' "$number" "$program"
    return 1
  fi
  local parts=() right=0
  for variant in "${order[@]}"; do
    if [[ -n ${wrong[$variant]:-} ]]; then
      parts+=("$variant FAIL: ${wrong[$variant]}")
      failures=$((failures + 1))
    else
      parts+=("$variant ok")
      right=$((right + 1))
    fi
  done
  local joined
  joined=$(printf '%s; ' "${parts[@]}")
  printf 'lab %s %s: %s%d of %d variants correct\n' "$number" "$program" "$joined" "$right" "${#order[@]}"
  ((failures == 0))
}

# A pack's ./memlab test [LAB...]: one line a lab, then how many are done. Exit 0 when every
# variant of every lab checked matched the CPU reference, 1 when one did not, 3 without a GPU.
check_student_kernels() { # [LAB...]
  local programs=("$@") program done=0 status
  ((${#programs[@]} > 0)) || mapfile -t programs < <(lab_programs)
  for program in "${programs[@]}"; do
    is_lab_program "$program" || die "test: no lab '$program': one of $(lab_programs | tr '\n' ' ')"
  done
  build
  local tool
  tool=$(report_tool)
  for program in "${programs[@]}"; do
    need_lab_program "$program"
    status=0
    check_student_lab "$program" "$tool" || status=$?
    if [[ $status -eq 3 ]]; then
      echo "memlab: every lab's kernels.cu compiled, but checking them needs a GPU: no usable CUDA device here (nvidia-smi says why); run ./memlab test on a machine with one, or ./memlab grade LAB KERNELS.cu where your course grades" >&2
      return 3
    fi
    ((status == 0)) && done=$((done + 1))
  done
  echo "memlab: $done of ${#programs[@]} labs done (every variant matches the CPU reference)"
  ((done == ${#programs[@]})) || return 1
}

status=0
check_student_kernels "$@" || status=$?
exit "$status"

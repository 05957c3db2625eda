#!/usr/bin/env bash
# grade_fake_lab.sh: a stand-in for a lab program, for testing the grader without nvcc or a GPU.
# It keeps the lab programs' contract with the grader (runner/kernel_loader.h, common/memlab.h):
#
#   PROGRAM --kernels FILE.cu --save-kernels OUT.fatbin      compile: writes OUT.fatbin (a copy)
#   PROGRAM ARGS [--kernels FILE] [--model] --format json --out REPORT     a run: writes REPORT
#   PROGRAM --cases FILE      each line a run, in order: its output into REPORT.stdout and
#                             REPORT.stderr, "STATUS 0" into REPORT.exit; a run killed (a
#                             signal, its --time-limit) kills the whole process the same way,
#                             as a crash or a hang does in a lab program's --cases
#
# What the "kernels" do is written in them, as words the program looks for:
#   REFUSE_ME      the compile refuses the file (exit 2, one line), as an #include of the rubric
#   SYNTAX_ERROR   the compile fails (exit 1, a compiler message naming the file)
#   WRONG          every record is incorrect (exit 1)
#   CRASH          the run with --n 2 dies of SIGSEGV
#   HANG           the run with --n 3 never ends (the case's time limit stops it)
# and the environment sets the host:
#   CUDA_VISIBLE_DEVICES set and empty   no device: exit 3, as the lab programs do
#   FAKE_LAB_NO_COUNTERS=1               counters not readable: the report's profiler_note says
#                                        why, measured metrics are null
#   FAKE_LAB_SLEEP=SECONDS               each run on the "GPU" takes this long
#   FAKE_LAB_LOG=FILE                    a compile appends "compile NAME.cu" to FILE; each run
#                                        "begin PID FILE DEVICES" (DEVICES: what
#                                        CUDA_VISIBLE_DEVICES says, "unset" when it is) and
#                                        "end PID" (--model runs nothing)
#   FAKE_LAB_RUNS=FILE                   each run appends "n=N WHAT HOW": WHAT submission,
#                                        reference or model; HOW alone, or cases (a line of
#                                        PROGRAM --cases); each --cases process "cases LINES"
set -u
if [[ $# -eq 2 && $1 == --cases ]]; then
  if [[ -n ${FAKE_LAB_RUNS:-} ]]; then echo "cases $(grep -c . "$2")" >>"$FAKE_LAB_RUNS"; fi
  export FAKE_LAB_VIA=cases
  while read -r -a words; do
    ((${#words[@]} > 0)) || continue
    report="" limit=0
    for ((i = 0; i < ${#words[@]} - 1; i++)); do
      [[ ${words[i]} != --out ]] || report=${words[i + 1]}
      [[ ${words[i]} != --time-limit ]] || limit=${words[i + 1]}
    done
    status=0
    if ((limit > 0)); then
      timeout -s KILL "$limit" "$0" "${words[@]}" >"$report.stdout" 2>"$report.stderr" || status=$?
    else
      "$0" "${words[@]}" >"$report.stdout" 2>"$report.stderr" || status=$?
    fi
    # Killed (SIGKILL at the time limit stands for the lab program's SIGALRM): so is this.
    if ((status > 128)); then kill -s "$((status - 128))" $$; sleep 1; fi
    echo "$status 0" >"$report.exit"
  done <"$2"
  exit 0
fi
kernels="" save="" out="" model=0 n=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --kernels) kernels=$2; shift 2 ;;
    --save-kernels) save=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --model) model=1; shift ;;
    --n) n=$2; shift 2 ;;
    *) shift ;;
  esac
done

if [[ -n $save ]]; then
  name=$(basename "$kernels")
  if [[ -n ${FAKE_LAB_LOG:-} ]]; then echo "compile $name" >>"$FAKE_LAB_LOG"; fi
  if grep -q REFUSE_ME "$kernels"; then
    echo "toy: $name: line 1: #include \"rubric\" is not allowed: a kernels file includes only CUDA headers" >&2
    exit 2
  fi
  if grep -q SYNTAX_ERROR "$kernels"; then
    echo "$name(1): error: expected a \";\"" >&2
    echo "toy: $name does not compile (the compiler's messages are above)" >&2
    exit 1
  fi
  cp "$kernels" "$save"
  echo "toy: $name compiled into $save"
  exit 0
fi

if [[ ${CUDA_VISIBLE_DEVICES+set} == set && -z $CUDA_VISIBLE_DEVICES && $model -eq 0 ]]; then
  echo "toy: no usable CUDA device (no CUDA-capable device is detected); ./memlab run toy --model gives the predictions without one" >&2
  exit 3
fi
on_gpu=$((model == 0))
if [[ -n ${FAKE_LAB_RUNS:-} ]]; then
  what=reference
  [[ -z $kernels ]] || what=submission
  ((model == 0)) || what=model
  echo "n=$n $what ${FAKE_LAB_VIA:-alone}" >>"$FAKE_LAB_RUNS"
fi
if ((on_gpu)) && [[ -n ${FAKE_LAB_LOG:-} ]]; then
  echo "begin $$ ${kernels:-reference} ${CUDA_VISIBLE_DEVICES-unset}" >>"$FAKE_LAB_LOG"
fi
said() { [[ -n $kernels ]] && grep -q "$1" "$kernels"; }
if said CRASH && [[ $n == 2 ]]; then kill -SEGV $$; fi
if said HANG && [[ $n == 3 ]]; then exec sleep 1000; fi
if ((on_gpu)); then sleep "${FAKE_LAB_SLEEP:-0}"; fi

correct=true
said WRONG && correct=false
measured=100
note=null
if [[ -n ${FAKE_LAB_NO_COUNTERS:-} ]]; then
  measured=null
  note='"not read: GPU performance counters need permission (ERR_NVGPUCTRPERM): run as root, or see https://developer.nvidia.com/ERR_NVGPUCTRPERM"'
fi
cat >"$out" <<EOF
{"lab": "toy", "profiler_note": $note, "records": [{"variant": "copy", "params": {"n": $n},
 "timing": {"median_ms": 1.0}, "correct": $correct, "mismatches": $([[ $correct == true ]] && echo 0 || echo $n),
 "max_rel_error": $([[ $correct == true ]] && echo 0 || echo 1),
 "resources": {"registers_per_thread": 8, "local_bytes_per_thread": 0, "shared_bytes_per_block": 0},
 "metrics": {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct":
   {"alias": "gld_efficiency", "unit": "%", "predicted": 100, "measured": $measured}}}]}
EOF
if ((on_gpu)) && [[ -n ${FAKE_LAB_LOG:-} ]]; then
  echo "end $$" >>"$FAKE_LAB_LOG"
fi
[[ $correct == true ]]

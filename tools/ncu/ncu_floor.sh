# Sourced by tools/ncu/check.sh and tools/ncu/compare_with_ncu.sh.
#
# ncu_write_floor LAB_PROGRAM COUNTERS: prints the DRAM bytes Nsight Compute shows written by a
# kernel that writes nothing: the program's first L2 flush, a read-only sweep of twice the L2.
# Dirty lines that neither memlab's prelude nor Nsight Compute's cache control clears before a
# kernel are written back during it; a DRAM-write difference up to this floor is such lines,
# not the kernel. The amount varies from run to run (2.09 to 2.43 MB in eight runs on an H200,
# with kernel or application replay alike), so the floor is the largest of FLOOR_RUNS
# measurements. check compares launches that follow memlab's flush, where an H200 showed far
# less (a strided copy within 0.23 MB of memlab).
FLOOR_RUNS=3
ncu_write_floor() {
  local program=$1 counters=$2 run value floor=0
  for ((run = 0; run < FLOOR_RUNS; run++)); do
    value=$(ncu_largest "$counters" dram__bytes_write.sum "L2 flush" \
      "--kernel-name regex:read_all_kernel --launch-count 1" "$program") || return 1
    ((value > floor)) && floor=$value
  done
  echo "$floor"
}

# ncu_largest COUNTERS METRIC WHAT FILTER PROGRAM ARGUMENTS...: one run of the program (one rep,
# no warm-up, no counters of its own) under Nsight Compute, which profiles the launches that
# FILTER (ncu's kernel options, as words) selects; prints METRIC's largest value over them. If
# ncu fails, says so on stderr, naming the caller and WHAT it profiled.
ncu_largest() {
  local counters=$1 metric=$2 what=$3 filter=$4 program=$5 csv value
  shift 5
  csv=$(mktemp)
  # shellcheck disable=SC2086 # the filter is words on purpose
  if ! ncu --clock-control none --csv --print-units base --metrics "$metric" $filter \
    "$program" "$@" --reps 1 --warmup 0 --metrics none >"$csv" 2>/dev/null; then
    rm -f "$csv"
    echo "${FUNCNAME[1]}: ncu failed on $program's $what" >&2
    return 1
  fi
  value=$("$counters" ncu-value "$csv" "$metric") || { rm -f "$csv"; return 1; }
  rm -f "$csv"
  echo "$value"
}

# ncu_read_floor LAB_PROGRAM COUNTERS ARGUMENTS...: prints the DRAM bytes Nsight Compute shows
# read by a launch that reads no data: the program's random fill of its inputs, which only
# writes, run with the same arguments (the most over its launches, one per input). What it
# reads is the launch's own traffic: instructions, parameters, page-table walks. A kernel's
# DRAM reads carry the same few KB, more or fewer from launch to launch (on an H200, a ~97 KB
# working set read 101,888 to 108,544 bytes, under memlab and ncu alike, and the fill 3,840),
# so a DRAM-read difference up to this floor is not the kernel's.
ncu_read_floor() {
  local program=$1 counters=$2
  shift 2
  ncu_largest "$counters" dram__bytes_read.sum "input fill" \
    "--kernel-name regex:fill_random_kernel" "$program" "$@"
}

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
  local program=$1 counters=$2 csv run value floor=0
  csv=$(mktemp)
  for ((run = 0; run < FLOOR_RUNS; run++)); do
    if ! ncu --clock-control none --csv --print-units base --metrics dram__bytes_write.sum \
      --kernel-name regex:read_all_kernel --launch-count 1 \
      "$program" --reps 1 --warmup 0 --metrics none >"$csv" 2>/dev/null; then
      rm -f "$csv"
      echo "ncu_write_floor: ncu failed on $program's L2 flush" >&2
      return 1
    fi
    value=$("$counters" ncu-value "$csv" dram__bytes_write.sum) || { rm -f "$csv"; return 1; }
    ((value > floor)) && floor=$value
  done
  rm -f "$csv"
  echo "$floor"
}

# ncu_read_floor LAB_PROGRAM COUNTERS ARGUMENTS...: prints the DRAM bytes Nsight Compute shows
# read by a launch that reads no data: the program's random fill of its inputs, which only
# writes, run with the same arguments (the most over its launches, one per input). What it
# reads is the launch's own traffic: instructions, parameters, page-table walks. A kernel's
# DRAM reads carry the same few KB, more or fewer from launch to launch (on an H200, a ~97 KB
# working set read 101,888 to 108,544 bytes, under memlab and ncu alike, and the fill 3,840),
# so a DRAM-read difference up to this floor is not the kernel's.
ncu_read_floor() {
  local program=$1 counters=$2 csv floor
  shift 2
  csv=$(mktemp)
  if ! ncu --clock-control none --csv --print-units base --metrics dram__bytes_read.sum \
    --kernel-name regex:fill_random_kernel "$program" "$@" --reps 1 --warmup 0 --metrics none \
    >"$csv" 2>/dev/null; then
    rm -f "$csv"
    echo "ncu_read_floor: ncu failed on $program's input fill" >&2
    return 1
  fi
  floor=$("$counters" ncu-value "$csv" dram__bytes_read.sum) || { rm -f "$csv"; return 1; }
  rm -f "$csv"
  echo "$floor"
}

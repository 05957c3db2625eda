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

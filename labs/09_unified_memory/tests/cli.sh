# Sourced by test_lab_cli.sh for the unified_memory program: its sizes' limits, the unified
# group of metrics, and the kernels its variants launch.
expect_refused --reuse 0 --out "$work/report.json"
expect_refused --reuse 17 --out "$work/report.json"
expect_refused --stride_kib 3 --out "$work/report.json"
expect_refused --rounds 0 --out "$work/report.json"
expect_refused --metrics um_htod_byte --out "$work/report.json"
grep -q "unknown metric 'um_htod_byte'" "$work/err" || fail "a misspelt unified metric is not named"

# --metrics unified selects the driver's counters, and --model predicts them; another group
# leaves them out.
"$lab" --model --variant managed_prefetch --metrics unified --format json --out "$work/model.json" \
  >/dev/null 2>"$work/err" || fail "--model --metrics unified exited $?"
for alias in um_htod_bytes um_dtoh_bytes um_htod_migrations um_dtoh_migrations um_cpu_faults \
  um_gpu_fault_groups; do
  grep -q "\"$alias\"" "$work/model.json" || fail "--metrics unified has no $alias"
done
grep -q '"unified_memory:htod_bytes"' "$work/model.json" || fail "um_htod_bytes has no full name"
"$lab" --model --variant managed_prefetch --metrics dram --format json --out "$work/dram.json" \
  >/dev/null 2>"$work/err" || fail "--model --metrics dram exited $?"
! grep -q '"um_' "$work/dram.json" || fail "--metrics dram selects the unified-memory counters"
# Into files first: grep -q stops reading at its match, and the program writing into the pipe
# would die of SIGPIPE, which pipefail reports as a failure.
"$lab" --list-metrics >"$work/metrics" || fail "--list-metrics exited $?"
grep -q '^um_htod_bytes *\[unified\] bytes' "$work/metrics" ||
  fail "--list-metrics does not list um_htod_bytes in the unified group"
"$lab" --list >"$work/list" || fail "--list exited $?"
for variant in pageable_copy pinned_copy zero_copy zero_copy_reused copy_then_reuse \
  managed_first_touch managed_prefetch managed_resident managed_sparse ping_pong; do
  grep -q "^  $variant " "$work/list" || fail "--list does not list $variant"
done
# The kernels compile from kernels.cu through the harness (no GPU needed), under their names.
MEMLAB_CUDA_ARCH=75 "$lab" --kernels "$root/labs/09_unified_memory/kernels.cu" \
  --save-kernels "$work/kernels.fatbin" >/dev/null 2>"$work/err" || fail "--save-kernels of kernels.cu exited $?"
for kernel in scale_stream touch_sparse sum_passes; do
  grep -q "Compiling entry function '$kernel' for 'sm_75'" "$work/kernels.fatbin.ptxas" ||
    fail "ptxas's log of kernels.cu has no kernel $kernel"
done

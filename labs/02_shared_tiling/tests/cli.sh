# Sourced by test_lab_cli.sh for the shared_tiling program: its variants, its size flags and its
# predictions. (Sizes whose matrices do not fit the device are refused only where a device says
# how much memory it has: labs/02_shared_tiling/tests/test_gpu.c checks that.)
# Into a file first: grep -q stops reading early, and under pipefail the program's SIGPIPE fails.
"$lab" --list >"$work/list.txt" || fail "--list exited $?"
for variant in naive tiled16 tiled32 coarsened cublas; do
  grep -q "^  $variant " "$work/list.txt" || fail "--list does not list $variant"
done
# The FLOP/s ceiling runs beside any variant chosen.
"$lab" --model --variant tiled16 --m 5 --k 7 --n 3 --format json --out "$work/model.json" >/dev/null 2>"$work/err" ||
  fail "--model --variant tiled16 exited $?"
grep -q '"variant":	"cublas"' "$work/model.json" || fail "--model without the cublas ceiling record"
# One warp per row of a 32 x 32 P, one step of k: 1 sector of M and 4 of N per row.
"$lab" --model --variant naive --m 32 --k 1 --n 32 --format json --out "$work/model.json" >/dev/null 2>"$work/err" ||
  fail "--model --variant naive exited $?"
grep -q '"predicted":	160,' "$work/model.json" || fail "--model JSON lacks the naive 32x1x32 sector prediction"
# Sizes of 1 and the largest allowed are fine for the model, and quick.
timeout 20 "$lab" --model --m 1 --k 1 --n 1 >/dev/null 2>"$work/err" || fail "--model 1x1x1 exited $?"
timeout 20 "$lab" --model --m 1000000 --k 1000000 --n 1000000 >/dev/null 2>"$work/err" ||
  fail "--model at the largest sizes exited $? (or took over 20 s)"
expect_refused --m 1000001 --k 1 --n 1 --out "$work/report.json"
expect_refused --k 0 --out "$work/report.json"
expect_refused --sweep n=0:4 --out "$work/report.json"
expect_refused --m 4096 --k -1 --out "$work/report.json"
# The lab's kernels.cu compiles through the program (no GPU needed) into one kernel per variant,
# each under the unmangled name the program looks up: the template's two instances are the
# extern "C" wrappers matmul_tiled16 and matmul_tiled32.
MEMLAB_CUDA_ARCH=75 "$lab" --kernels "$root/labs/02_shared_tiling/kernels.cu" \
  --save-kernels "$work/kernels.fatbin" >/dev/null 2>"$work/err" || fail "--save-kernels of kernels.cu exited $?"
for kernel in matmul_naive matmul_tiled16 matmul_tiled32 matmul_coarsened; do
  grep -q "Compiling entry function '$kernel' for 'sm_75'" "$work/kernels.fatbin.ptxas" ||
    fail "ptxas's log of kernels.cu has no kernel $kernel"
done

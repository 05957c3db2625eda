# Sourced by test_lab_cli.sh for the atomics program: --distinct against --bins, and its
# predictions.
expect_refused --bins 4 --distinct 5 --out "$work/report.json"
grep -q -- '--distinct must be at most --bins' "$work/err" || fail "--distinct above --bins is not explained"
expect_refused --model --bins 8 --distinct 8 --hot 50 --out "$work/report.json"
grep -q -- 'bin 0 is the hot one' "$work/err" || fail "--distinct with --hot does not say bin 0 is taken"
expect_refused --bins 4097 --out "$work/report.json"
expect_refused --variant global_atomic,atomic_eech --out "$work/report.json"

"$lab" --model --variant shared_private --n 1000003 --bins 97 --format json --out "$work/model.json" \
  >/dev/null 2>"$work/err" || fail "--model shared_private exited $?"
grep -q '"global_red_instructions"' "$work/model.json" || fail "--model JSON has no global_red_instructions"
for variant in global_atomic shared_private warp_aggregated atomic_each shared_tree warp_shuffle; do
  "$lab" --list | grep "^  $variant " >/dev/null || fail "--list does not list $variant"
done
# The lab's kernels compile through the harness (no GPU needed), every kernel by its own name.
MEMLAB_CUDA_ARCH=75 "$lab" --kernels "$root/labs/08_atomics/kernels.cu" \
  --save-kernels "$work/kernels.fatbin" >/dev/null 2>"$work/err" || fail "--save-kernels of kernels.cu exited $?"
for kernel in histogram_global_atomic histogram_shared_private histogram_warp_aggregated \
  sum_atomic_each sum_shared_tree sum_warp_shuffle; do
  grep -q "Compiling entry function '$kernel' for 'sm_75'" "$work/kernels.fatbin.ptxas" ||
    fail "ptxas's log of kernels.cu has no kernel $kernel"
done

# Sourced by test_lab_cli.sh for the register_spill program: its own predictions and flags.
"$lab" --model --variant dynamic_index --n 4096 --lane_stride 8 --format json \
  --out "$work/model.json" >/dev/null 2>"$work/err" || fail "--model exited $?"
grep -q '"local_load_transactions_per_request"' "$work/model.json" ||
  fail "--model JSON has no local_load_transactions_per_request"
grep -q '"predicted":	16,' "$work/model.json" || fail "--model JSON lacks the lane_stride-8 prediction"
# Into a file first: grep -q stops reading early, and under pipefail the program's SIGPIPE fails.
"$lab" --list >"$work/list.txt" || fail "--list exited $?"
for variant in static_index dynamic_index uncapped capped smem_spill; do
  grep -q "^  $variant " "$work/list.txt" || fail "--list does not list $variant"
done
# The rotation is taken mod 32: a lane_stride of 32 or more is refused, not folded.
expect_refused --lane_stride 32 --out "$work/report.json"
expect_refused --variant dynamic_index --sweep lane_stride=0:40 --out "$work/report.json"
expect_refused --n 4294967297 --out "$work/report.json"
expect_refused --variant capped --metrics local_load_transactions,bogus --out "$work/report.json"
# The report's spills come from what ptxas printed compiling the kernels file that was loaded
# (a student's capped kernel reports its own). Compiling the lab's kernels.cu (no GPU needed)
# gives a log that names every kernel the variants launch, unmangled (extern "C"), and in which
# the capped kernel spills and the uncapped one does not.
MEMLAB_CUDA_ARCH=75 "$lab" --kernels "$root/labs/01_register_spill/kernels.cu" \
  --save-kernels "$work/kernels.fatbin" >/dev/null 2>"$work/err" || fail "--save-kernels of kernels.cu exited $?"
for kernel in table_static_index table_dynamic_index smooth_uncapped smooth_capped smooth_smem_spill; do
  grep -q "Compiling entry function '$kernel' for 'sm_75'" "$work/kernels.fatbin.ptxas" ||
    fail "ptxas's log of kernels.cu has no kernel $kernel"
done
spill_stores() { # kernel: the spill store bytes ptxas reported for it
  awk -v kernel="$1" '$0 ~ "Function properties for " kernel "$" { getline; print $5; exit }' \
    "$work/kernels.fatbin.ptxas"
}
[[ $(spill_stores smooth_uncapped) -eq 0 ]] || fail "smooth_uncapped spills (ptxas log)"
# The cap is the student's to write: in a student pack (STUDENT.md) smooth_capped has none yet.
if [[ ! -e $root/STUDENT.md ]]; then
  [[ $(spill_stores smooth_capped) -gt 0 ]] || fail "smooth_capped spills nothing under its cap (ptxas log)"
fi

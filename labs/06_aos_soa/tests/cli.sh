# Sourced by test_lab_cli.sh for the aos_soa program: --fields takes 1 or 8 only, and its
# predictions.
for fields in 2 3 7; do
  expect_refused --fields "$fields" --out "$work/report.json"
  expect_refused --model --fields "$fields" --out "$work/report.json"
done
# A sweep through the values between is refused before anything runs; 1:8:7 is the two updates.
expect_refused --sweep fields=1:8 --out "$work/report.json"
expect_refused --model --sweep fields=1:8 --out "$work/report.json"
grep -q -- '--fields 1 or --fields 8' "$work/err" || fail "--fields refusal does not say what is accepted"
expect_refused --n 2147483649 --out "$work/report.json"
expect_refused --variant aos,sao --out "$work/report.json"
grep -q "unknown variant 'sao'" "$work/err" || fail "--variant aos,sao does not name the unknown variant"

"$lab" --model --variant aos --fields 1 --n 1000003 --format json --out "$work/model.json" \
  >/dev/null 2>"$work/err" || fail "--model --fields 1 exited $?"
grep -q '"gld_efficiency"' "$work/model.json" || fail "--model JSON has no gld_efficiency"
grep -q '"predicted":	12.5' "$work/model.json" || fail "--model JSON lacks aos's 12.5% load efficiency"
"$lab" --model --sweep fields=1:8:7 --format csv --out "$work/model.csv" >/dev/null 2>"$work/err" ||
  fail "--model --sweep fields=1:8:7 exited $?"
[[ $(grep -c '^aos_soa,aos_aligned,' "$work/model.csv") -eq 2 ]] || fail "--sweep fields=1:8:7 is not two runs"
for variant in aos aos_aligned soa; do
  "$lab" --list | grep "^  $variant " >/dev/null || fail "--list does not list $variant"
done
# Compiling the lab's kernels.cu (no GPU needed) through the harness: it includes aos_soa.h from
# the lab directory, and ptxas's log names every kernel the variants launch, unmangled
# (extern "C").
MEMLAB_CUDA_ARCH=75 "$lab" --kernels "$root/labs/06_aos_soa/kernels.cu" \
  --save-kernels "$work/kernels.fatbin" >/dev/null 2>"$work/err" || fail "--save-kernels of kernels.cu exited $?"
for kernel in update_aos update_aos_aligned update_soa; do
  grep -q "Compiling entry function '$kernel' for 'sm_75'" "$work/kernels.fatbin.ptxas" ||
    fail "ptxas's log of kernels.cu has no kernel $kernel"
done
# --list says what each variant does, not what it measures to (the handout asks for those).
"$lab" --list >"$work/list"
! grep -E '[0-9.]+ ?%|sectors? per|half of each sector' "$work/list" >/dev/null ||
  fail "--list gives away a predicted count: $(grep -E '[0-9.]+ ?%|sectors? per|half of each sector' "$work/list")"

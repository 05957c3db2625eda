# Sourced by test_lab_cli.sh for the hierarchy_map program: the chain's sizes, and its predicted
# map.
expect_refused --stride 200 --out "$work/report.json"
grep -q -- '--stride must be a multiple of 128' "$work/err" || fail "a stride of 200 bytes is not explained"
expect_refused --model --working_set 256 --stride 256 --out "$work/report.json"
grep -q -- 'at least two links' "$work/err" || fail "a chain of one link is not explained"
expect_refused --loads 0 --out "$work/report.json"
expect_refused --variant chase,dram_chaes --out "$work/report.json"

# Without a GPU, --model prints the predicted map: the level of each working set.
"$lab" --model --variant chase --sweep working_set=65536,1048576,268435456 >"$work/map.txt" 2>"$work/err" ||
  fail "--model chase sweep exited $?"
grep -q 'served by (model)' "$work/map.txt" || fail "--model prints no served-by column"
for level in 'L1 ' 'L2 ' 'DRAM'; do
  grep -q "^chase .* $level" "$work/map.txt" || fail "--model's map has no $level row"
done
for variant in chase l1_chase l2_chase dram_chase shared_chase local_chase constant_chase \
  constant_miss constant_divergent register_chain shared_bandwidth l1_bandwidth l2_bandwidth \
  dram_bandwidth constant_bandwidth; do
  "$lab" --list | grep "^  $variant " >/dev/null || fail "--list does not list $variant"
done
# The lab's kernels compile through the harness (no GPU needed), every kernel by its own name.
MEMLAB_CUDA_ARCH=75 "$lab" --kernels "$root/labs/07_hierarchy_map/kernels.cu" \
  --save-kernels "$work/kernels.fatbin" >/dev/null 2>"$work/err" || fail "--save-kernels of kernels.cu exited $?"
for kernel in chase_global chase_shared chase_local chase_constant fma_chain read_shared \
  read_region read_grid_l2 read_constant; do
  grep -q "Compiling entry function '$kernel' for 'sm_75'" "$work/kernels.fatbin.ptxas" ||
    fail "ptxas's log of kernels.cu has no kernel $kernel"
done
# The map beside the course's cost table: each latency variant's figure from it, and the level
# the model names, in the table and the JSON.
grep -q 'course table' "$work/map.txt" || fail "--model prints no course-table column"
"$lab" --model --variant dram_chase,register_chain --format json --out "$work/map.json" \
  >/dev/null 2>"$work/err" || fail "--model --format json exited $?"
grep -q '"course_figure":[[:space:]]*"200-800 cycles"' "$work/map.json" ||
  fail "the JSON does not give dram_chase the course's 200-800 cycles"
grep -q '"served_by":[[:space:]]*"registers"' "$work/map.json" ||
  fail "the JSON does not say register_chain is served by the registers"

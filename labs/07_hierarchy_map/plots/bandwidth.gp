# Bandwidth of each level
# Lab 07: GB/s the threads read with every SM busy (constant: bytes delivered to the threads),
# beside the level's peak on this GPU (the table's "peak from" says where each comes from).
# data data: bars --variants shared_bandwidth,l1_bandwidth,constant_bandwidth,l2_bandwidth,dram_bandwidth --columns peak_gbps,gbps
set title "Bandwidth of each level, beside its peak (hierarchy_map)\n" . gpu
set ylabel "GB/s"
eval bar_chart
eval plot_all(bar("data", "peak_gbps", "peak", predicted_bar(BLUE)) . \
              bar("data", "gbps", "measured", measured_bar(BLUE)))

# Bandwidth of each level
# Lab 07: GB/s the threads read with every SM busy (constant: bytes delivered to the threads).
# data data: bars --variants shared_bandwidth,l1_bandwidth,constant_bandwidth,l2_bandwidth,dram_bandwidth --columns gbps
set title "Bandwidth of each level (hierarchy_map)\n" . gpu
set ylabel "GB/s"
eval bar_chart
eval plot_all(bar("data", "gbps", "measured", measured_bar(BLUE)))

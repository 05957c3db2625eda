# Bandwidth vs offset
# Lab 04: GB/s of the copy when its loads start offset floats past an aligned address.
# data data: series --variant offset --x offset --columns gbps
set title "Bandwidth vs offset (coalescing, offset)\n" . gpu
set xlabel "offset (floats from an aligned start)"
set ylabel "GB/s (useful bytes / time)"
# The offsets cost a few percent: y fits the data, with the margins of common.gp above and below,
# instead of starting at 0 and leaving the series a thin band at the top.
set offsets graph 0.03, graph 0.03, graph 0.06, graph 0.06
eval plot_all(line("data", "gbps", "measured", measured(ORANGE)))

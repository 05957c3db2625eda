# Bandwidth vs offset
# Lab 04: GB/s of the copy when its loads start offset floats past an aligned address.
# data data: series --variant offset --x offset --columns gbps
set title "Bandwidth vs offset (coalescing, offset)\n" . gpu
set xlabel "offset (floats from an aligned start)"
set ylabel "GB/s (useful bytes / time)"
# The offsets cost a few percent, and the plot shows it at that size: y starts at 0, so a step of
# 3 % looks like one (a y axis fitted to the data made it look like a cliff).
set yrange [0:*]
eval plot_all(line("data", "gbps", "measured", measured(ORANGE)))

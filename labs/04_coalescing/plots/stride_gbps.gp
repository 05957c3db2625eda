# Bandwidth vs stride
# Lab 04: GB/s counts the bytes the copy must move (n floats read, n written) over its time.
# data data: series --variant strided --x stride --columns gbps
set title "Bandwidth vs stride (coalescing, strided)\n" . gpu
set xlabel "stride (floats between neighbouring lanes' loads)"
set ylabel "GB/s (useful bytes / time)"
set logscale x 2
set yrange [0:*]
eval plot_all(line("data", "gbps", "measured", measured(ORANGE)))

# Bandwidth vs distinct words
# Lab 03: GB/s counts the bytes the loads hand to the threads, over the kernel's time.
# data constant: series --variant constant_divergent --x distinct --where spacing=max --columns gbps
# data adjacent: series --variant constant_divergent --x distinct --where spacing=1 --columns gbps
# data ldg: series --variant ldg_divergent --x distinct --where spacing=max --columns gbps
set title "Bandwidth vs distinct words read (constant_ldg)\n" . gpu
set xlabel "distinct words a warp reads"
set ylabel "GB/s (bytes delivered to threads / time)"
set yrange [0:*]
# The two __constant__ series agree to a fraction of a percent: the first is drawn under the
# second, in a wider layer.
eval plot_all(line("constant", "gbps", "__constant__", measured_layer(BLUE, 1)) . \
              line("adjacent", "gbps", "__constant__, adjacent words", measured(GREEN)) . \
              line("ldg", "gbps", "__ldg", measured(ORANGE)))

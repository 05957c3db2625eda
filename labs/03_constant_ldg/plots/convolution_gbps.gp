# Convolution bandwidth vs mask width
# Lab 03: the same convolution with its mask in global memory, in __constant__ memory and behind
# __ldg; GB/s counts the image read once and the output written once.
# data global: series --variant global --x mask --columns gbps
# data constant: series --variant constant --x mask --columns gbps
# data ldg: series --variant ldg --x mask --columns gbps
set title "Convolution bandwidth vs mask width (constant_ldg)\n" . gpu
set xlabel "mask width (the mask is width x width)"
set ylabel "GB/s (image read + output written / time)"
set yrange [0:*]
# Global memory and __ldg agree for the wider masks: global memory is drawn first, in a wider
# layer.
eval plot_all(line("global", "gbps", "mask in global memory", measured_layer(RED, 1)) . \
              line("constant", "gbps", "mask in __constant__", measured(BLUE)) . \
              line("ldg", "gbps", "mask through __ldg", measured(ORANGE)))

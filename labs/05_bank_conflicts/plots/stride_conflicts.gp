# Bank conflicts per shared load vs stride
# Lab 05: lane i reads shared element i * stride; 4-byte words make a gcd(stride, 32)-way
# conflict, 8- and 16-byte words are served in phases of 16 and 8 lanes.
# data w4: series --variant shared_stride --x stride --where width=4 --columns shared_ld_conflicts_per_request.predicted,shared_ld_conflicts_per_request.measured
# data w8: series --variant shared_stride --x stride --where width=8 --columns shared_ld_conflicts_per_request.predicted,shared_ld_conflicts_per_request.measured
# data w16: series --variant shared_stride --x stride --where width=16 --columns shared_ld_conflicts_per_request.predicted,shared_ld_conflicts_per_request.measured
set title "Bank conflicts per shared load instruction vs stride (bank_conflicts, shared_stride)\n" . gpu
set xlabel "stride (elements between neighbouring lanes' loads)"
set ylabel "bank conflicts per load instruction"
set yrange [0:*]
# Most strides have no conflict: a margin below 0 keeps those points off the axis line.
set offsets graph 0.03, graph 0.03, graph 0.06, graph 0.04
# The three widths share their zeros (odd strides) and the first strides: 4-byte loads are drawn
# first in the widest layer, 16-byte loads last; the predictions go over the measurements.
eval plot_all(line("w4", "shared_ld_conflicts_per_request.measured", "4-byte, measured", measured_layer(BLUE, 2)) . \
              line("w8", "shared_ld_conflicts_per_request.measured", "8-byte, measured", measured_layer(ORANGE, 1)) . \
              line("w16", "shared_ld_conflicts_per_request.measured", "16-byte, measured", measured_layer(GREEN, 0)) . \
              line("w4", "shared_ld_conflicts_per_request.predicted", "4-byte, predicted", predicted_layer(BLUE, 2)) . \
              line("w8", "shared_ld_conflicts_per_request.predicted", "8-byte, predicted", predicted_layer(ORANGE, 1)) . \
              line("w16", "shared_ld_conflicts_per_request.predicted", "16-byte, predicted", predicted_layer(GREEN, 0)))

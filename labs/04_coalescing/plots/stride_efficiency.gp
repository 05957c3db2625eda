# Global load efficiency vs stride
# Lab 04: lane i loads in[i * stride]; a warp uses 100 / stride % of the sectors it moves, until
# every lane has a sector of its own (stride 8 for floats).
# data data: series --variant strided --x stride --columns gld_efficiency.predicted,gld_efficiency.measured
set title "Global load efficiency vs stride (coalescing, strided)\n" . gpu
set xlabel "stride (floats between neighbouring lanes' loads)"
set ylabel "global load efficiency (%)"
set logscale x 2
set yrange [0:*]
eval plot_all(line("data", "gld_efficiency.measured", "measured (counters)", measured(BLUE)) . \
              line("data", "gld_efficiency.predicted", "predicted (access model)", predicted(BLUE)))

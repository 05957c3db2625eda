# Latency vs working set: the staircase
# Lab 07: cycles of one dependent global load (clock64 around the chase), one line a link.
# data data: series --variant chase --x working_set --where stride=128 --columns cycles_per_op
set title "Latency of a dependent load vs working set (hierarchy_map, chase)\n" . gpu
set xlabel "working set (bytes the chain spans, one 128-byte line a link)"
set ylabel "cycles per load"
set logscale x 2
set format x "%.0b %BB"
set yrange [0:*]
# The L1 and L2 sizes of the GPU (the L2 as the runtime reports it, the L1 from memlab's table).
if (l1_bytes > 0) {
    set arrow from l1_bytes, graph 0 to l1_bytes, graph 1 nohead dashtype 2 linecolor rgb "#555555"
    set label "L1 / shared" at l1_bytes, graph 0.95 right offset -0.5, 0 textcolor rgb "#555555"
}
if (l2_bytes > 0) {
    set arrow from l2_bytes, graph 0 to l2_bytes, graph 1 nohead dashtype 2 linecolor rgb "#555555"
    set label "L2" at l2_bytes, graph 0.95 right offset -0.5, 0 textcolor rgb "#555555"
}
eval plot_all(line("data", "cycles_per_op", "measured", measured(ORANGE)))

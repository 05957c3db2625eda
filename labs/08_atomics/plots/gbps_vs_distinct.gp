# Histogram bandwidth vs distinct bins per warp
# Lab 08: GB/s counts the values read (4 bytes each) over the kernel's time.
# data global: series --variant global_atomic --x distinct --where bins=256 --columns gbps
# data private: series --variant shared_private --x distinct --where bins=256 --columns gbps
# data aggregated: series --variant warp_aggregated --x distinct --where bins=256 --columns gbps
set title "Histogram bandwidth vs contention (atomics)\n" . gpu
set xlabel "distinct bins the 32 values of a warp fall in"
set ylabel "GB/s (values read / time)"
set logscale x 2
set logscale y 10
eval plot_all(line("global", "gbps", "global atomicAdd per value", measured(RED)) . \
              line("private", "gbps", "private histogram in shared memory", measured(GREEN)) . \
              line("aggregated", "gbps", "warp-aggregated", measured(BLUE)))

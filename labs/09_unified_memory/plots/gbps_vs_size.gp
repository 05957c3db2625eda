# The link's rate vs the size of a transfer
# Lab 09: GB/s counts the bytes moved once (4 per float); the dashed line is the link's
# published rate each way (the table's "peak from").
# data pageable: series --variant pageable_copy --x n --columns gbps,peak_gbps
# data pinned: series --variant pinned_copy --x n --columns gbps,peak_gbps
# data zero: series --variant zero_copy --x n --columns gbps,peak_gbps
set title "Host memory across the link vs transfer size (unified_memory)\n" . gpu
set xlabel "floats moved (4 bytes each; Mi = 2^20)"
set format x "%.0b %B"
set ylabel "GB/s"
set logscale x 2
set yrange [0:*]
eval plot_all(line("pinned", "peak_gbps", "link peak", predicted(BLUE)) . \
              line("pageable", "gbps", "pageable copy", measured(RED)) . \
              line("pinned", "gbps", "pinned copy", measured(GREEN)) . \
              line("zero", "gbps", "zero-copy read", measured(ORANGE)))

# Shared-memory bandwidth vs stride
# Lab 05: GB/s counts the shared-memory bytes the warps of shared_stride read, over its time.
# data w4: series --variant shared_stride --x stride --where width=4 --columns gbps
# data w8: series --variant shared_stride --x stride --where width=8 --columns gbps
# data w16: series --variant shared_stride --x stride --where width=16 --columns gbps
set title "Shared-memory bandwidth vs stride (bank_conflicts, shared_stride)\n" . gpu
set xlabel "stride (elements between neighbouring lanes' loads)"
set ylabel "GB/s (shared bytes read / time)"
set yrange [0:*]
eval plot_all(line("w4", "gbps", "4-byte loads", measured(BLUE)) . \
              line("w8", "gbps", "8-byte loads", measured(ORANGE)) . \
              line("w16", "gbps", "16-byte loads", measured(GREEN)))

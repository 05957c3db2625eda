# AoS vs SoA: bandwidth
# Lab 06: GB/s counts the bytes the update must move for the fields it uses.
# data data: bars --variants aos,aos_aligned,soa --columns gbps
set title "AoS vs SoA bandwidth (aos_soa)\n" . gpu
set ylabel "GB/s (bytes the update needs / time)"
eval bar_chart
eval plot_all(bar("data", "gbps", "measured", measured_bar(ORANGE)))

# The four transposes: bandwidth
# Lab 05: GB/s counts the matrix read once and written once.
# data data: bars --variants transpose_naive,transpose_shared,transpose_padded,transpose_swizzled --columns gbps
set title "Transpose bandwidth (bank_conflicts)\n" . gpu
set ylabel "GB/s (matrix bytes read and written / time)"
eval bar_chart
eval plot_all(bar("data", "gbps", "measured", measured_bar(ORANGE)))

# The four transposes: bank conflicts per shared access
# Lab 05: the unpadded tile is read down its columns, one bank per column; padding and swizzling
# spread a column over all 32 banks.
# data data: bars --variants transpose_naive,transpose_shared,transpose_padded,transpose_swizzled --columns shared_ld_conflicts_per_request.predicted,shared_ld_conflicts_per_request.measured,shared_st_conflicts_per_request.predicted,shared_st_conflicts_per_request.measured
set title "Bank conflicts per shared access instruction, transposes (bank_conflicts)\n" . gpu
set ylabel "bank conflicts per instruction"
eval bar_chart
eval plot_all(bar("data", "shared_ld_conflicts_per_request.predicted", "loads, predicted", predicted_bar(BLUE)) . \
              bar("data", "shared_ld_conflicts_per_request.measured", "loads, measured", measured_bar(BLUE)) . \
              bar("data", "shared_st_conflicts_per_request.predicted", "stores, predicted", predicted_bar(GREEN)) . \
              bar("data", "shared_st_conflicts_per_request.measured", "stores, measured", measured_bar(GREEN)))

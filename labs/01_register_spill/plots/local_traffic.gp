# Local memory traffic per variant
# Lab 01: sectors loaded from and stored to local memory; the tables in the registers and the
# values that fit under the cap need none.
# data data: bars --columns local_load_transactions.predicted,local_load_transactions.measured,local_store_transactions.predicted,local_store_transactions.measured
set title "Local memory sectors per variant (register_spill)\n" . gpu
set ylabel "local memory sectors (millions)"
y_scale = 1e6
eval bar_chart
eval plot_all(bar("data", "local_load_transactions.predicted", "loads, predicted", predicted_bar(BLUE)) . \
              bar("data", "local_load_transactions.measured", "loads, measured", measured_bar(BLUE)) . \
              bar("data", "local_store_transactions.predicted", "stores, predicted", predicted_bar(GREEN)) . \
              bar("data", "local_store_transactions.measured", "stores, measured", measured_bar(GREEN)))

# Global load sectors per variant at the largest size
# Lab 02: each element a tiled kernel loads from global memory serves a whole tile width of
# multiply-adds, so the loads fall with the tile width.
# data data: bars --variants naive,tiled16,tiled32,coarsened --where n=max --columns gld_transactions.predicted,gld_transactions.measured
set title "Global load sectors (shared_tiling, largest n)\n" . gpu
set ylabel "global load sectors (millions)"
y_scale = 1e6
eval bar_chart
eval plot_all(bar("data", "gld_transactions.predicted", "predicted", predicted_bar(BLUE)) . \
              bar("data", "gld_transactions.measured", "measured", measured_bar(BLUE)))

# Global load efficiency vs offset
# Lab 04: lane i loads in[i + offset]; a warp whose 128 bytes start off a sector boundary
# touches one sector more.
# data data: series --variant offset --x offset --columns gld_efficiency.predicted,gld_efficiency.measured,gld_transactions_per_request.predicted,gld_transactions_per_request.measured
set title "Global load efficiency vs offset (coalescing, offset)\n" . gpu
set xlabel "offset (floats from an aligned start)"
set ylabel "global load efficiency (%)"
set y2label "sectors per request"
set y2tics
set yrange [0:105]
set y2range [0:*]
eval plot_all(line("data", "gld_efficiency.predicted", "efficiency, predicted", predicted(BLUE)) . \
              line("data", "gld_efficiency.measured", "efficiency, measured", measured(BLUE)) . \
              line("data", "gld_transactions_per_request.predicted", "sectors/request, predicted", predicted(GREEN) . " axes x1y2") . \
              line("data", "gld_transactions_per_request.measured", "sectors/request, measured", measured(GREEN) . " axes x1y2"))

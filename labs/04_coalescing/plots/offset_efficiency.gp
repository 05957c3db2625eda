# Global load efficiency vs offset
# Lab 04: lane i loads in[i + offset]; a warp whose 128 bytes start off a sector boundary
# touches one sector more.
# data data: series --variant offset --x offset --columns gld_efficiency.predicted,gld_efficiency.measured,gld_transactions_per_request.predicted,gld_transactions_per_request.measured
set title "Global load efficiency vs offset (coalescing, offset)\n" . gpu
set xlabel "offset (floats from an aligned start)"
set ylabel "global load efficiency (%)"
set y2label "sectors per request"
set y2tics
# Both axes fit the data (efficiency between 80 and 100 %, 4 or 5 sectors per request): y
# autoscales with 6% of the height to spare below and above; y2, which gnuplot's offsets leave
# alone, runs over the sectors the run holds with the same margins. The predictions go over the
# measurements.
set offsets graph 0.03, graph 0.03, graph 0.06, graph 0.06
sectors_found = 0
do for [name in "gld_transactions_per_request.measured gld_transactions_per_request.predicted"] {
    if (has(data_columns, name)) {
        stats data using (column(name)) nooutput prefix "column_stats"
        sectors_low = sectors_found ? (column_stats_min < sectors_low ? column_stats_min : sectors_low) : column_stats_min
        sectors_high = sectors_found ? (column_stats_max > sectors_high ? column_stats_max : sectors_high) : column_stats_max
        sectors_found = 1
    }
}
if (sectors_found) {
    sectors_margin = 0.06 * (sectors_high > sectors_low ? sectors_high - sectors_low : 1)
    set y2range [sectors_low - sectors_margin : sectors_high + sectors_margin]
}
eval plot_all(line("data", "gld_efficiency.measured", "efficiency, measured", measured(BLUE)) . \
              line("data", "gld_transactions_per_request.measured", "sectors/request, measured", measured(GREEN) . " axes x1y2") . \
              line("data", "gld_efficiency.predicted", "efficiency, predicted", predicted(BLUE)) . \
              line("data", "gld_transactions_per_request.predicted", "sectors/request, predicted", predicted(GREEN) . " axes x1y2"))

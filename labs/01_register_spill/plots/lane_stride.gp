# Local load sectors per request vs lane stride
# Lab 01: local memory is interleaved by lane, so lanes that read the same table entry share
# sectors and lanes that read different entries do not.
# data data: series --variant dynamic_index --x lane_stride --columns local_load_transactions_per_request.predicted,local_load_transactions_per_request.measured
set title "Local load sectors per request vs lane stride (register_spill, dynamic_index)\n" . gpu
set xlabel "lane stride (table entries between neighbouring lanes' reads)"
set ylabel "local load sectors per request"
set yrange [0:*]
eval plot_all(line("data", "local_load_transactions_per_request.measured", "measured (counters)", measured(BLUE)) . \
              line("data", "local_load_transactions_per_request.predicted", "predicted (access model)", predicted(BLUE)))

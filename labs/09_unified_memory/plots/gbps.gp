# Each way to the host's memory: bandwidth beside the link's peak
# Lab 09: GB/s counts the input's bytes once (the data's rate across the link); the peak is the
# link's published rate each way (managed_resident, which reads DRAM, is left out).
# data data: bars --variants pageable_copy,pinned_copy,zero_copy,zero_copy_reused,copy_then_reuse,managed_first_touch,managed_prefetch,ping_pong --columns peak_gbps,gbps
set title "Host memory across the link, beside its peak (unified_memory)\n" . gpu
set ylabel "GB/s (input bytes / time)"
eval bar_chart
eval plot_all(bar("data", "peak_gbps", "peak", predicted_bar(BLUE)) . \
              bar("data", "gbps", "measured", measured_bar(ORANGE)))

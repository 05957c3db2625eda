# Time per variant, with registers per thread
# Lab 01: the median kernel time of each variant; the label under each bar gives the registers
# per thread the compiler gave the kernel.
# data data: bars --columns median_ms,registers_per_thread
set title "Kernel time per variant (register_spill)\n" . gpu
set ylabel "median time (ms)"
eval bar_chart
# Column 3 is registers_per_thread, NaN where it is not known (read as text: a NaN number would
# leave the bar without its label).
registers(text) = text eq "NaN" ? "" : sprintf(" (%s registers)", text)
bar_label = "xtic(strcol(1) . registers(strcol(3)))"
eval plot_all(bar("data", "median_ms", "measured", measured_bar(ORANGE)))

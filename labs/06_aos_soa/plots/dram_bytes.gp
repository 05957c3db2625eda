# AoS vs SoA: DRAM bytes
# Lab 06: an update of one field still moves whole particles in the AoS layouts.
# data data: bars --variants aos,aos_aligned,soa --columns dram_read_bytes.predicted,dram_read_bytes.measured,dram_write_bytes.predicted,dram_write_bytes.measured
set title "AoS vs SoA DRAM traffic (aos_soa)\n" . gpu
set ylabel "DRAM bytes (GB)"
y_scale = 1e9
eval bar_chart
eval plot_all(bar("data", "dram_read_bytes.predicted", "read, predicted", predicted_bar(BLUE)) . \
              bar("data", "dram_read_bytes.measured", "read, measured", measured_bar(BLUE)) . \
              bar("data", "dram_write_bytes.predicted", "written, predicted", predicted_bar(GREEN)) . \
              bar("data", "dram_write_bytes.measured", "written, measured", measured_bar(GREEN)))

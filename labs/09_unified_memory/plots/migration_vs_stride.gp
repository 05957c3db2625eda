# Bytes migrated vs the distance between the words read: the migration's granularity
# Lab 09: managed_sparse reads one 4-byte word of every stride of managed memory the CPU wrote;
# the driver's counter of bytes moved host to device, predicted and measured.
# data data: series --variant managed_sparse --x stride_kib --columns um_htod_bytes.predicted,um_htod_bytes.measured
set title "Managed memory moved vs distance between the words read (unified_memory)\n" . gpu
set xlabel "KiB between the words read"
set ylabel "bytes moved host to device"
set logscale x 2
set logscale y 2
set format y "%.0b %BB"
eval plot_all(line("data", "um_htod_bytes.predicted", "model", predicted(BLUE)) . \
              line("data", "um_htod_bytes.measured", "measured", measured(ORANGE)))

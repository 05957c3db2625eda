# GFLOP/s per variant vs matrix size, cuBLAS as the ceiling
# Lab 02: P = M x N with M of m x k and N of k x n; the demo sweeps k, the length of each dot
# product, with P at its largest m x n.
# data naive: series --variant naive --x k --where m=max --where n=max --columns gflops
# data tiled16: series --variant tiled16 --x k --where m=max --where n=max --columns gflops
# data tiled32: series --variant tiled32 --x k --where m=max --where n=max --columns gflops
# data coarsened: series --variant coarsened --x k --where m=max --where n=max --columns gflops
# data cublas: series --variant cublas --x k --where m=max --where n=max --columns gflops
set title "Matrix multiply GFLOP/s vs k (shared_tiling)\n" . gpu
set xlabel "k (length of each dot product)"
set ylabel "GFLOP/s (FP32)"
set yrange [0:*]
eval plot_all(line("naive", "gflops", "naive", measured(RED)) . \
              line("tiled16", "gflops", "tiled16", measured(ORANGE)) . \
              line("tiled32", "gflops", "tiled32", measured(GREEN)) . \
              line("coarsened", "gflops", "coarsened", measured(BLUE)) . \
              line("cublas", "gflops", "cuBLAS SGEMM (ceiling)", ceiling("black")))

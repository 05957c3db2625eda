# The cublas variant (the FLOP/s ceiling) calls cuBLAS SGEMM.
LDLIBS_shared_tiling := -lcublas

# The cublas variant (the FLOP/s ceiling) calls cuBLAS SGEMM.
target_link_libraries(${program} PRIVATE CUDA::cublas)

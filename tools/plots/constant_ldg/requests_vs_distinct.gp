# Requests per warp load vs distinct words
# Lab 03: the constant cache answers one address per request, so a warp reading N different
# words needs N requests; the same words through __ldg are one request of a sector per word.
# --spacing 1 puts the words next to each other, in fewer cache lines.
# data constant: series --variant constant_divergent --x distinct --where spacing=max --columns constant_requests_per_instruction.predicted,constant_requests_per_instruction.measured
# data adjacent: series --variant constant_divergent --x distinct --where spacing=1 --columns constant_requests_per_instruction.predicted,constant_requests_per_instruction.measured
# data ldg: series --variant ldg_divergent --x distinct --where spacing=max --columns gld_transactions_per_request.predicted,gld_transactions_per_request.measured
set title "Cost of one warp load vs distinct words read (constant_ldg)\n" . gpu
set xlabel "distinct words a warp reads"
set ylabel "per load instruction"
set yrange [0:*]
eval plot_all(line("constant", "constant_requests_per_instruction.predicted", "__constant__ requests, predicted", predicted(BLUE)) . \
              line("constant", "constant_requests_per_instruction.measured", "__constant__ requests, measured", measured(BLUE)) . \
              line("adjacent", "constant_requests_per_instruction.predicted", "__constant__, adjacent words, predicted", predicted(GREEN)) . \
              line("adjacent", "constant_requests_per_instruction.measured", "__constant__, adjacent words, measured", measured(GREEN)) . \
              line("ldg", "gld_transactions_per_request.predicted", "__ldg sectors, predicted", predicted(ORANGE)) . \
              line("ldg", "gld_transactions_per_request.measured", "__ldg sectors, measured", measured(ORANGE)))

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
# All three predictions are one line (N words, N requests or sectors), and the measurements lie
# on it: each series has its own layer (__constant__ widest, drawn first) and the three access
# paths take turns showing their markers (__constant__ on words 1, 4, 7, ..., adjacent words on
# 2, 5, 8, ..., __ldg on 3, 6, 9, ...). The predictions go over the measurements.
eval plot_all(line_taking_turns("constant", "constant_requests_per_instruction.measured", "__constant__ requests, measured", "measured", BLUE, 2, 0, 3) . \
              line_taking_turns("adjacent", "constant_requests_per_instruction.measured", "__constant__, adjacent words, measured", "measured", GREEN, 1, 1, 3) . \
              line_taking_turns("ldg", "gld_transactions_per_request.measured", "__ldg sectors, measured", "measured", ORANGE, 0, 2, 3) . \
              line_taking_turns("constant", "constant_requests_per_instruction.predicted", "__constant__ requests, predicted", "predicted", BLUE, 2, 0, 3) . \
              line_taking_turns("adjacent", "constant_requests_per_instruction.predicted", "__constant__, adjacent words, predicted", "predicted", GREEN, 1, 1, 3) . \
              line_taking_turns("ldg", "gld_transactions_per_request.predicted", "__ldg sectors, predicted", "predicted", ORANGE, 0, 2, 3))

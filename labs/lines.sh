#!/usr/bin/env bash
# labs/lines.sh [ROOT]: what each lab's code is made of, in lines: the kernels (kernels.cu, the
# student's file), the predictions (the host program's sections on the access model: a
# "/* ---- " header that says predict, model or cost) and the plumbing (the rest of the host
# program: parameters, table, launches, reference, buffers, main, and the lab's header).
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
rows=$(for directory in "$root"/labs/[0-9][0-9]_*/; do
  lab=$(basename "$directory")
  program=${lab#[0-9][0-9]_}
  kernels=$(wc -l <"$directory/kernels.cu")
  read -r predictions plumbing < <(cat "$directory/$program.cu" "$directory"/*_model.c 2>/dev/null |
    awk '/^\/\* ---- / { predicting = ($0 ~ /predict|model|cost/) }
         { if (predicting) p++; else q++ }
         END { print p + 0, q + 0 }')
  header=$(cat "$directory/$program.h" 2>/dev/null | wc -l)
  plumbing=$((plumbing + header))
  printf '%-16s %8d %12d %9d %6d\n' "$program" "$kernels" "$predictions" "$plumbing" \
    $((kernels + predictions + plumbing))
done)
printf '%-16s %8s %12s %9s %6s\n' lab kernels predictions plumbing total
echo "$rows"
awk '{ k += $2; p += $3; q += $4 } END { t = k + p + q
  printf "%-16s %8d %12d %9d %6d  (%.0f%% / %.0f%% / %.0f%%)\n", "all", k, p, q, t, 100*k/t, 100*p/t, 100*q/t }' <<<"$rows"

#!/usr/bin/env bash
# labs/lines.sh [ROOT]: what each lab's code is made of, in lines: the kernels (kernels.cu, the
# student's file), the predictions (the host program's sections on the access model: a
# "/* ---- " header that says predict, model or cost) and the plumbing (the rest of the host
# program: parameters, table, launches, reference, buffers, main, and the lab's header); and the
# longest function of the host program, in lines from its name to its closing brace.
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
  longest=$(awk '/^[A-Za-z].*\(/ && !/;[[:space:]]*$/ { start = NR }
                 /^}/ && start { if (NR - start + 1 > most) { most = NR - start + 1; name = $0 }
                                 start = 0 }
                 END { print most + 0 }' "$directory/$program.cu")
  printf '%-16s %8d %12d %9d %6d %8d\n' "$program" "$kernels" "$predictions" "$plumbing" \
    $((kernels + predictions + plumbing)) "$longest"
done)
printf '%-16s %8s %12s %9s %6s %8s\n' lab kernels predictions plumbing total longest
echo "$rows"
awk '{ k += $2; p += $3; q += $4; if ($6 > m) m = $6 } END { t = k + p + q
  printf "%-16s %8d %12d %9d %6d %8d  (%.0f%% / %.0f%% / %.0f%%)\n", "all", k, p, q, t, m, 100*k/t, 100*p/t, 100*q/t }' <<<"$rows"

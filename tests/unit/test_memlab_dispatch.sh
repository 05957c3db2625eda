#!/usr/bin/env bash
# test_memlab_dispatch: ./memlab stays a dispatcher (issue 51). It is at most 500 lines; every
# script of tools/ it runs is there, executable and parses; the scripts that source tools/lib.sh
# are each run by memlab or by another of them (none left over), and no function is defined
# twice across memlab, tools/lib.sh and those scripts (a shared helper lives in lib.sh once,
# never copied). With shellcheck installed, they pass it (warnings and errors).
# unit_memlab_cli asks every command's --help.
# shellcheck disable=SC2016 # the lines looked for hold $( and ${ as they are
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

lines=$(wc -l <"$root/memlab")
((lines <= 500)) || fail "memlab is $lines lines: at most 500 (parse, dispatch, help; the rest in tools/)"
grep -qxF 'source "$(dirname "${BASH_SOURCE[0]}")/tools/lib.sh"' "$root/memlab" ||
  fail "memlab does not source tools/lib.sh"

# The scripts of tools/ that FILE runs, as paths from the root.
runs() { # FILE
  grep -o "\\\$root/tools/[A-Za-z0-9_/]*\\.sh" "$1" | sed 's|^\$root/||' | sort -u
}
mapfile -t run_by_memlab < <(runs "$root/memlab")
((${#run_by_memlab[@]} > 0)) || fail "memlab runs no script of tools/"
for script in "${run_by_memlab[@]}"; do
  if [[ ! -f $root/$script ]]; then
    fail "memlab runs $script, which is not there"
    continue
  fi
  [[ -x $root/$script ]] || fail "$script is not executable"
  bash -n "$root/$script" || fail "$script does not parse"
done

# The scripts that source tools/lib.sh: each is run by memlab or by another of them.
mapfile -t sourcing < <(cd "$root" &&
  grep -rlxF --include='*.sh' 'source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"' tools | sort)
((${#sourcing[@]} > 0)) || fail "no script of tools/ sources tools/lib.sh"
run_by_any=$( (runs "$root/memlab" && for script in "${sourcing[@]}"; do runs "$root/$script"; done) |
  sort -u)
for script in "${sourcing[@]}"; do
  grep -qxF "$script" <<<"$run_by_any" || fail "$script sources tools/lib.sh but nothing runs it"
  [[ -x $root/$script ]] || fail "$script is not executable"
done

# Each function once.
twice=$(for file in memlab tools/lib.sh "${sourcing[@]}"; do
  sed -n 's/^\([a-z_][a-z0-9_]*\)() {.*/\1/p' "$root/$file"
done | sort | uniq -d | tr '\n' ' ')
[[ -z $twice ]] || fail "defined more than once: $twice"

if command -v shellcheck >/dev/null 2>&1; then
  (cd "$root" && shellcheck -x -S warning memlab tools/lib.sh "${sourcing[@]}") ||
    fail "shellcheck (above)"
else
  echo "shellcheck not installed: left out"
fi

if ((failures > 0)); then
  echo "$failures failed"
  exit 1
fi
echo "memlab: $lines lines; ${#sourcing[@]} scripts of tools/ source tools/lib.sh"

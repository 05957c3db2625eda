#!/bin/sh
# ptxas_report.sh: what ptxas says about each kernel of a lab, as a C header the lab includes.
#
#   sh ptxas_report.sh OUTPUT.h NVCC SOURCE.cu [nvcc options: -gencode ..., -arch=..., -I...]
#
# Compiles SOURCE once more, with -Xptxas -v, for the architectures the options name, and turns
# what ptxas prints for each kernel, such as
#   ptxas info    : Compiling entry function '_Z13smooth_cappedPKfPfm' for 'sm_90'
#   ptxas info    : Function properties for _Z13smooth_cappedPKfPfm
#       64 bytes stack frame, 184 bytes spill stores, 316 bytes spill loads
# into one table per kernel, named after it (ptxas_report_smooth_capped), with a row per
# architecture: { 90, 184, 316 }, ... and { 0, 0, 0 } at the end. PTXAS_REPORT(kernel) names a
# kernel's table. The bytes are per thread and count spill instructions in the code, not how
# often they run. Plain POSIX sh and awk, so that make and CMake can both run it.
set -eu

if [ "$#" -lt 3 ]; then
    echo "usage: sh ptxas_report.sh OUTPUT.h NVCC SOURCE.cu [nvcc options]" >&2
    exit 2
fi
output=$1
nvcc=$2
source=$3
shift 3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# The header this writes is not on this include path, so the lab compiles here without it: the
# kernels are the same either way.
if ! "$nvcc" -c "$source" -o "$work/probe.o" -Xptxas -v "$@" >"$work/ptxas.txt" 2>&1; then
    cat "$work/ptxas.txt" >&2
    echo "ptxas_report.sh: compiling $source failed" >&2
    exit 1
fi

awk -v source="$(basename "$source")" '
# The kernel name in a mangled one: _Z12static_indexPKfPfm -> static_index, and the last part of
# a nested name, _ZN3lab6kernelEv -> kernel. extern "C" names are not mangled.
function plain_name(mangled,    rest, nested, name, length_) {
    if (substr(mangled, 1, 2) != "_Z")
        return mangled
    rest = substr(mangled, 3)
    nested = substr(rest, 1, 1) == "N"
    if (nested)
        rest = substr(rest, 2)
    name = ""
    while (match(rest, /^[0-9]+/)) {
        length_ = substr(rest, 1, RLENGTH) + 0
        name = substr(rest, RLENGTH + 1, length_)
        rest = substr(rest, RLENGTH + 1 + length_)
        if (!nested)
            break
    }
    return name
}

/Compiling entry function/ {
    split($0, quoted, "\047")
    entry = quoted[2]
    arch = quoted[4]
    gsub(/[^0-9]/, "", arch)
    next
}
/Function properties for / {
    properties = $NF
    next
}
/bytes stack frame/ && properties == entry && entry != "" {
    stores = loads = -1
    for (field = 2; field <= NF; field++) {
        if ($field == "spill" && $(field + 1) ~ /^stores/)
            stores = $(field - 2)
        if ($field == "spill" && $(field + 1) ~ /^loads/)
            loads = $(field - 2)
    }
    if (stores < 0 || loads < 0)
        next
    kernel = plain_name(entry)
    if (!(kernel in rows))
        order[++kernels] = kernel
    rows[kernel] = rows[kernel] sprintf("    {%d, %d, %d},\n", arch, stores, loads)
    entry = ""
}

END {
    printf "/* Written by ptxas_report.sh from what ptxas printed (-Xptxas -v) while\n"
    printf " * compiling %s: do not edit. Per kernel and architecture (10 * major + minor\n", source
    printf " * of the code ptxas wrote): spill stores and spill loads, bytes per thread;\n"
    printf " * arch 0 ends a table. */\n"
    for (k = 1; k <= kernels; k++) {
        printf "static const ml_ptxas_report ptxas_report_%s[] = {\n", order[k]
        printf "%s    {0, 0, 0},\n};\n", rows[order[k]]
    }
    printf "#define PTXAS_REPORT(kernel) ptxas_report_##kernel\n"
}
' "$work/ptxas.txt" >"$work/report.h"

mkdir -p "$(dirname "$output")"
mv "$work/report.h" "$output.tmp"
mv "$output.tmp" "$output"

#!/bin/sh
# embed_kernels.sh: a lab's kernels.cu, compiled to a fatbin and embedded in its program.
#
#   sh embed_kernels.sh OUTPUT.c NVCC KERNELS.cu LAB_DIRECTORY "ARCHITECTURES" [nvcc options]
#
# Compiles KERNELS.cu with nvcc -fatbin (device code only; -Xptxas -v, so ptxas reports each
# kernel's registers and spills; -compress-mode=none, so the cubins stay plain ELF whose
# kernels' machine code the access model reads, common/kernel_module.c) for ARCHITECTURES
# ("75;80;90" or "75 80 90"), with LAB_DIRECTORY as the include path, as the harness compiles a
# --kernels file (runner/nvcc.c).
# OUTPUT.c then defines ml_lab_kernels (common/kernel_module.h): the fatbin's bytes, what ptxas
# printed, and where the kernels came from. Plain POSIX sh, od and sed, so that CMake and make
# can both run it.
set -eu

if [ "$#" -lt 5 ]; then
    echo "usage: sh embed_kernels.sh OUTPUT.c NVCC KERNELS.cu LAB_DIRECTORY ARCHITECTURES [nvcc options]" >&2
    exit 2
fi
output=$1
nvcc=$2
source=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
lab_directory=$(cd "$4" && pwd)
architectures=$5
shift 5

gencode=
for arch in $(echo "$architectures" | tr ';,' '  '); do
    arch=${arch%-real}
    gencode="$gencode -gencode=arch=compute_$arch,code=sm_$arch"
done
[ -n "$gencode" ] || { echo "embed_kernels.sh: no CUDA architecture given" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# shellcheck disable=SC2086 # gencode is words on purpose
if ! "$nvcc" -fatbin -lineinfo -compress-mode=none -Xptxas -v -I"$lab_directory" $gencode "$@" \
    -o "$work/kernels.fatbin" "$source" >"$work/ptxas.txt" 2>&1; then
    cat "$work/ptxas.txt" >&2
    echo "embed_kernels.sh: compiling $source failed" >&2
    exit 1
fi

# A file's bytes as C initialiser lines: 0x7f,0x45,...
bytes() {
    od -An -v -tx1 "$1" | sed -e 's/  */ /g' -e 's/^ //' -e '/^$/d' -e 's/ /,0x/g' -e 's/^/0x/' -e 's/$/,/'
}

c_string() {
    printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'
}

{
    printf '/* Written by common/embed_kernels.sh from %s: do not edit. */\n' "$(c_string "$source")"
    printf '#include "memlab.h"\n\n'
    printf '/* The fatbin: cudaLibraryLoadData wants it aligned. */\n'
    printf 'static const unsigned char fatbin[] __attribute__((aligned(16))) = {\n'
    bytes "$work/kernels.fatbin"
    printf '};\n\n'
    printf '/* What ptxas printed (-Xptxas -v), NUL-terminated. */\n'
    printf 'static const unsigned char ptxas_log[] = {\n'
    bytes "$work/ptxas.txt"
    printf '0x00};\n\n'
    printf 'const ml_kernel_image ml_lab_kernels = {\n'
    printf '    fatbin, sizeof fatbin, (const char *)ptxas_log,\n'
    printf '    "%s",\n' "$(c_string "$source")"
    printf '    "%s",\n' "$(c_string "$lab_directory")"
    printf '    "%s",\n' "$(c_string "$nvcc")"
    printf '    "%s",\n' "$(c_string "$architectures")"
    printf '};\n'
} >"$work/embedded.c"

mkdir -p "$(dirname "$output")"
mv "$work/embedded.c" "$output.tmp"
mv "$output.tmp" "$output"

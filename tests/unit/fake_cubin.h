/* fake_cubin.h: small cubins and fatbins made by hand, in the layout nvcc writes (the comment
 * above ml_kernels_code_bytes_in in common/kernel_module.c), for the tests of the parser that reads a
 * kernel's machine code and constant bank out of them. */
#ifndef MEMLAB_FAKE_CUBIN_H
#define MEMLAB_FAKE_CUBIN_H

#include <stdint.h>
#include <string.h>

static inline void fake_put(unsigned char *at, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; i++)
        at[i] = (unsigned char)(value >> (8 * i));
}

/* A 64-bit cubin for sm_`arch` (ELF ABI version `abi`: 8 and later keep the SM in bits 8-15 of
 * e_flags, earlier ones in bits 0-7) whose kernel `kernel` has code_bytes of .text and
 * constant_bytes of .nv.constant0 (none when 0). Written at out (room for 512 bytes plus the
 * names); returns its size. */
static inline size_t fake_cubin(unsigned char *out, int arch, int abi, const char *kernel,
                                uint64_t code_bytes, uint64_t constant_bytes)
{
    memset(out, 0, 64);
    memcpy(out, "\177ELF", 4);
    out[4] = 2;     /* 64-bit */
    out[5] = 1;     /* little-endian */
    out[6] = 1;
    out[7] = 0x41;  /* CUDA */
    out[8] = (unsigned char)abi;
    fake_put(out + 0x30, abi >= 8 ? (uint64_t)arch << 8 | 4 : (uint64_t)(arch << 16 | arch), 4);
    /* The names: "", ".shstrtab", ".text.KERNEL", ".nv.constant0.KERNEL". */
    size_t names = 64, at = names;
    uint32_t name_of[4];
    const char *prefixes[4] = {"", ".shstrtab", ".text.", ".nv.constant0."};
    for (int i = 0; i < 4; i++) {
        name_of[i] = (uint32_t)(at - names);
        size_t length = strlen(prefixes[i]);
        memcpy(out + at, prefixes[i], length);
        at += length;
        if (i >= 2) {
            memcpy(out + at, kernel, strlen(kernel));
            at += strlen(kernel);
        }
        out[at++] = '\0';
    }
    size_t names_size = at - names;
    at = (at + 7) & ~(size_t)7;
    int sections = constant_bytes > 0 ? 4 : 3;
    fake_put(out + 0x28, at, 8);    /* e_shoff */
    fake_put(out + 0x3a, 64, 2);    /* e_shentsize */
    fake_put(out + 0x3c, (uint64_t)sections, 2);
    fake_put(out + 0x3e, 1, 2);     /* e_shstrndx */
    const uint64_t sizes[4] = {0, names_size, code_bytes, constant_bytes};
    const uint64_t offsets[4] = {0, names, 0, 0};
    for (int i = 0; i < sections; i++) {
        unsigned char *header = out + at + 64 * (size_t)i;
        memset(header, 0, 64);
        fake_put(header, name_of[i], 4);
        fake_put(header + 4, i == 1 ? 3 : i == 0 ? 0 : 1, 4);
        fake_put(header + 0x18, offsets[i], 8);
        fake_put(header + 0x20, sizes[i], 8);
    }
    return at + 64 * (size_t)sections;
}

/* Appends a fatbin entry to out at *size: kind 1 (PTX) or 2 (ELF), for sm_`arch`, flags (0x2000:
 * compressed), holding payload. */
static inline void fake_entry(unsigned char *out, size_t *size, int kind, int arch, uint64_t flags,
                              const unsigned char *payload, size_t payload_bytes)
{
    unsigned char *header = out + *size;
    memset(header, 0, 64);
    fake_put(header, (uint64_t)kind, 2);
    fake_put(header + 2, 0x0101, 2);
    fake_put(header + 4, 64, 4);
    fake_put(header + 8, payload_bytes, 8);
    fake_put(header + 28, (uint64_t)arch, 4);
    fake_put(header + 40, flags, 8);
    memcpy(header + 64, payload, payload_bytes);
    *size += 64 + payload_bytes;
}

/* Starts a fatbin at out (its 16-byte header); fake_fatbin_end sets its size once the entries
 * are appended (fake_entry with *size starting at 16). */
static inline size_t fake_fatbin_start(unsigned char *out)
{
    fake_put(out, 0xBA55ED50u, 4);
    fake_put(out + 4, 1, 2);
    fake_put(out + 6, 16, 2);
    return 16;
}

static inline void fake_fatbin_end(unsigned char *out, size_t size)
{
    fake_put(out + 8, size - 16, 8);
}

#endif

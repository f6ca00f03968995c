# SPDX-License-Identifier: Apache-2.0
"""Tiny hand-made Windows DLLs for the doctor's tests.

make_dll(path, machine, imports, delay=(), version=None, exports=()) writes
a PE file that holds only what cudnn-doctor reads: the COFF machine, an
import table, a delay-import table, a VS_FIXEDFILEINFO block in the
resource data directory and an export directory naming `exports`.  It has no code and no Windows would run it; the layout follows
the PE/COFF specification (DOS stub, "PE\\0\\0", COFF header, PE32 or PE32+
optional header with 16 data directories, one section).
"""
import struct

AMD64 = 0x8664
I386 = 0x14C
SECTION_RVA = 0x1000
SECTION_FILE = 0x200


def make_dll(path, machine, imports, delay=(), version=None, exports=()):
    pe32plus = machine != I386
    imports = list(imports)
    delay = list(delay)
    # Section body: import descriptors, delay descriptors, version, names.
    imp_size = 20 * (len(imports) + 1)
    dly_size = 32 * (len(delay) + 1) if delay else 0
    ver_off = imp_size + dly_size
    ver_size = 16 if version else 0
    names_off = ver_off + ver_size
    names = b""
    name_rvas = []
    for n in imports + delay:
        name_rvas.append(SECTION_RVA + names_off + len(names))
        names += n.encode() + b"\0"
    body = b""
    for i, _ in enumerate(imports):
        body += struct.pack("<IIIII", 0, 0, 0, name_rvas[i], 0)
    body += b"\0" * 20
    if delay:
        for i, _ in enumerate(delay):
            body += struct.pack("<IIIIIIII", 1, name_rvas[len(imports) + i], 0, 0, 0, 0, 0, 0)
        body += b"\0" * 32
    if version:
        a, b, c, d = version
        body += struct.pack("<IIII", 0xFEEF04BD, 0x10000, (a << 16) | b, (c << 16) | d)
    body += names
    exp_off = exp_size = 0
    if exports:
        # Export directory: 40-byte header, then the function, name-pointer
        # and ordinal tables, the DLL's name and the exported names.
        body += b"\0" * (-len(body) % 4)
        exp_off = len(body)
        n = len(exports)
        funcs = exp_off + 40
        ptrs = funcs + 4 * n
        ords = ptrs + 4 * n
        strs = ords + 2 * n
        blob = path.replace("\\", "/").split("/")[-1].encode() + b"\0"
        name_rvas = []
        for e in sorted(exports):
            name_rvas.append(SECTION_RVA + strs + len(blob))
            blob += e.encode() + b"\0"
        body += struct.pack("<IIHHIIIIIII", 0, 0, 0, 0, SECTION_RVA + strs, 1, n, n, SECTION_RVA + funcs,
                            SECTION_RVA + ptrs, SECTION_RVA + ords)
        body += struct.pack("<%dI" % n, *([SECTION_RVA] * n))
        body += struct.pack("<%dI" % n, *name_rvas)
        body += struct.pack("<%dH" % n, *range(n))
        body += blob
        exp_size = len(body) - exp_off
    body += b"\0" * (-len(body) % 0x200)

    dirs = [(0, 0)] * 16
    if exports:
        dirs[0] = (SECTION_RVA + exp_off, exp_size)
    dirs[1] = (SECTION_RVA, imp_size)
    if version:
        dirs[2] = (SECTION_RVA + ver_off, ver_size)
    if delay:
        dirs[13] = (SECTION_RVA + imp_size, dly_size)
    if pe32plus:
        opt = struct.pack("<H", 0x20B) + b"\0" * 106 + struct.pack("<I", 16)
    else:
        opt = struct.pack("<H", 0x10B) + b"\0" * 90 + struct.pack("<I", 16)
    opt += b"".join(struct.pack("<II", r, s) for r, s in dirs)
    coff = struct.pack("<HHIIIHH", machine, 1, 0, 0, 0, len(opt), 0x2022)
    section = struct.pack("<8sIIIIIIHHI", b".rdata", len(body), SECTION_RVA, len(body), SECTION_FILE,
                          0, 0, 0, 0, 0x40000040)
    dos = b"MZ" + b"\0" * 58 + struct.pack("<I", 0x40)
    head = dos + b"PE\0\0" + coff + opt + section
    assert len(head) <= SECTION_FILE
    data = head + b"\0" * (SECTION_FILE - len(head)) + body
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    # make_pe.py DIR: sample DLLs for the PE reader's fuzz test (parse_fuzz pe).
    import os
    import sys
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    make_dll(os.path.join(out, "a.dll"), AMD64, ["KERNEL32.dll", "zlibwapi.dll", "cublas64_12.dll"],
             delay=["nvrtc64_120_0.dll"], version=(8, 9, 4, 25), exports=["cudnnGetVersion", "freednnSetIsa"])
    make_dll(os.path.join(out, "b.dll"), I386, ["KERNEL32.dll"])

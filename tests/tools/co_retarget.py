#!/usr/bin/env python3
"""co_retarget.py IN OUT ARCH - copy an AMDGPU code object built for gfx942 and
retarget it to ARCH (gfx950): EF_AMDGPU_MACH in e_flags and the metadata note's
amdhsa.target string (same length, so the msgpack stays valid).

Why: LLVM 19 (Debian's clang-19) has no gfx950, and gfx950's code object layout
is gfx942's (same kernel descriptor, unified VGPR/AGPR file, granule 8), so a
retargeted gfx942 object is what a gfx950 one looks like to a reader of the
metadata and descriptor (docs/commands/capture.md, "gfx950")."""
import struct
import sys

MACH = {"gfx942": 0x4C, "gfx950": 0x4F, "gfx90a": 0x3F}

src, dst, arch = sys.argv[1], sys.argv[2], sys.argv[3]
b = bytearray(open(src, "rb").read())
assert b[:4] == b"\x7fELF" and b[4] == 2, "not an ELF64"
(flags,) = struct.unpack_from("<I", b, 0x30)
old = next(k for k, v in MACH.items() if v == flags & 0xFF)
struct.pack_into("<I", b, 0x30, (flags & ~0xFF) | MACH[arch])
t_old, t_new = ("amdgcn-amd-amdhsa--" + old).encode(), ("amdgcn-amd-amdhsa--" + arch).encode()
assert len(t_old) == len(t_new) and b.count(t_old) == 1, "target string"
b = b.replace(t_old, t_new)
open(dst, "wb").write(b)

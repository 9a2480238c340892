#!/usr/bin/env python3
"""Writes offload bundles the way clang's OffloadBundler.cpp lays them out,
for the forms clang-offload-bundler here does not write.

  bundles.py ccob --version {2,3} IN.hipfb OUT.ccob
      A compressed bundle (CCOB) with zlib (method 0): the bundler writes
      only zstd. Header (integers little-endian):
        v3: "CCOB" u16 version u16 method u64 total_size u64 uncompressed_size u64 hash
        v2: "CCOB" u16 version u16 method u32 total_size u32 uncompressed_size u64 hash
      hash = first 8 bytes of the MD5 of the uncompressed bundle, as a u64.

  bundles.py bundle --align N OUT ID=FILE...
      An uncompressed bundle with the entry ids exactly as given (the bundler
      normalizes ids, so it cannot write ROCm's
      hipv4-spirv64-amd-amdhsa-unknown-amdgcnspirv):
        "__CLANG_OFFLOAD_BUNDLE__" u64 N, N x {u64 offset, u64 size,
        u64 id length, id}, then each entry at an N-aligned offset.
"""
import argparse
import hashlib
import struct
import zlib


def ccob(bundle: bytes, version: int) -> bytes:
    stream = zlib.compress(bundle, 9)
    (hash_,) = struct.unpack("<Q", hashlib.md5(bundle).digest()[:8])
    if version == 3:
        header = b"CCOB" + struct.pack("<HHQQQ", 3, 0, 32 + len(stream), len(bundle), hash_)
    else:
        header = b"CCOB" + struct.pack("<HHIIQ", 2, 0, 24 + len(stream), len(bundle), hash_)
    return header + stream


def bundle(entries: list[tuple[str, bytes]], align: int) -> bytes:
    header_size = 24 + 8 + sum(24 + len(i.encode()) for i, _ in entries)
    offsets, at = [], header_size
    for _, data in entries:
        at = (at + align - 1) // align * align
        offsets.append(at)
        at += len(data)
    out = bytearray(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(entries)))
    for (ident, data), off in zip(entries, offsets):
        out += struct.pack("<QQQ", off, len(data), len(ident.encode())) + ident.encode()
    for (_, data), off in zip(entries, offsets):
        out += bytes(off - len(out)) + data
    return bytes(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("ccob")
    c.add_argument("--version", type=int, choices=(2, 3), required=True)
    c.add_argument("input")
    c.add_argument("output")
    b = sub.add_parser("bundle")
    b.add_argument("--align", type=int, default=4096)
    b.add_argument("output")
    b.add_argument("entries", nargs="+", metavar="ID=FILE")
    a = p.parse_args()
    if a.cmd == "ccob":
        with open(a.input, "rb") as f:
            out = ccob(f.read(), a.version)
    else:
        entries = []
        for e in a.entries:
            ident, path = e.split("=", 1)
            with open(path, "rb") as f:
                entries.append((ident, f.read()))
        out = bundle(entries, a.align)
    with open(a.output, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Copies a WebAssembly module without its custom sections named `.debug*` (DWARF debug
information) or `name`: a dev build's size is mostly these, and a browser never reads them.
Usage: wasm_strip.py IN.wasm OUT.wasm"""
import sys


def leb128(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def strip(data):
    if data[:4] != b"\0asm":
        raise ValueError("not a WebAssembly module (no \\0asm header)")
    out = bytearray(data[:8])
    i = 8
    while i < len(data):
        start = i
        section = data[i]
        size, body = leb128(data, i + 1)
        end = body + size
        keep = True
        if section == 0:
            name_len, name_start = leb128(data, body)
            name = data[name_start:name_start + name_len]
            keep = not (name.startswith(b".debug") or name == b"name")
        if keep:
            out += data[start:end]
        i = end
    return bytes(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        stripped = strip(f.read())
    with open(sys.argv[2], "wb") as f:
        f.write(stripped)

#!/usr/bin/env python3
"""Writes the hand-made regression files of the resource-limit audit (see README.md).

Each is a small little-endian GGUF v3 file with one hostile tensor shape. Run from this folder:
    python3 make-audit-files.py
"""
import struct


def gguf(tensors, metadata=(("general.architecture", "llama"),)):
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, value in metadata:
        out += struct.pack("<Q", len(key)) + key.encode() + struct.pack("<IQ", 8, len(value)) + value.encode()
    for name, type_id, ne in tensors:
        out += struct.pack("<Q", len(name)) + name.encode() + struct.pack("<I", len(ne))
        out += b"".join(struct.pack("<Q", n) for n in ne) + struct.pack("<IQ", type_id, 0)
    out += b"\0" * (-len(out) % 32)
    return out + b"\0" * 64  # a little data after the header


FILES = {
    # Zero elements (no bytes needed), 2^40 rows: every per-row loop would run for hours.
    "empty_tensor_2e40_rows.gguf": [("a.f32", 0, [0, 1 << 40])],
    # An empty expert tensor with 2^32 experts: experts * experts wraps to 0 in 64 bits.
    "empty_expert_tensor_2e32_experts.gguf": [("blk.0.ffn_up_exps.weight", 1, [0, 1, 1 << 32])],
    # Zeros counted as ones, the extent 2^120 overflows 64 bits.
    "empty_tensor_extent_overflow.gguf": [("a.f32", 0, [0, 1 << 40, 1 << 40, 1 << 40])],
    # A type nobody knows: no size can be computed, so nothing ties its shape to the file.
    "unknown_type_2e50_elements.gguf": [("a.unknown", 250, [1 << 20, 1 << 20, 1 << 10])],
}

if __name__ == "__main__":
    for name, tensors in FILES.items():
        with open(name, "wb") as f:
            f.write(gguf(tensors))

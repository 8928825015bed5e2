#!/usr/bin/env python3
"""Writes the seeds of fuzz_imatrix into a folder, each named by the SHA-1 of its bytes.

From the shared fixtures (llama.cpp/): the tiny-llama imatrix in both formats as it is (about
20 KB each), the tiny-moe .dat cut to its first entries (an expert tensor included) with its
trailer, and small GGUF imatrices written here: one MoE entry with a zero count, one dense
entry, so both layouts, the zero-count path and the ignored-tensor path are reached.

usage: fuzz/make-imatrix-seeds.py FIXTURES_DIR OUT_DIR
"""
import hashlib
import pathlib
import struct
import sys


def legacy_prefix(data, keep):
    """The first `keep` entries of a legacy .dat, then its trailer."""
    (count,) = struct.unpack_from("<i", data, 0)
    at = 4
    for _ in range(count):
        (n,) = struct.unpack_from("<i", data, at)
        at += 4 + n
        _, nval = struct.unpack_from("<ii", data, at)
        at += 8 + 4 * nval
    entries_end = at
    # Walk again, keeping `keep` entries.
    at, kept = 4, b""
    for i in range(keep):
        (n,) = struct.unpack_from("<i", data, at)
        _, nval = struct.unpack_from("<ii", data, at + 4 + n)
        size = 4 + n + 8 + 4 * min(nval, 64)
        entry = bytearray(data[at:at + size])
        struct.pack_into("<i", entry, 4 + n + 4, min(nval, 64))  # at most 64 values per entry
        kept += bytes(entry)
        at += 4 + n + 8 + 4 * nval
    return struct.pack("<i", keep) + kept + data[entries_end:]


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_imatrix(tensors, extra_kv=b"", n_extra=0):
    """A GGUF v3 imatrix: the three imatrix keys, then f32 tensors (name, ne, values)."""
    kv = gguf_string("imatrix.datasets") + struct.pack("<IIQ", 9, 8, 1) + gguf_string("seed.txt")
    kv += gguf_string("imatrix.chunk_count") + struct.pack("<II", 4, 3)
    kv += gguf_string("imatrix.chunk_size") + struct.pack("<II", 4, 16)
    infos, blobs, offset = b"", b"", 0
    for name, ne, values in tensors:
        infos += gguf_string(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        infos += struct.pack("<IQ", 0, offset)
        blob = struct.pack(f"<{len(values)}f", *values)
        blob += b"\0" * (-len(blob) % 32)
        blobs += blob
        offset += len(blob)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 3 + n_extra) + kv + extra_kv + infos
    head += b"\0" * (-len(head) % 32)
    return head + blobs


def main():
    fixtures, out = pathlib.Path(sys.argv[1]) / "llama.cpp", pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    seeds = [
        (fixtures / "tiny-llama.imatrix.gguf").read_bytes(),
        (fixtures / "tiny-llama.imatrix.dat").read_bytes(),
        legacy_prefix((fixtures / "tiny-moe.imatrix.dat").read_bytes(), 6),
        gguf_imatrix([
            ("blk.0.ffn_up_exps.weight.counts", [1, 3], [5.0, 0.0, 2.0]),
            ("blk.0.ffn_up_exps.weight.in_sum2", [4, 3], [float(i) for i in range(12)]),
            ("blk.1.ffn_up_exps.weight.counts", [1, 3], [1.0, 1.0, 9.0]),
            ("blk.1.ffn_up_exps.weight.in_sum2", [4, 3], [float(12 - i) for i in range(12)]),
        ]),
        gguf_imatrix([
            ("blk.0.attn_q.weight.in_sum2", [8], [1.0, 2.0, 0.0, 1e-7, 3.0, 4.0, 5.0, 6.0]),
            ("blk.0.attn_q.weight.counts", [1], [16.0]),
            ("unrelated", [2], [0.0, 0.0]),
        ]),
    ]
    for seed in seeds:
        (out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)


if __name__ == "__main__":
    main()

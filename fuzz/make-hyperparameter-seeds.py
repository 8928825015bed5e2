#!/usr/bin/env python3
"""Writes the seeds of fuzz_hyperparameters into a folder.

One seed per architecture fixture (a folder of llama.cpp/arch with an F32 model): its name and a
NUL, which the harness reads as the model as stored. A few more add edits, 10 bytes each (key
selector, kind, 8 payload bytes; see fuzz/fuzz_hyperparameters.cpp): a u32 at its maximum, a
string where a count is read, an array per layer, an f32 near the f32 maximum, a removal.

usage: fuzz/make-hyperparameter-seeds.py FIXTURES_DIR OUT_DIR
"""
import pathlib
import struct
import sys


def edit(key, kind, payload=b""):
    return bytes([key, kind]) + payload.ljust(8, b"\0")[:8]


def main():
    fixtures, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for folder in sorted((fixtures / "llama.cpp/arch").iterdir()):
        if (folder / f"{folder.name}-F32.gguf").exists():
            (out / f"{folder.name}-as-stored").write_bytes(folder.name.encode() + b"\0")
    edited = {
        "gemma4": edit(7, 4, struct.pack("<I", 0xFFFFFFFF)) + edit(30, 13),
        "qwen35": edit(17, 8, b"16\0\0\0\0\0\1") + edit(40, 16, b"\0\1\1\0\1\0\1\0"),
        "gemma2": edit(11, 15) + edit(60, 14),
        "deepseek2": edit(25, 6, struct.pack("<f", 3e38)) + edit(50, 9, b"\4\6\1\2\3\4\5\6"),
    }
    for name, edits in edited.items():
        (out / f"{name}-edits").write_bytes(name.encode() + b"\0" + edits)


if __name__ == "__main__":
    main()

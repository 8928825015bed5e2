#!/usr/bin/env python3
"""Writes the fuzzing seeds derived from the shared fixtures into a folder.

Small fixtures (up to 16 KB, the malformed ones in bad/ and the unusual ones in odd/) are copied
as they are. Larger models are shrunk so a seed stays a few KB: every metadata key kept, arrays
cut to their first 16 elements; every tensor cut to at most 256 elements per row, 2 rows and 4
experts, its bytes taken from the start of the original tensor. The seeds only need to reach the code paths (every type, the
expert layout, big-endian, version 1); their values do not matter.

usage: fuzz/make-seeds.py FIXTURES_DIR OUT_DIR
"""
import pathlib
import shutil
import struct
import sys

SMALL = 16 * 1024
SHRINK = ["all-types.gguf", "tiny-moe-Q4_K.gguf", "tiny-llama-IQ2_S.gguf", "split-00001-of-00002.gguf"]
FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        value = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return value[0]

    def string(self):
        n = self.take("Q")
        self.at += n
        return self.data[self.at - n:self.at]

    def skip_value(self, kind):
        if kind in FIXED:
            self.at += FIXED[kind]
        elif kind == 8:
            self.string()
        else:
            element, count = self.take("I"), self.take("Q")
            for _ in range(count):
                self.skip_value(element)

    def shortened_value(self, kind, keep=16):
        """The value's bytes, with arrays cut to their first `keep` elements."""
        start = self.at
        if kind != 9:
            self.skip_value(kind)
            return self.data[start:self.at]
        element, count = self.take("I"), self.take("Q")
        parts = [self.shortened_value(element, keep) if i < keep else self.skip_value(element) for i in range(count)]
        return struct.pack("<IQ", element, min(count, keep)) + b"".join(parts[:keep])


def shrink(source):
    data = source.read_bytes()
    r = Reader(data)
    assert data[:4] == b"GGUF" and r.take("4s") and r.take("I") >= 2
    n_tensors, n_kv = r.take("Q"), r.take("Q")
    alignment = 32
    metadata = b""
    for _ in range(n_kv):
        key = r.string()
        kind = r.take("I")
        if key == b"general.alignment":
            alignment = struct.unpack_from("<I", data, r.at)[0]
        metadata += struct.pack("<Q", len(key)) + key + struct.pack("<I", kind) + r.shortened_value(kind)
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        ne = [r.take("Q") for _ in range(r.take("I"))]
        infos.append((name, ne, r.take("I"), r.take("Q")))
    data_start = -(-r.at // alignment) * alignment
    offsets = sorted(o for *_, o in infos) + [len(data) - data_start]

    out_infos, out_data = b"", b""
    for name, ne, kind, offset in infos:
        stored = offsets[offsets.index(offset) + 1] - offset  # up to the next tensor, padding included
        elements = 1
        for n in ne:
            elements *= n
        new_ne = [min(n, limit) for n, limit in zip(ne, [256, 2, 4, 1])]
        new_elements = 1
        for n in new_ne:
            new_elements *= n
        size = stored * new_elements // max(elements, 1)  # same bytes per element
        out_infos += struct.pack("<Q", len(name)) + name + struct.pack("<I", len(ne))
        out_infos += b"".join(struct.pack("<Q", n) for n in new_ne) + struct.pack("<IQ", kind, len(out_data))
        chunk = data[data_start + offset:data_start + offset + size]
        out_data += chunk + b"\0" * (-len(chunk) % alignment)
    header = b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_kv) + metadata + out_infos
    return header + b"\0" * (-len(header) % alignment) + out_data


def main():
    fixtures, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(fixtures.glob("*.gguf")) + sorted(fixtures.glob("bad/*.gguf")) + sorted(fixtures.glob("odd/*.gguf")):
        if path.stat().st_size <= SMALL:
            shutil.copyfile(path, out / f"{path.parent.name}-{path.name}")
    for name in SHRINK:
        # Named so it does not look like a split shard (which would look for its siblings).
        (out / f"shrunk-{name.replace('-00001-of-00002', '-first-shard')}").write_bytes(shrink(fixtures / name))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Regenerates app/cli/StartupOrder.ld: the input sections `gguf-explorer-cli info` touches,
laid out first.

Why: Linux maps a file-backed page fault 64 KiB at a time (fault-around), and on kernels with
large page-cache folios the whole folio. A short command such as `info` touches ~130 KiB of our
code, but spread over a 3.5 MB text it faulted ~24 windows, 1.5 MiB of resident pages. Grouping
what it runs (and the read-only data it reads) brings that to a few windows. A stale list is
harmless: a pattern that matches nothing is ignored, and the code only sits somewhere else.

How: relink the CLI from a configured build tree with a link map, run `info` on two generated
files under valgrind's lackey (every instruction and data address), map the addresses to input
sections through the link map, and write a linker script fragment that the CLI's CMakeLists
passes with -T (INSERT keeps the default script).

Needs: python3, valgrind and ninja, and a build tree configured with the CLI (any preset whose
compiler puts each function in its own section, which app/cli/CMakeLists.txt asks for).

    tools/link-order/update-cli-link-order.py build/release
"""

import bisect
import os
import re
import struct
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTPUT = os.path.join(REPO, "app", "cli", "StartupOrder.ld")
TARGET = "app/cli/gguf-explorer-cli"
REPLACED_BY_VALGRIND = ["_Znwm", "_Znam", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdaPvm", "_ZnwmRKSt9nothrow_t",
                        "_ZnwmSt11align_val_t", "_ZdlPvSt11align_val_t", "_ZdlPvmSt11align_val_t"]
VALGRIND_PIE_BASE = 0x108000  # where valgrind's amd64 loader places a position-independent executable


def gguf_string(text):
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def write_many_tensor_file(path, count):
    """`count` tiny f32 tensors: the header is almost all tensor infos (the bench's 3000 case)."""
    header = b"GGUF" + struct.pack("<IQQ", 3, count, 1)
    header += gguf_string("general.architecture") + struct.pack("<I", 8) + gguf_string("llama")
    for i in range(count):
        header += gguf_string("blk.%d.t%d.weight" % (i // 10, i % 10)) + struct.pack("<IQIQ", 1, 32, 0, i * 128)
    header += b"\0" * ((-len(header)) % 32)
    with open(path, "wb") as out:
        out.write(header + b"\0" * (128 * count))


def write_vocabulary_file(path):
    """A tokenizer-sized string array and scores, so the summary walk over big arrays is covered."""
    tokens = ["tok%05d" % i for i in range(20000)]
    header = b"GGUF" + struct.pack("<IQQ", 3, 1, 3)
    header += gguf_string("general.architecture") + struct.pack("<I", 8) + gguf_string("llama")
    header += gguf_string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, len(tokens))
    header += b"".join(gguf_string(t) for t in tokens)
    header += gguf_string("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, len(tokens))
    header += struct.pack("<%df" % len(tokens), *[float(-i) for i in range(len(tokens))])
    header += gguf_string("token_embd.weight") + struct.pack("<IQQIQ", 2, 32, 4, 0, 0)
    header += b"\0" * ((-len(header)) % 32)
    with open(path, "wb") as out:
        out.write(header + b"\0" * (32 * 4 * 4))


def link_command(build_dir):
    commands = subprocess.run(["ninja", "-C", build_dir, "-t", "commands", TARGET], check=True,
                              capture_output=True, text=True).stdout.strip().splitlines()
    link = commands[-1]
    link = re.sub(r"^: && ", "", link)
    link = re.sub(r" && :$", "", link)
    # The order script itself is dropped: the map must show the unordered layout's addresses.
    link = re.sub(r" -Wl,-T,\S+", "", link)
    return link


class InputSection:
    def __init__(self, name, address, size, origin):
        self.name, self.address, self.size, self.origin = name, address, size, origin

    # Sections that carry no function or object name (crt files, libgcc): only their file tells them apart.
    GENERIC = {".text", ".text.unlikely", ".text.startup", ".text.hot", ".text.exit", ".rodata"}

    def generic(self):
        # Merged constants and strings keep one section name in every object as well.
        return self.name in self.GENERIC or re.match(r"^\.rodata\.(cst\d+|str\d+\.\d+)$", self.name)

    def pattern(self):
        if not self.generic():
            # GCC files main and constructors under .text.startup., hot code under .text.hot.,
            # but only when optimising for speed: one pattern fits every build type.
            for prefix in (".text.startup.", ".text.hot.", ".text."):
                if self.name.startswith(prefix) and not self.name.startswith(".text.unlikely."):
                    function = self.name[len(prefix):]
                    return "*(.text.%s .text.startup.%s .text.hot.%s)" % (function, function, function)
            return "*(%s)" % self.name
        archive = re.match(r"^(?:.*/)?([^/()]+\.a)\(([^()]+)\)$", self.origin)
        if archive:
            return "*%s:%s(%s)" % (archive.group(1), archive.group(2), self.name)
        return "*%s(%s)" % (os.path.basename(self.origin), self.name)


def read_map(path):
    """Input sections with addresses and files from a GNU ld map (a long name sits on its own line)."""
    sections = []
    pending = None
    in_memory_map = False
    line_re = re.compile(r"^ (\.\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
    tail_re = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
    with open(path, errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            if line.startswith("Linker script and memory map"):
                in_memory_map = True
                continue
            if not in_memory_map:
                continue
            match = line_re.match(line)
            if match:
                sections.append(InputSection(match.group(1), int(match.group(2), 16), int(match.group(3), 16), match.group(4)))
                pending = None
                continue
            if re.match(r"^ (\.\S+)\s*$", line):
                pending = line.strip()
                continue
            if pending:
                match = tail_re.match(line)
                if match:
                    sections.append(InputSection(pending, int(match.group(1), 16), int(match.group(2), 16), match.group(3)))
                pending = None
    return [s for s in sections if s.size > 0 and s.address > 0]


def symbol_address(binary, symbol):
    for line in subprocess.run(["nm", binary], check=True, capture_output=True, text=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] == symbol:
            return int(fields[0], 16)
    raise SystemExit("no %s in %s" % (symbol, binary))


def touched_addresses(binary, arguments, work_dir):
    """First-touch order of instruction and data addresses inside the executable."""
    trace = os.path.join(work_dir, "lackey.out")
    subprocess.run(["valgrind", "--tool=lackey", "--trace-mem=yes", "--log-file=" + trace, binary] + arguments,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    order = []
    seen = set()
    with open(trace) as lines:
        for line in lines:
            kind = line[:2].strip()
            if kind not in ("I", "L", "S", "M"):
                continue
            address = int(line.split()[1].split(",")[0], 16)
            if address in seen:
                continue
            seen.add(address)
            order.append(address)
    return order


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    build_dir = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work_dir:
        binary = os.path.join(work_dir, "gguf-explorer-cli")
        map_path = os.path.join(work_dir, "cli.map")
        link = link_command(build_dir)
        link = re.sub(r" -o \S+", " -o " + binary, link, count=1) + " -Wl,-Map," + map_path
        subprocess.run(link, shell=True, check=True, cwd=build_dir)
        sections = read_map(map_path)
        sections.sort(key=lambda s: s.address)
        starts = [s.address for s in sections]

        many = os.path.join(work_dir, "many.gguf")
        vocabulary = os.path.join(work_dir, "vocabulary.gguf")
        write_many_tensor_file(many, 3000)
        write_vocabulary_file(vocabulary)
        entry = symbol_address(binary, "_start")
        text, rodata = [], []
        seen = set()
        for arguments in (["info", many], ["info", vocabulary]):
            addresses = touched_addresses(binary, arguments, work_dir)
            if VALGRIND_PIE_BASE + entry not in addresses:
                raise SystemExit("the executable did not load where valgrind's loader usually puts it")
            for address in addresses:
                offset = address - VALGRIND_PIE_BASE
                i = bisect.bisect_right(starts, offset) - 1
                if i < 0 or offset >= sections[i].address + sections[i].size:
                    continue
                section = sections[i]
                pattern = section.pattern()
                if pattern in seen:
                    continue
                seen.add(pattern)
                if section.name == ".text" or section.name.startswith(".text."):
                    text.append(pattern)
                elif section.name == ".rodata" or section.name.startswith(".rodata."):
                    rodata.append(pattern)
        # Valgrind runs its own allocator in place of these, so the trace never shows them.
        for name in REPLACED_BY_VALGRIND:
            pattern = "*(.text.%s)" % name
            if pattern not in seen and any(s.name == ".text." + name for s in sections):
                text.append(pattern)

    with open(OUTPUT, "w") as out:
        out.write("/* Generated by tools/link-order/update-cli-link-order.py: the input sections that\n")
        out.write("   `gguf-explorer-cli info` touches, placed first so that they share a few pages\n")
        out.write("   (see that script for why). INSERT keeps the linker's default script. */\n")
        out.write("SECTIONS\n{\n  .text.startup_order :\n  {\n")
        for name in text:
            out.write("    %s\n" % name)
        out.write("  }\n}\nINSERT BEFORE .text;\n")
        if rodata:
            out.write("SECTIONS\n{\n  .rodata.startup_order :\n  {\n")
            for name in rodata:
                out.write("    %s\n" % name)
            out.write("  }\n}\nINSERT BEFORE .rodata;\n")
    print("%s: %d code and %d read-only data sections" % (OUTPUT, len(text), len(rodata)))


if __name__ == "__main__":
    main()

#!/bin/sh
# Usage: check-layout.sh STAGE APP_ID
# The staged install holds exactly the files a user's system gets, each of the right kind:
# binaries executable, icons PNGs of their nominal size, the sample a GGUF file. A file that is
# missing, or installed by an install() rule nobody meant for the package, fails the test.
set -eu
stage=$1 id=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-layout: $*" >&2; exit 1; }

sizes="16 32 48 64 128 256"
{
    echo usr/bin/gguf-explorer
    echo usr/bin/gguf-explorer-cli
    echo "usr/share/applications/$id.desktop"
    echo usr/share/gguf-explorer/sample-moe-q2_k.gguf
    for s in $sizes; do echo "usr/share/icons/hicolor/${s}x$s/apps/$id.png"; done
    echo "usr/share/icons/hicolor/scalable/apps/$id.svg"
    echo "usr/share/metainfo/$id.metainfo.xml"
    echo "usr/share/mime/packages/$id.xml"
} | LC_ALL=C sort > "$work/expected"
(cd "$stage" && find . ! -type d | sed 's|^\./||') | LC_ALL=C sort > "$work/installed"
if ! diff -u "$work/expected" "$work/installed"; then
    fail "the installed files differ from the expected layout (- expected, + installed)"
fi

for b in gguf-explorer gguf-explorer-cli; do
    [ -x "$stage/usr/bin/$b" ] || fail "usr/bin/$b is not executable"
done
[ "$(head -c 4 "$stage/usr/share/gguf-explorer/sample-moe-q2_k.gguf")" = GGUF ] || fail "the sample model does not start with GGUF"
# One id names them all: the desktop entry's icon is the installed icon, and AppStream's launchable
# is the desktop entry.
grep -qx "Icon=$id" "$stage/usr/share/applications/$id.desktop" || fail "the desktop entry's Icon= is not $id"
grep -qF "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$stage/usr/share/metainfo/$id.metainfo.xml" ||
    fail "the metainfo's launchable is not $id.desktop"
grep -q '<svg' "$stage/usr/share/icons/hicolor/scalable/apps/$id.svg" || fail "the scalable icon is not an SVG"

# PNG: an 8-byte signature, then the IHDR chunk whose width and height are big-endian u32s.
be32() { echo $(( ($1 << 24) | ($2 << 16) | ($3 << 8) | $4 )); }
for s in $sizes; do
    png="$stage/usr/share/icons/hicolor/${s}x$s/apps/$id.png"
    [ "$(od -An -tx1 -N8 "$png" | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
    # shellcheck disable=SC2046
    set -- $(od -An -tu1 -j16 -N8 "$png")
    w=$(be32 "$1" "$2" "$3" "$4") h=$(be32 "$5" "$6" "$7" "$8")
    [ "$w" -eq "$s" ] && [ "$h" -eq "$s" ] || fail "$png is ${w}x$h, expected ${s}x$s"
done
echo "check-layout: $(wc -l < "$work/installed") files, all in place"

#!/bin/sh
# Usage: packaging/check-deb-install.sh BUILD_DIR   (as root; CI runs it after the tests)
# Builds the .deb from a configured and built tree, installs it with apt as a user would, checks
# that both binaries are on PATH, the menu entry and the .gguf MIME type are registered and the
# programs run, then removes the package again, also when a check fails.
set -eu
build=$(cd "${1:?usage: packaging/check-deb-install.sh BUILD_DIR}" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "check-deb-install: run as root (it installs the package)" >&2; exit 1; }
id=io.github.gguf_explorer.GGUFExplorer
sample=/usr/share/gguf-explorer/sample-moe-q2_k.gguf
out=$(mktemp -d)
chmod 755 "$out"  # apt reads the .deb as its unprivileged _apt user
cleanup() {
    if dpkg-query -W -f='${Status}' gguf-explorer 2>/dev/null | grep -q "install ok installed"; then
        DEBIAN_FRONTEND=noninteractive apt-get remove -y gguf-explorer
    fi
    rm -rf "$out"
}
trap cleanup EXIT
fail() { echo "check-deb-install: $*" >&2; exit 1; }

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out"
deb=$(ls "$out"/gguf-explorer_*.deb)
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb"

[ "$(command -v gguf-explorer)" = /usr/bin/gguf-explorer ] || fail "gguf-explorer is not /usr/bin/gguf-explorer on PATH"
[ "$(command -v gguf-explorer-cli)" = /usr/bin/gguf-explorer-cli ] || fail "gguf-explorer-cli is not /usr/bin/gguf-explorer-cli on PATH"
[ -f "/usr/share/applications/$id.desktop" ] || fail "no menu entry /usr/share/applications/$id.desktop"
# The triggers of shared-mime-info and desktop-file-utils compile the type and the association.
grep -q '^application/x-gguf$' /usr/share/mime/types || fail "application/x-gguf is not in the MIME database"
if command -v update-desktop-database > /dev/null; then
    grep -q "^application/x-gguf=.*$id.desktop" /usr/share/applications/mimeinfo.cache ||
        fail ".gguf files are not associated with $id.desktop"
fi
gguf-explorer-cli info "$sample"
version=$(QT_QPA_PLATFORM=offscreen timeout 5 gguf-explorer --version)
echo "$version"
echo "$version" | grep -q "$(dpkg-query -W -f='${Version}' gguf-explorer)" || fail "gguf-explorer --version printed '$version'"

DEBIAN_FRONTEND=noninteractive apt-get remove -y gguf-explorer
[ ! -e /usr/bin/gguf-explorer ] || fail "apt-get remove left /usr/bin/gguf-explorer"
echo "check-deb-install: installed, ran and removed $(basename "$deb")"

#!/bin/sh
# Usage: check-deb.sh CPACK DPKG_DEB BUILD_DIR OUT_DIR VERSION APP_ID
# Builds the .deb from BUILD_DIR with CPack and reads it back with dpkg-deb: control fields, the
# runtime dependencies (Qt 6, QCustomPlot's Qt 6 build, the platform plugins), and the files.
set -eu
cpack=$1 dpkg_deb=$2 build=$3 out=$4 version=$5 id=$6
fail() { echo "check-deb: $*" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
# gzip instead of the package's xz: the same package, without a minute of compressing sanitizer
# builds (check-deb-install.sh builds the real one).
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$out" -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip
deb="$out/gguf-explorer_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "no $deb; CPack wrote: $(ls "$out")"
"$dpkg_deb" -I "$deb"

[ "$("$dpkg_deb" -f "$deb" Package)" = gguf-explorer ] || fail "Package is not gguf-explorer"
[ "$("$dpkg_deb" -f "$deb" Version)" = "$version" ] || fail "Version is not $version"
depends=$("$dpkg_deb" -f "$deb" Depends)
names=$(echo "$depends" | tr ',|' '\n\n' | sed 's/^ *//; s/[ (].*//')
# What the binaries link (QtPrintSupport is not linked: --as-needed drops it),
# plus libqt6svg6, whose icon-engine plugin draws the SVG window icon, and the platform plugins.
for p in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6 libqcustomplot2.1-qt6 qt6-qpa-plugins; do
    echo "$names" | grep -qx "$p" || fail "Depends lacks $p: $depends"
done
# Qt 5 libraries (libqcustomplot2.1 is QCustomPlot's Qt 5 build) would pull in a second Qt.
if echo "$names" | grep -E -q '^(libqt5|libqcustomplot2\.1$)'; then fail "Depends names Qt 5 packages: $depends"; fi

contents=$("$dpkg_deb" -c "$deb")
paths=$(echo "$contents" | awk '{print $6}')
for f in ./usr/bin/gguf-explorer ./usr/bin/gguf-explorer-cli ./usr/share/applications/$id.desktop \
         ./usr/share/metainfo/$id.metainfo.xml ./usr/share/mime/packages/$id.xml \
         ./usr/share/icons/hicolor/scalable/apps/$id.svg ./usr/share/icons/hicolor/48x48/apps/$id.png \
         ./usr/share/gguf-explorer/sample-moe-q2_k.gguf; do
    echo "$paths" | grep -qxF "$f" || fail "the package lacks $f"
done
for f in ./usr/bin/gguf-explorer ./usr/bin/gguf-explorer-cli; do
    mode=$(echo "$contents" | awk -v f="$f" '$6 == f {print $1}')
    [ "$mode" = -rwxr-xr-x ] || fail "$f has mode $mode"
done
stray=$(echo "$paths" | grep -v -e '^\./$' -e '^\./usr/' || true)
[ -z "$stray" ] || fail "files outside /usr: $stray"
owners=$(echo "$contents" | awk '$2 != "root/root"')
[ -z "$owners" ] || fail "files not owned by root: $owners"
echo "check-deb: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB, Depends: $depends"

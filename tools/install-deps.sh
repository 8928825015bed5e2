#!/bin/sh
# Installs what a fresh Debian 12 machine lacks to build, test and run GGUF Explorer.
# Everything comes from Debian's own packages. Needs root (or sudo).
set -eu
packages="cmake fonts-dejavu-core ninja-build g++ pkg-config qt6-base-dev qt6-base-dev-tools libqt6opengl6 qt6-qpa-plugins libgl-dev libqcustomplot-dev qt6-svg-dev librsvg2-bin desktop-file-utils appstream libxml2-utils shared-mime-info dpkg-dev clang-14 libclang-rt-14-dev lld"
# The forward pass (core/forward) multiplies matrices with OpenBLAS (cblas_sgemm).
packages="$packages libopenblas-dev"
# libcurl: HTTP range reads of remote models (core/remote); lighttpd: the local web server the remote tests start
packages="$packages libcurl4-openssl-dev lighttpd"
# RE2: the regular expressions users give (--filter, --tensor-type, rules files) match in linear time
packages="$packages libre2-dev"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
$as_root apt-get update
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y --no-install-recommends $missing

#!/bin/sh
# Usage: stage-install.sh CMAKE BUILD_DIR STAGE
# Installs the build under STAGE with prefix /usr, laid out as the .deb installs it.
set -eu
cmake=$1 build=$2 stage=$3
rm -rf "$stage"
DESTDIR="$stage" "$cmake" --install "$build" --prefix /usr

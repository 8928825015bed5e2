#!/bin/sh
# Usage: check-metainfo-version.sh METAINFO VERSION
# The newest <release> in the AppStream file (listed first) is the version being built.
set -eu
file=$1 version=$2
newest=$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' "$file" | head -n 1)
if [ "$newest" != "$version" ]; then
    echo "check-metainfo-version: the newest <release> in $file is '$newest' but the project is $version;" \
         "add a <release> entry for $version" >&2
    exit 1
fi
echo "check-metainfo-version: $version"

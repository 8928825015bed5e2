#!/bin/sh
# Usage: check-mime.sh XMLLINT UPDATE_MIME_DATABASE MIME_CHECK STAGE WORK_DIR
# Compiles the staged shared-mime-info entry the way the system does on install, then asks Qt's
# QMimeDatabase (what Qt file dialogs and the app use) to recognise .gguf files by name and magic.
set -eu
xmllint=$1 update_mime_database=$2 mime_check=$3 stage=$4 work=$5
rm -rf "$work"
mkdir -p "$work/share/mime/packages" "$work/home"
"$xmllint" --noout "$stage"/usr/share/mime/packages/*.xml
cp "$stage"/usr/share/mime/packages/*.xml "$work/share/mime/packages/"
export XDG_DATA_HOME="$work/home" XDG_DATA_DIRS="$work/share:/usr/share"
"$update_mime_database" "$work/share/mime"
grep -qx 'application/x-gguf' "$work/share/mime/types" || { echo "check-mime: application/x-gguf not compiled" >&2; exit 1; }
"$mime_check" "$stage/usr/share/gguf-explorer/sample-moe-q2_k.gguf"

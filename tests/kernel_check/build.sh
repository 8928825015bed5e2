#!/bin/sh
# Builds and runs kernel_check from the repository root: tests/kernel_check/build.sh [fixtures-dir]
set -e
cd "$(dirname "$0")/../.."
out="${TMPDIR:-/tmp}/kernel_check"
g++ -std=c++20 -O2 -ffp-contract=off -Wall -Wextra -Wpedantic -Wshadow -Werror -I core -I tests/kernel_check \
    tests/kernel_check/kernel_check.cpp core/GgmlType.cpp core/kernels/*.cpp -o "$out"
"$out" "${1:-../shared/fixtures}"

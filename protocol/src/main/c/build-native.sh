#!/usr/bin/env bash
# Builds the native host packer (host_pack.c) into OUT/libstagecoach-host-pack.so when a C compiler and the JDK's
# JNI headers are present; otherwise prints why and exits 0, and the Java copy loops are used.
# Usage: build-native.sh --out DIR --java-home JDK   (CC overrides the compiler, CC=none skips the build)
set -euo pipefail
out="" java_home=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --java-home) java_home="$2"; shift 2 ;;
        *) echo "build-native: unknown argument $1" >&2; exit 2 ;;
    esac
done
cc="${CC:-gcc}"
include="${java_home}/include"
if [[ "${cc}" == "none" ]] || ! command -v "${cc}" >/dev/null 2>&1; then
    echo "build-native: no C compiler (${cc}), the host pack uses its Java copy loops"
    exit 0
fi
if [[ ! -f "${include}/jni.h" || "$(uname -s)" != "Linux" ]]; then
    echo "build-native: no JNI headers at ${include} or not Linux, the host pack uses its Java copy loops"
    exit 0
fi
mkdir -p "${out}"
"${cc}" -O2 -std=c11 -fPIC -shared -Wall -Wextra -Werror -I"${include}" -I"${include}/linux" \
    -o "${out}/libstagecoach-host-pack.so" "$(dirname "${BASH_SOURCE[0]}")/host_pack.c"

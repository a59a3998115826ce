#!/usr/bin/env bash
# Builds the native host library (host_pack.c: strided copies of the host pack; cross_memory.c: same-node reads of
# another process's memory) into OUT/libstagecoach-native.so when a C compiler and the JDK's JNI headers are
# present; otherwise prints why and exits 0: host packs then use the Java copy loops and same-node transfers the
# shared log buffers.
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
    echo "build-native: no C compiler (${cc}), no native host library"
    exit 0
fi
if [[ ! -f "${include}/jni.h" || "$(uname -s)" != "Linux" ]]; then
    echo "build-native: no JNI headers at ${include} or not Linux, no native host library"
    exit 0
fi
src="$(dirname "${BASH_SOURCE[0]}")"
mkdir -p "${out}"
"${cc}" -O2 -std=c11 -fPIC -shared -Wall -Wextra -Werror -I"${include}" -I"${include}/linux" \
    -o "${out}/libstagecoach-native.so" "${src}/host_pack.c" "${src}/cross_memory.c"

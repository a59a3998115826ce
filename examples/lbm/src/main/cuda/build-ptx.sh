#!/usr/bin/env bash
# Compile the LBM example's CUDA C kernels to PTX for compute capability 9.0 (H100/H200) with nvcc, through the device
# layer's build-ptx.sh, recording the SHA-256 of the source in the PTX so that a test can tell when the copy kept in
# src/main/resources is stale. FMA contraction is off (-fmad=false): the emulated device's Java twins of the
# kernels (JavaKernels) round every product and sum on its own, and the GPU must compute the same bits.
#   build-ptx.sh --out DIR    compile into DIR when nvcc is present (the Maven build; without nvcc: nothing to do)
#   build-ptx.sh --update     compile and refresh the kept copy (run after editing the .cu file; needs nvcc)
#   build-ptx.sh --check      compile the cubin as well and print the register and spill report (needs nvcc)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PTX_SOURCE="$here/lbm_kernels.cu" \
  PTX_KEPT="$here/../resources/io/stagecoach/examples/lbm/lbm_kernels.ptx" \
  PTX_FLAGS="-fmad=false" \
  PTX_SCRIPT="examples/lbm/src/main/cuda/build-ptx.sh" \
  PTX_USAGE="$0" \
  exec bash "$here/../../../../../device/src/main/cuda/build-ptx.sh" "$@"

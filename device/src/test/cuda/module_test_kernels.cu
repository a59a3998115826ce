// A kernel for the tests of the device layer's kernel modules (KernelModuleContractTest), beside its Java twin there.
// Kept compiled in src/test/resources/io/stagecoach/device/module_test_kernels.ptx, with the SHA-256 of this file on
// its first line; refresh it after an edit with (from device/):
//   { echo "// source-sha256: $(sha256sum src/test/cuda/module_test_kernels.cu | cut -d' ' -f1)";
//     nvcc -arch=compute_90 -ptx -O3 -fmad=false -o - src/test/cuda/module_test_kernels.cu; } \
//     > src/test/resources/io/stagecoach/device/module_test_kernels.ptx

// y[i] = a * x[i] + offset + b for i < n: one argument of each kind a launch can carry.
extern "C" __global__ void sc_test_axpb(float* y, const float* x, int n, float a, long long offset, double b)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
    {
        y[i] = a * x[i] + (float)offset + (float)b;
    }
}

// Kernels of the multiphase lattice Boltzmann example (io.stagecoach.examples.lbm): a free-energy binary fluid with
// the momentum distribution f on D3Q19 and the order-parameter distribution g on D3Q7.
//
// Every kernel here has a twin in io.stagecoach.examples.lbm.JavaKernels, which the emulated device runs: the same
// arithmetic in the same order, so that with FMA contraction off (build-ptx.sh passes -fmad=false) and IEEE division
// (nvcc's default) a GPU and the emulated device compute the same bits. Change both together.
//
// Layout: a rank's block of nx x ny x nz cells with one ghost layer on every side, x fastest: cell (i, j, k) of
// NX = nx + 2, NY = ny + 2, NZ = nz + 2 is element (k * NY + j) * NX + i of each field. A population buffer holds 26
// component arrays of NX * NY * NZ floats one after the other: f_0 .. f_18 (components 0-18), g_0 .. g_6 (19-25).
// Directions 1-6 are the axes (+x, -x, +y, -y, +z, -z), shared by D3Q19 and D3Q7; 7-18 the edge diagonals.
//
// A launch is one thread per interior cell (nx * ny * nz of them), or per element of a face box for pack and unpack,
// in blocks of LBM_THREADS. region selects the cells a thread works on: 0 every interior cell, 1 the inner cells
// (two or more cells from the ghost layer: nothing they read comes from a neighbour), 2 the shell of the others.

#define LBM_THREADS 256
#define LBM_G 19

__constant__ int CX[19] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
__constant__ int CY[19] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
__constant__ int CZ[19] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};

struct Cell
{
    long long index;   // element of the cell in a field
    long long cells;   // elements of one field, ghosts included
    long long stride;  // NX: elements between (i, j, k) and (i, j + 1, k)
    long long plane;   // NX * NY: elements between (i, j, k) and (i, j, k + 1)
};

__device__ __forceinline__ bool isInner(int i, int j, int k, int nx, int ny, int nz)
{
    return i >= 2 && i <= nx - 1 && j >= 2 && j <= ny - 1 && k >= 2 && k <= nz - 1;
}

// The interior cell of thread t, or false when t has none or its cell is outside the region.
__device__ __forceinline__ bool cellOf(long long t, int nx, int ny, int nz, int region, Cell* cell)
{
    if (t >= (long long)nx * ny * nz)
    {
        return false;
    }
    const int i = (int)(t % nx) + 1;
    const long long rest = t / nx;
    const int j = (int)(rest % ny) + 1;
    const int k = (int)(rest / ny) + 1;
    if ((region == 1 && !isInner(i, j, k, nx, ny, nz)) || (region == 2 && isInner(i, j, k, nx, ny, nz)))
    {
        return false;
    }
    cell->stride = nx + 2;
    cell->plane = cell->stride * (ny + 2);
    cell->cells = cell->plane * (nz + 2);
    cell->index = (k * cell->plane + j * cell->stride) + i;
    return true;
}

__device__ __forceinline__ long long threadIndex()
{
    return blockIdx.x * (long long)blockDim.x + threadIdx.x;
}

// (1) the order parameter: phi = sum of g.
extern "C" __global__ void lbm_update(const float* __restrict__ pops, float* __restrict__ phi, int nx, int ny,
    int nz, int region)
{
    Cell c;
    if (!cellOf(threadIndex(), nx, ny, nz, region, &c))
    {
        return;
    }
    const float* g = pops + LBM_G * c.cells + c.index;
    float p = g[0];
#pragma unroll
    for (int q = 1; q < 7; q++)
    {
        p = p + g[q * c.cells];
    }
    phi[c.index] = p;
}

// (3) collision of f (BGK with Guo's forcing of the force mu grad phi) and of g (BGK towards the Cahn-Hilliard
// equilibrium), in place. mu = a phi (phi^2 - 1) - kappa lap phi; lap and grad on the D3Q7 stencil of phi. Both rest
// populations' equilibria (and f's forcing at rest) are what makes the moments exact: rho (phi) less the others.
extern "C" __global__ void lbm_collide(float* __restrict__ pops, const float* __restrict__ phi, int nx, int ny,
    int nz, int region, float a, float kappa, float omegaF, float omegaG, float gamma, float forcing)
{
    Cell c;
    if (!cellOf(threadIndex(), nx, ny, nz, region, &c))
    {
        return;
    }
    const float p = phi[c.index];
    const float pxp = phi[c.index + 1];
    const float pxm = phi[c.index - 1];
    const float pyp = phi[c.index + c.stride];
    const float pym = phi[c.index - c.stride];
    const float pzp = phi[c.index + c.plane];
    const float pzm = phi[c.index - c.plane];
    const float lap = ((pxp + pxm) + (pyp + pym)) + (pzp + pzm) - 6.0f * p;
    const float mu = a * p * (p * p - 1.0f) - kappa * lap;
    const float fx = mu * (0.5f * (pxp - pxm));
    const float fy = mu * (0.5f * (pyp - pym));
    const float fz = mu * (0.5f * (pzp - pzm));

    float* fp = pops + c.index;
    float f[19];
#pragma unroll
    for (int q = 0; q < 19; q++)
    {
        f[q] = fp[q * c.cells];
    }
    float rho = f[0];
#pragma unroll
    for (int q = 1; q < 19; q++)
    {
        rho = rho + f[q];
    }
    const float jx = (((f[1] - f[2]) + (f[7] - f[8])) + ((f[9] - f[10]) + (f[11] - f[12]))) + (f[13] - f[14]);
    const float jy = (((f[3] - f[4]) + (f[7] - f[8])) + ((f[10] - f[9]) + (f[15] - f[16]))) + (f[17] - f[18]);
    const float jz = (((f[5] - f[6]) + (f[11] - f[12])) + ((f[14] - f[13]) + (f[15] - f[16]))) + (f[18] - f[17]);
    const float ux = (jx + 0.5f * fx) / rho;
    const float uy = (jy + 0.5f * fy) / rho;
    const float uz = (jz + 0.5f * fz) / rho;
    const float usq = ux * ux + uy * uy + uz * uz;
    const float uf = ux * fx + uy * fy + uz * fz;
    float feqMoving = 0.0f;
    float sourceMoving = 0.0f;
#pragma unroll
    for (int q = 1; q < 19; q++)
    {
        const float w = q < 7 ? 1.0f / 18.0f : 1.0f / 36.0f;
        const float cu = CX[q] * ux + CY[q] * uy + CZ[q] * uz;
        const float cf = CX[q] * fx + CY[q] * fy + CZ[q] * fz;
        const float feq = w * rho * (1.0f + 3.0f * cu + 4.5f * cu * cu - 1.5f * usq);
        const float source = w * (3.0f * (cf - uf) + 9.0f * cu * cf);
        feqMoving = feqMoving + feq;
        sourceMoving = sourceMoving + source;
        fp[q * c.cells] = f[q] - omegaF * (f[q] - feq) + forcing * source;
    }
    // The rest population takes what the moving ones leave, so that the collision conserves mass to round-off
    // whatever the float weights add up to (1/3 + 6/18 + 12/36 in floats is 1 + 3e-8: a drift every step).
    fp[0] = f[0] - omegaF * (f[0] - (rho - feqMoving)) - forcing * sourceMoving;

    float* gp = pops + LBM_G * c.cells + c.index;
    const float gm = gamma * mu;
    const float g0 = gp[0];
    gp[0] = g0 - omegaG * (g0 - (p - 3.0f * gm));
#pragma unroll
    for (int q = 1; q < 7; q++)
    {
        const float cu = CX[q] * ux + CY[q] * uy + CZ[q] * uz;
        const float geq = 0.5f * (gm + p * cu);
        const float g = gp[q * c.cells];
        gp[q * c.cells] = g - omegaG * (g - geq);
    }
}

// (5) streaming by push: every population of an interior cell moves to the neighbour it points at, ghost cells
// included; what lands in the ghost layer is what the exchange (6) sends on.
extern "C" __global__ void lbm_stream(const float* __restrict__ src, float* __restrict__ dst, int nx, int ny, int nz)
{
    Cell c;
    if (!cellOf(threadIndex(), nx, ny, nz, 0, &c))
    {
        return;
    }
#pragma unroll
    for (int q = 0; q < 19; q++)
    {
        const long long to = c.index + CX[q] + CY[q] * c.stride + CZ[q] * c.plane;
        dst[q * c.cells + to] = src[q * c.cells + c.index];
    }
#pragma unroll
    for (int q = 0; q < 7; q++)
    {
        const long long to = c.index + CX[q] + CY[q] * c.stride + CZ[q] * c.plane;
        dst[(LBM_G + q) * c.cells + to] = src[(LBM_G + q) * c.cells + c.index];
    }
}

struct Box
{
    long long field;   // element of the box's element e in component 0 of the field
    long long offset;  // element offset of the component of element e
};

__device__ __forceinline__ int componentOf(int q, int c0, int c1, int c2, int c3, int c4)
{
    return q == 0 ? c0 : q == 1 ? c1 : q == 2 ? c2 : q == 3 ? c3 : c4;
}

// Element e of a box of ni x nj x nk cells at (i0, j0, k0) in up to five components, component-major then x fastest.
__device__ __forceinline__ bool boxElement(long long e, int nx, int ny, int nz, int i0, int ni, int j0, int nj, int k0,
    int nk, int count, int c0, int c1, int c2, int c3, int c4, Box* box)
{
    const long long boxCells = (long long)ni * nj * nk;
    if (e >= boxCells * count)
    {
        return false;
    }
    const int q = (int)(e / boxCells);
    const long long r = e % boxCells;
    const long long stride = nx + 2;
    const long long plane = stride * (ny + 2);
    const long long i = i0 + r % ni;
    const long long j = j0 + (r / ni) % nj;
    const long long k = k0 + r / ((long long)ni * nj);
    box->field = (k * plane + j * stride) + i;
    box->offset = componentOf(q, c0, c1, c2, c3, c4) * plane * (nz + 2);
    return true;
}

// Hand-written pack of a face box into a contiguous buffer (the Default and Contig variants).
extern "C" __global__ void lbm_pack(const float* __restrict__ field, float* __restrict__ buffer, int nx, int ny,
    int nz, int i0, int ni, int j0, int nj, int k0, int nk, int count, int c0, int c1, int c2, int c3, int c4)
{
    const long long e = threadIndex();
    Box box;
    if (boxElement(e, nx, ny, nz, i0, ni, j0, nj, k0, nk, count, c0, c1, c2, c3, c4, &box))
    {
        buffer[e] = field[box.offset + box.field];
    }
}

// Hand-written unpack of a contiguous buffer into a face box, the inverse of lbm_pack.
extern "C" __global__ void lbm_unpack(float* __restrict__ field, const float* __restrict__ buffer, int nx, int ny,
    int nz, int i0, int ni, int j0, int nj, int k0, int nk, int count, int c0, int c1, int c2, int c3, int c4)
{
    const long long e = threadIndex();
    Box box;
    if (boxElement(e, nx, ny, nz, i0, ni, j0, nj, k0, nk, count, c0, c1, c2, c3, c4, &box))
    {
        field[box.offset + box.field] = buffer[e];
    }
}

// Pack and unpack kernels for derived datatypes, over the compiled form of io.stagecoach.protocol.datatype.
//
// Every kernel takes one argument, PackArgs, by value; its layout is mirrored byte for byte by
// io.stagecoach.device.cuda.KernelPlan#writeArguments. A thread moves units of UNIT bytes (1, 2, 4, 8 or 16): the
// host picks the largest unit dividing every offset, stride, run length, both base addresses and the byte range.
//
// nd kernels: the datatype is a run of contiguous bytes repeated over up to three dimensions (VECTOR of BLOCK is the
// paper's 2D copy, VECTOR of VECTOR of BLOCK a 3D subarray face; the count of instances is one more dimension).
// Packed unit P splits by mixed radix into (column, k1, k2, k3); the divisions use multiply-high by precomputed
// magic numbers (Granlund-Montgomery) on 32-bit indices, or plain 64-bit division for streams of 2^32 units or more.
// Each thread moves ILP units, all loads before all stores, consecutive threads on consecutive packed units.
//
// tree kernels: any other datatype; each unit descends the node tree (BLOCK / VECTOR / SEQUENCE) from the root.
//
// copy kernels (pack and unpack fused): packed unit P of one layout goes straight to packed unit P of another, with no
// packed bytes in between; CopyArgs, mirrored by io.stagecoach.device.cuda.CopyPlan#writeArguments, holds one Layout
// per side. nd form where both layouts are nd: P splits by the source's mixed radix into the source's address and by
// the destination's into the destination's, each side padded to three dimensions outside its run with dimensions of
// count 1 inside (a division by one costs three instructions; a kernel per pair of dimension counts would make nine
// times as many kernels); ILP units per thread, loads before stores, as the nd pack. Where one layout is nd and the
// other not: one unit per thread, the nd side by its mixed radix (32-bit indices), the other by descent of its tree.
// Tree form where neither is nd, or the nd side needs 64-bit indices: each unit descends both trees. The unit divides
// every offset, stride and run of both layouts, both base addresses and the byte range.
//
// Completion signal (optional, signal != 0): the signal word is a word of an event's slot in mapped pinned host memory
// that counts the kernels that signalled it; the count itself lives in device memory beside a block counter. Every
// thread fences its writes (device-wide, or system-wide when bit 0 of signal says a buffer is host memory); each
// block counts itself done; the last block resets the block counter for the next launch, increments the count and
// stores it into the signal word. The host polls the slot with a plain
// load: the kernel itself tells the host it is done, with no event record call and no driver call per poll.

#define SC_THREADS 256
#define SC_ILP 4

struct FastDiv
{
    unsigned int multiplier;
    unsigned int shift;
};

struct PackArgs
{
    unsigned long long typed;   //   0: typed buffer address, plus the constant displacement for nd kernels
    unsigned long long packed;  //   8: address of the first packed byte of the range
    unsigned long long code;    //  16: device copy of the node code (tree kernels)
    long long first;            //  24: nd: first packed unit of the range; tree: first packed byte
    long long units;            //  32: units to move
    long long size;             //  40: tree: packed bytes of one instance
    long long extent;           //  48: tree: extent of one instance
    long long stride1;          //  56: nd: byte stride of dimension 1 (just outside the run)
    long long stride2;          //  64
    long long stride3;          //  72
    long long run;              //  80: nd: units in one contiguous run
    long long n1;               //  88: nd: size of dimension 1
    long long n2;               //  96: nd: size of dimension 2
    FastDiv divRun;             // 104
    FastDiv divN1;              // 112
    FastDiv divN2;              // 120
    unsigned long long signal;  // 128: device address of the completion word, 0 for none; bit 0 set: fence system-wide
    unsigned long long blocksDone; // 136: device address of 16 bytes: block counter (u32 at 0), count (u64 at 8)
    long long ilp;              // 144: nd: units per thread, 1 to SC_ILP (1 spreads a small range over more blocks)
};                              // 152 bytes

template <int UNIT> struct UnitType;
template <> struct UnitType<1> { typedef unsigned char T; };
template <> struct UnitType<2> { typedef unsigned short T; };
template <> struct UnitType<4> { typedef unsigned int T; };
template <> struct UnitType<8> { typedef unsigned long long T; };
template <> struct UnitType<16> { typedef uint4 T; };

__device__ __forceinline__ unsigned int fastDivide(unsigned int n, FastDiv d)
{
    const unsigned int high = __umulhi(n, d.multiplier);
    return (unsigned int)(((unsigned long long)high + n) >> d.shift);
}

struct Layout                   // one side of a copy between two layouts
{
    unsigned long long base;    //   0: nd: buffer address plus the constant displacement; tree: buffer address
    unsigned long long code;    //   8: tree: device copy of the node code
    long long size;             //  16: tree: packed bytes of one instance
    long long extent;           //  24: tree: extent of one instance
    long long stride1;          //  32: nd: byte stride of dimension 1 (just outside the run), 0 where padded
    long long stride2;          //  40
    long long stride3;          //  48
    long long run;              //  56: nd: units in one contiguous run
    long long n1;               //  64: nd: size of dimension 1, 1 where padded
    long long n2;               //  72: nd: size of dimension 2, 1 where padded
    FastDiv divRun;             //  80
    FastDiv divN1;              //  88
    FastDiv divN2;              //  96
};                              // 104 bytes

struct CopyArgs
{
    Layout src;                 //   0
    Layout dst;                 // 104
    long long first;            // 208: nd and mixed: first packed unit of the range; tree: first packed byte
    long long units;            // 216: units to move
    unsigned long long signal;  // 224: as PackArgs
    unsigned long long blocksDone; // 232: as PackArgs
    long long ilp;              // 240: nd: units per thread, 1 to SC_ILP
};                              // 248 bytes

__device__ __forceinline__ void signalCompletion(const unsigned long long signal, const unsigned long long blocksDone)
{
    if (signal == 0)
    {
        return;
    }
    if (signal & 1ull)
    {
        __threadfence_system();
    }
    else
    {
        __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0)
    {
        const unsigned int done = atomicAdd((unsigned int*)blocksDone, 1u);
        if (done == gridDim.x - 1)
        {
            volatile unsigned long long* const count = (volatile unsigned long long*)(blocksDone + 8);
            const unsigned long long completed = *count + 1ull;
            *count = completed;
            *(volatile unsigned int*)blocksDone = 0u;
            __threadfence_system();
            *(volatile unsigned long long*)(signal & ~1ull) = completed;
        }
    }
}

// Byte offset from the typed address of packed unit p, 32-bit indices (A: PackArgs or Layout).
template <int UNIT, int DIMS, typename A>
__device__ __forceinline__ long long ndOffsetNarrow(const A& a, unsigned int p)
{
    const unsigned int q0 = fastDivide(p, a.divRun);
    const long long column = (long long)(p - q0 * (unsigned int)a.run) * UNIT;
    if (DIMS == 1)
    {
        return column + (long long)q0 * a.stride1;
    }
    const unsigned int q1 = fastDivide(q0, a.divN1);
    const unsigned int k1 = q0 - q1 * (unsigned int)a.n1;
    if (DIMS == 2)
    {
        return column + (long long)k1 * a.stride1 + (long long)q1 * a.stride2;
    }
    const unsigned int q2 = fastDivide(q1, a.divN2);
    const unsigned int k2 = q1 - q2 * (unsigned int)a.n2;
    return column + (long long)k1 * a.stride1 + (long long)k2 * a.stride2 + (long long)q2 * a.stride3;
}

// Byte offset from the typed address of packed unit p, 64-bit indices (A: PackArgs or Layout).
template <int UNIT, int DIMS, typename A>
__device__ __forceinline__ long long ndOffsetWide(const A& a, unsigned long long p)
{
    const unsigned long long q0 = p / (unsigned long long)a.run;
    const long long column = (long long)(p - q0 * (unsigned long long)a.run) * UNIT;
    if (DIMS == 1)
    {
        return column + (long long)q0 * a.stride1;
    }
    const unsigned long long q1 = q0 / (unsigned long long)a.n1;
    const long long k1 = (long long)(q0 - q1 * (unsigned long long)a.n1);
    if (DIMS == 2)
    {
        return column + k1 * a.stride1 + (long long)q1 * a.stride2;
    }
    const unsigned long long q2 = q1 / (unsigned long long)a.n2;
    const long long k2 = (long long)(q1 - q2 * (unsigned long long)a.n2);
    return column + k1 * a.stride1 + k2 * a.stride2 + (long long)q2 * a.stride3;
}

template <int UNIT, int DIMS, bool WIDE, bool PACK>
__device__ __forceinline__ void ndMove(const PackArgs& a)
{
    typedef typename UnitType<UNIT>::T T;
    char* const typed = (char*)a.typed;
    T* const packed = (T*)a.packed;
    const int ilp = (int)a.ilp;
    const long long base = (long long)blockIdx.x * (SC_THREADS * ilp) + threadIdx.x;
    long long offsets[SC_ILP];
    T values[SC_ILP];
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (k < ilp && t < a.units)
        {
            offsets[k] = WIDE ? ndOffsetWide<UNIT, DIMS, PackArgs>(a, (unsigned long long)(a.first + t))
                              : ndOffsetNarrow<UNIT, DIMS, PackArgs>(a, (unsigned int)(a.first + t));
        }
    }
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (k < ilp && t < a.units)
        {
            values[k] = PACK ? *(const T*)(typed + offsets[k]) : packed[t];
        }
    }
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (k < ilp && t < a.units)
        {
            if (PACK)
            {
                packed[t] = values[k];
            }
            else
            {
                *(T*)(typed + offsets[k]) = values[k];
            }
        }
    }
    signalCompletion(a.signal, a.blocksDone);
}

// Byte offset from the typed address of packed byte p, by descent of the node tree at codeAddress.
__device__ __forceinline__ long long treeOffset(
    const unsigned long long codeAddress, const long long size, const long long extent, long long p)
{
    const long long* const code = (const long long*)codeAddress;
    const long long instance = p / size;
    p -= instance * size;
    long long address = instance * extent;
    int node = 0;
    while (true)
    {
        const long long* const n = code + node * 6;
        const long long kind = __ldg(n);
        address += __ldg(n + 1);
        if (kind == 0)
        {
            return address + p;
        }
        if (kind == 1)
        {
            const int child = (int)__ldg(n + 5);
            const long long childBytes = __ldg(code + child * 6 + 2);
            const long long k = p / childBytes;
            p -= k * childBytes;
            address += k * __ldg(n + 4);
            node = child;
        }
        else
        {
            const long long* const table = code + __ldg(n + 4);
            int low = 0;
            int high = (int)__ldg(n + 3) - 1;
            while (low < high)
            {
                const int mid = (low + high + 1) >> 1;
                if (__ldg(table + 2 * mid + 1) <= p)
                {
                    low = mid;
                }
                else
                {
                    high = mid - 1;
                }
            }
            p -= __ldg(table + 2 * low + 1);
            node = (int)__ldg(table + 2 * low);
        }
    }
}

template <int UNIT, bool PACK>
__device__ __forceinline__ void treeMove(const PackArgs& a)
{
    typedef typename UnitType<UNIT>::T T;
    const long long t = (long long)blockIdx.x * SC_THREADS + threadIdx.x;
    if (t < a.units)
    {
        T* const typed = (T*)((char*)a.typed + treeOffset(a.code, a.size, a.extent, a.first + t * UNIT));
        T* const packed = (T*)a.packed + t;
        if (PACK)
        {
            *packed = *typed;
        }
        else
        {
            *typed = *packed;
        }
    }
    signalCompletion(a.signal, a.blocksDone);
}

template <int UNIT, bool WIDE>
__device__ __forceinline__ void ndCopy(const CopyArgs& a)
{
    typedef typename UnitType<UNIT>::T T;
    const char* const src = (const char*)a.src.base;
    char* const dst = (char*)a.dst.base;
    const int ilp = (int)a.ilp;
    const long long base = (long long)blockIdx.x * (SC_THREADS * ilp) + threadIdx.x;
    long long from[SC_ILP];
    long long to[SC_ILP];
    T values[SC_ILP];
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (k < ilp && t < a.units)
        {
            if (WIDE)
            {
                from[k] = ndOffsetWide<UNIT, 3, Layout>(a.src, (unsigned long long)(a.first + t));
                to[k] = ndOffsetWide<UNIT, 3, Layout>(a.dst, (unsigned long long)(a.first + t));
            }
            else
            {
                from[k] = ndOffsetNarrow<UNIT, 3, Layout>(a.src, (unsigned int)(a.first + t));
                to[k] = ndOffsetNarrow<UNIT, 3, Layout>(a.dst, (unsigned int)(a.first + t));
            }
        }
    }
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (k < ilp && t < a.units)
        {
            values[k] = *(const T*)(src + from[k]);
        }
    }
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (k < ilp && t < a.units)
        {
            *(T*)(dst + to[k]) = values[k];
        }
    }
    signalCompletion(a.signal, a.blocksDone);
}

template <int UNIT>
__device__ __forceinline__ void treeCopy(const CopyArgs& a)
{
    typedef typename UnitType<UNIT>::T T;
    const long long t = (long long)blockIdx.x * SC_THREADS + threadIdx.x;
    if (t < a.units)
    {
        const long long p = a.first + t * UNIT;
        const T* const from = (const T*)((const char*)a.src.base + treeOffset(a.src.code, a.src.size, a.src.extent, p));
        T* const to = (T*)((char*)a.dst.base + treeOffset(a.dst.code, a.dst.size, a.dst.extent, p));
        *to = *from;
    }
    signalCompletion(a.signal, a.blocksDone);
}

#define SC_ND(UNIT, DIMS, WIDE, WIDE_NAME)                                                                             \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_pack_nd##DIMS##WIDE_NAME##_u##UNIT(const PackArgs a) { ndMove<UNIT, DIMS, WIDE, true>(a); }                 \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_unpack_nd##DIMS##WIDE_NAME##_u##UNIT(const PackArgs a) { ndMove<UNIT, DIMS, WIDE, false>(a); }

#define SC_TREE(UNIT)                                                                                                  \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_pack_tree_u##UNIT(const PackArgs a) { treeMove<UNIT, true>(a); }                                           \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_unpack_tree_u##UNIT(const PackArgs a) { treeMove<UNIT, false>(a); }

// One unit per thread: the tree side (the source where SRC_TREE, else the destination) by descent of its node tree, the
// other by its mixed radix with 32-bit indices.
template <int UNIT, bool SRC_TREE>
__device__ __forceinline__ void mixedCopy(const CopyArgs& a)
{
    typedef typename UnitType<UNIT>::T T;
    const long long t = (long long)blockIdx.x * SC_THREADS + threadIdx.x;
    if (t < a.units)
    {
        const long long p = a.first + t;
        const Layout& tree = SRC_TREE ? a.src : a.dst;
        const Layout& nd = SRC_TREE ? a.dst : a.src;
        const long long treeAt = treeOffset(tree.code, tree.size, tree.extent, p * UNIT);
        const long long ndAt = ndOffsetNarrow<UNIT, 3, Layout>(nd, (unsigned int)p);
        const T* const from = (const T*)((const char*)a.src.base + (SRC_TREE ? treeAt : ndAt));
        T* const to = (T*)((char*)a.dst.base + (SRC_TREE ? ndAt : treeAt));
        *to = *from;
    }
    signalCompletion(a.signal, a.blocksDone);
}

#define SC_COPY(UNIT)                                                                                                  \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_copy_nd_u##UNIT(const CopyArgs a) { ndCopy<UNIT, false>(a); }                                               \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_copy_ndw_u##UNIT(const CopyArgs a) { ndCopy<UNIT, true>(a); }                                               \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_copy_tree_u##UNIT(const CopyArgs a) { treeCopy<UNIT>(a); }                                                  \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_copy_treend_u##UNIT(const CopyArgs a) { mixedCopy<UNIT, true>(a); }                                         \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_copy_ndtree_u##UNIT(const CopyArgs a) { mixedCopy<UNIT, false>(a); }

#define SC_UNIT(UNIT)                                                                                                  \
    SC_ND(UNIT, 1, false, )                                                                                            \
    SC_ND(UNIT, 2, false, )                                                                                            \
    SC_ND(UNIT, 3, false, )                                                                                            \
    SC_ND(UNIT, 1, true, w)                                                                                            \
    SC_ND(UNIT, 2, true, w)                                                                                            \
    SC_ND(UNIT, 3, true, w)                                                                                            \
    SC_TREE(UNIT)                                                                                                      \
    SC_COPY(UNIT)

SC_UNIT(1)
SC_UNIT(2)
SC_UNIT(4)
SC_UNIT(8)
SC_UNIT(16)

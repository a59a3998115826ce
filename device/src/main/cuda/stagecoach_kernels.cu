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

__device__ __forceinline__ void signalCompletion(const PackArgs& a)
{
    if (a.signal == 0)
    {
        return;
    }
    if (a.signal & 1ull)
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
        const unsigned int done = atomicAdd((unsigned int*)a.blocksDone, 1u);
        if (done == gridDim.x - 1)
        {
            volatile unsigned long long* const count = (volatile unsigned long long*)(a.blocksDone + 8);
            const unsigned long long completed = *count + 1ull;
            *count = completed;
            *(volatile unsigned int*)a.blocksDone = 0u;
            __threadfence_system();
            *(volatile unsigned long long*)(a.signal & ~1ull) = completed;
        }
    }
}

// Byte offset from a.typed of packed unit p, 32-bit indices.
template <int UNIT, int DIMS>
__device__ __forceinline__ long long ndOffsetNarrow(const PackArgs& a, unsigned int p)
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

// Byte offset from a.typed of packed unit p, 64-bit indices.
template <int UNIT, int DIMS>
__device__ __forceinline__ long long ndOffsetWide(const PackArgs& a, unsigned long long p)
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
            offsets[k] = WIDE ? ndOffsetWide<UNIT, DIMS>(a, (unsigned long long)(a.first + t))
                              : ndOffsetNarrow<UNIT, DIMS>(a, (unsigned int)(a.first + t));
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
    signalCompletion(a);
}

// Byte offset from a.typed of packed byte p, by descent of the node tree.
__device__ __forceinline__ long long treeOffset(const PackArgs& a, long long p)
{
    const long long* const code = (const long long*)a.code;
    const long long instance = p / a.size;
    p -= instance * a.size;
    long long address = instance * a.extent;
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
        T* const typed = (T*)((char*)a.typed + treeOffset(a, a.first + t * UNIT));
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
    signalCompletion(a);
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

#define SC_UNIT(UNIT)                                                                                                  \
    SC_ND(UNIT, 1, false, )                                                                                            \
    SC_ND(UNIT, 2, false, )                                                                                            \
    SC_ND(UNIT, 3, false, )                                                                                            \
    SC_ND(UNIT, 1, true, w)                                                                                            \
    SC_ND(UNIT, 2, true, w)                                                                                            \
    SC_ND(UNIT, 3, true, w)                                                                                            \
    SC_TREE(UNIT)

SC_UNIT(1)
SC_UNIT(2)
SC_UNIT(4)
SC_UNIT(8)
SC_UNIT(16)

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
};                              // 144 bytes

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

// Block `block` of a launch moves packed units [block * SC_THREADS * SC_ILP, (block + 1) * SC_THREADS * SC_ILP).
template <int UNIT, int DIMS, bool WIDE, bool PACK>
__device__ __forceinline__ void ndMove(const PackArgs& a, const long long block)
{
    typedef typename UnitType<UNIT>::T T;
    char* const typed = (char*)a.typed;
    T* const packed = (T*)a.packed;
    const long long base = block * (SC_THREADS * SC_ILP) + threadIdx.x;
    long long offsets[SC_ILP];
    T values[SC_ILP];
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (t < a.units)
        {
            offsets[k] = WIDE ? ndOffsetWide<UNIT, DIMS>(a, (unsigned long long)(a.first + t))
                              : ndOffsetNarrow<UNIT, DIMS>(a, (unsigned int)(a.first + t));
        }
    }
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (t < a.units)
        {
            values[k] = PACK ? *(const T*)(typed + offsets[k]) : packed[t];
        }
    }
#pragma unroll
    for (int k = 0; k < SC_ILP; k++)
    {
        const long long t = base + k * SC_THREADS;
        if (t < a.units)
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

// Block `block` of a launch moves packed units [block * SC_THREADS, (block + 1) * SC_THREADS).
template <int UNIT, bool PACK>
__device__ __forceinline__ void treeMove(const PackArgs& a, const long long block)
{
    typedef typename UnitType<UNIT>::T T;
    const long long t = block * SC_THREADS + threadIdx.x;
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
}

#define SC_ND(UNIT, DIMS, WIDE, WIDE_NAME)                                                                             \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_pack_nd##DIMS##WIDE_NAME##_u##UNIT(const PackArgs a)                                                       \
    {                                                                                                                  \
        ndMove<UNIT, DIMS, WIDE, true>(a, blockIdx.x);                                                                 \
        signalCompletion(a);                                                                                           \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_unpack_nd##DIMS##WIDE_NAME##_u##UNIT(const PackArgs a)                                                     \
    {                                                                                                                  \
        ndMove<UNIT, DIMS, WIDE, false>(a, blockIdx.x);                                                                \
        signalCompletion(a);                                                                                           \
    }

#define SC_TREE(UNIT)                                                                                                  \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_pack_tree_u##UNIT(const PackArgs a)                                                                         \
    {                                                                                                                  \
        treeMove<UNIT, true>(a, blockIdx.x);                                                                           \
        signalCompletion(a);                                                                                           \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(SC_THREADS)                                                           \
        sc_unpack_tree_u##UNIT(const PackArgs a)                                                                       \
    {                                                                                                                  \
        treeMove<UNIT, false>(a, blockIdx.x);                                                                          \
        signalCompletion(a);                                                                                           \
    }

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

// Resident pack kernel (opt-in, one per stream): launched once with one block per multiprocessor, it stays on the GPU
// and takes jobs through a doorbell, a word of mapped pinned host memory that the host writes with a plain store:
// (sequence << 48) | device address of a ResidentJob, which the host uploaded once per cached launch. Every block polls
// the doorbell (or, with a mirror, block 0 alone, one poller per warp with staggered starts, relaying the word to the
// other blocks through device memory); on a new word each block moves its share of the job's blocks, fences, and
// counts itself done; the last block resets the counter, signals the job's event as the launched kernels do, and
// stores the count of jobs done into a second host word, which streams wait on. The host submits a job only once the
// previous one is done, so jobs never overlap. Address 1 in the doorbell stops the kernel: the last block to leave
// stores the launch's epoch into a third host word.

#define SC_RESIDENT_EXIT 1ull
#define SC_RESIDENT_ADDRESS_MASK 0xFFFFFFFFFFFFull
#define SC_RESIDENT_HOT_POLLS 4096
#define SC_RESIDENT_STAGGER_NS 128

struct ResidentArgs
{
    unsigned long long doorbell; //  0: mapped host word written by the host: (sequence << 48) | job address
    unsigned long long done;     //  8: mapped host word: jobs completed, stored by the last block of each job
    unsigned long long exited;   // 16: mapped host word: the epoch, stored by the last block to leave
    unsigned long long counter;  // 24: device u32: blocks finished with the current job (or leaving)
    unsigned long long mirror;   // 32: device u64 where block 0 relays the doorbell to the other blocks; 0: all poll
    unsigned long long seen;     // 40: doorbell word at launch (not a job)
    unsigned long long jobs;     // 48: jobs completed before this launch
    unsigned long long epoch;    // 56: launches so far, this one included
};                               // 64 bytes

struct ResidentJob
{
    PackArgs args;               //   0
    unsigned int kernel;         // 144: bit 0 pack; bits 1-2 dimensions of an nd kernel, 0 for the tree kernel;
                                 //      bits 3-5 log2 of the unit
    unsigned int blocks;         // 148: blocks of the equivalent launch
    unsigned long long reserved; // 152
};                               // 160 bytes

__device__ __forceinline__ unsigned long long loadAcquireSystem(const unsigned long long address)
{
    unsigned long long value;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(value) : "l"(address) : "memory");
    return value;
}

__device__ __forceinline__ unsigned long long loadAcquireDevice(const unsigned long long address)
{
    unsigned long long value;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(value) : "l"(address) : "memory");
    return value;
}

__device__ __forceinline__ void storeReleaseDevice(const unsigned long long address, const unsigned long long value)
{
    asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(address), "l"(value) : "memory");
}

// Thread 0 of a block: the next doorbell word different from `last`, tight polling at first, then with pauses. With a
// mirror, blocks other than 0 poll the mirror in device memory.
__device__ __forceinline__ unsigned long long awaitDoorbell(const ResidentArgs& r, const unsigned long long last)
{
    const bool relayed = r.mirror != 0;
    const unsigned long long address = relayed ? r.mirror : r.doorbell;
    unsigned int polls = 0;
    unsigned long long word;
    while (true)
    {
        word = relayed ? loadAcquireDevice(address) : loadAcquireSystem(address);
        if (word != last)
        {
            return word;
        }
        if (polls < SC_RESIDENT_HOT_POLLS)
        {
            polls++;
        }
        else
        {
            __nanosleep(1000);
        }
    }
}

// Lane 0 of every warp of block 0, with a mirror: the warps poll the doorbell in host memory with staggered starts, so
// that a read reaches the host every SC_RESIDENT_STAGGER_NS or so instead of once per PCIe round trip; the first to
// see a new word relays it to the mirror and to the block through `word` in shared memory.
__device__ __forceinline__ void leaderPoll(const ResidentArgs& r, const unsigned long long last,
    volatile unsigned long long* const word)
{
    __nanosleep((threadIdx.x >> 5) * SC_RESIDENT_STAGGER_NS);
    unsigned int polls = 0;
    while (*word == last)
    {
        const unsigned long long value = loadAcquireSystem(r.doorbell);
        if (value != last)
        {
            storeReleaseDevice(r.mirror, value);
            *word = value;
            return;
        }
        if (polls < SC_RESIDENT_HOT_POLLS)
        {
            polls++;
        }
        else
        {
            __nanosleep(1000);
        }
    }
}

template <int UNIT, bool PACK>
__device__ __forceinline__ void residentMoveUnit(const PackArgs& a, const unsigned int dims, const long long block)
{
    switch (dims)
    {
        case 1: ndMove<UNIT, 1, false, PACK>(a, block); break;
        case 2: ndMove<UNIT, 2, false, PACK>(a, block); break;
        case 3: ndMove<UNIT, 3, false, PACK>(a, block); break;
        default: treeMove<UNIT, PACK>(a, block); break;
    }
}

template <bool PACK>
__device__ __forceinline__ void residentMove(const PackArgs& a, const unsigned int kernel, const long long block)
{
    const unsigned int dims = (kernel >> 1) & 3u;
    switch (kernel >> 3)
    {
        case 0: residentMoveUnit<1, PACK>(a, dims, block); break;
        case 1: residentMoveUnit<2, PACK>(a, dims, block); break;
        case 2: residentMoveUnit<4, PACK>(a, dims, block); break;
        case 3: residentMoveUnit<8, PACK>(a, dims, block); break;
        default: residentMoveUnit<16, PACK>(a, dims, block); break;
    }
}

__device__ __forceinline__ void residentComplete(const PackArgs& a, const ResidentArgs& r,
    const unsigned long long jobs)
{
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
        const unsigned int finished = atomicAdd((unsigned int*)r.counter, 1u);
        if (finished == gridDim.x - 1)
        {
            *(volatile unsigned int*)r.counter = 0u;
            unsigned long long completed = 0;
            if (a.signal != 0)
            {
                volatile unsigned long long* const count = (volatile unsigned long long*)(a.blocksDone + 8);
                completed = *count + 1ull;
                *count = completed;
            }
            __threadfence_system();
            if (a.signal != 0)
            {
                *(volatile unsigned long long*)(a.signal & ~1ull) = completed;
            }
            *(volatile unsigned long long*)r.done = jobs;
        }
    }
}

__device__ __forceinline__ void residentLeave(const ResidentArgs& r)
{
    if (threadIdx.x == 0)
    {
        const unsigned int left = atomicAdd((unsigned int*)r.counter, 1u);
        if (left == gridDim.x - 1)
        {
            *(volatile unsigned int*)r.counter = 0u;
            __threadfence_system();
            *(volatile unsigned long long*)r.exited = r.epoch;
        }
    }
}

extern "C" __global__ void __launch_bounds__(SC_THREADS) sc_resident(const ResidentArgs r)
{
    __shared__ unsigned long long word;
    __shared__ union
    {
        ResidentJob job;
        unsigned long long words[sizeof(ResidentJob) / 8];
    } shared;
    unsigned long long last = r.seen;
    unsigned long long jobs = r.jobs;
    const bool leader = r.mirror != 0 && blockIdx.x == 0;
    if (threadIdx.x == 0)
    {
        word = last;
    }
    __syncthreads();
    while (true)
    {
        if (leader)
        {
            if ((threadIdx.x & 31) == 0)
            {
                leaderPoll(r, last, &word);
            }
        }
        else if (threadIdx.x == 0)
        {
            word = awaitDoorbell(r, last);
        }
        __syncthreads();
        last = word;
        const unsigned long long job = last & SC_RESIDENT_ADDRESS_MASK;
        if (job == SC_RESIDENT_EXIT)
        {
            residentLeave(r);
            return;
        }
        if (threadIdx.x < sizeof(ResidentJob) / 8)
        {
            shared.words[threadIdx.x] = __ldcg((const unsigned long long*)job + threadIdx.x);
        }
        __syncthreads();
        const PackArgs& a = shared.job.args;
        const unsigned int kernel = shared.job.kernel;
        const long long blocks = shared.job.blocks;
        for (long long block = blockIdx.x; block < blocks; block += gridDim.x)
        {
            if (kernel & 1u)
            {
                residentMove<true>(a, kernel, block);
            }
            else
            {
                residentMove<false>(a, kernel, block);
            }
        }
        jobs++;
        residentComplete(a, r, jobs);
    }
}

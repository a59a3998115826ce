/*
 * The floor of a two-copy transfer of a halo Y face between two cores through shared memory.
 *
 * What Open MPI's shared-memory path and Stagecoach's shared arena both do with a non-contiguous face, reduced
 * to plain C with no library: a writer thread packs the face (NZ rows of NX floats, NX*NY floats apart) into a
 * buffer in chunks, publishing the bytes packed so far with a release store after each chunk; a reader thread on
 * another core unpacks each chunk into its own grid as the count passes it. The figure is the time from the start
 * of the pack to the end of the unpack. Beside it, the same pack and unpack on one thread, with nothing crossing
 * cores. Both grids are n^3 floats, x fastest, the face that of plane n-2 (sent) and plane 0 (received).
 *
 * Usage: face_handoff [--grid 256] [--chunk 8192] [--iterations 2000] [--cpus WRITER,READER]
 * Output: one line per measure: name, then the 25th, 50th and 75th percentiles in microseconds of the last
 * three quarters of the iterations (the first quarter warms caches and page tables).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK_ROWS 16

typedef struct
{
    long grid;
    long chunk_bytes;
    long iterations;
    int writer_cpu;
    int reader_cpu;
} options;

typedef struct
{
    const options *opts;
    char *sent_grid;
    char *received_grid;
    char *shared;
    long row_bytes;
    long row_stride;
    long face_bytes;
    _Atomic long packed;
    _Atomic long started;
    _Atomic long finished;
    int direct;
    char *chunk;
} handoff;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void pin(int cpu)
{
    if (cpu < 0)
    {
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
    {
        fprintf(stderr, "face_handoff: cannot run on cpu %d\n", cpu);
        exit(2);
    }
}

static void pack(const handoff *h, long from, long to)
{
    const char *plane = h->sent_grid + (h->opts->grid - 2) * h->row_bytes;
    for (long offset = from; offset < to; offset += h->row_bytes)
    {
        memcpy(h->shared + offset, plane + (offset / h->row_bytes) * h->row_stride, (size_t)h->row_bytes);
    }
}

static void unpack(const handoff *h, long from, long to)
{
    for (long offset = from; offset < to; offset += h->row_bytes)
    {
        memcpy(h->received_grid + (offset / h->row_bytes) * h->row_stride, h->shared + offset,
            (size_t)h->row_bytes);
    }
}

static void *reader(void *arg)
{
    handoff *h = arg;
    pin(h->opts->reader_cpu);
    for (long i = 1; i <= h->opts->iterations; i++)
    {
        while (atomic_load_explicit(&h->started, memory_order_acquire) != i)
        {
        }
        long done = 0;
        if (h->direct)
        {
            const char *plane = h->sent_grid + (h->opts->grid - 2) * h->row_bytes;
            const long chunk_rows = CHUNK_ROWS;
            for (long row = 0; row < h->opts->grid; row += chunk_rows)
            {
                const long rows = row + chunk_rows < h->opts->grid ? chunk_rows : h->opts->grid - row;
                for (long r = 0; r < rows; r++)
                {
                    memcpy(h->chunk + r * h->row_bytes, plane + (row + r) * h->row_stride, (size_t)h->row_bytes);
                }
                for (long r = 0; r < rows; r++)
                {
                    memcpy(h->received_grid + (row + r) * h->row_stride, h->chunk + r * h->row_bytes,
                        (size_t)h->row_bytes);
                }
            }
            done = h->face_bytes;
        }
        while (done < h->face_bytes)
        {
            const long ready = atomic_load_explicit(&h->packed, memory_order_acquire);
            if (ready > done)
            {
                unpack(h, done, ready);
                done = ready;
            }
        }
        atomic_store_explicit(&h->finished, i, memory_order_release);
    }
    return NULL;
}

static int compare(const void *a, const void *b)
{
    const double x = *(const double *)a;
    const double y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *name, double *times, long count)
{
    const long skip = count / 4;
    const long kept = count - skip;
    qsort(times + skip, (size_t)kept, sizeof(double), compare);
    printf("%-40s %9.1f %9.1f %9.1f\n", name, times[skip + kept / 4], times[skip + kept / 2],
        times[skip + kept * 3 / 4]);
}

static long parse_long(const char *name, const char *value, long min, long max)
{
    char *end;
    const long parsed = strtol(value, &end, 10);
    if (*end != '\0' || parsed < min || parsed > max)
    {
        fprintf(stderr, "face_handoff: %s '%s' is not an integer in [%ld, %ld]\n", name, value, min, max);
        exit(2);
    }
    return parsed;
}

static options parse(int argc, char **argv)
{
    options opts = { 256, 8192, 2000, -1, -1 };
    for (int i = 1; i < argc; i += 2)
    {
        if (i + 1 >= argc)
        {
            fprintf(stderr, "face_handoff: option %s needs a value\n", argv[i]);
            exit(2);
        }
        if (strcmp(argv[i], "--grid") == 0)
        {
            opts.grid = parse_long("--grid", argv[i + 1], 4, 1024);
        }
        else if (strcmp(argv[i], "--chunk") == 0)
        {
            opts.chunk_bytes = parse_long("--chunk", argv[i + 1], 1, 1L << 30);
        }
        else if (strcmp(argv[i], "--iterations") == 0)
        {
            opts.iterations = parse_long("--iterations", argv[i + 1], 4, 10000000);
        }
        else if (strcmp(argv[i], "--cpus") == 0)
        {
            if (sscanf(argv[i + 1], "%d,%d", &opts.writer_cpu, &opts.reader_cpu) != 2 || opts.writer_cpu < 0 ||
                opts.reader_cpu < 0)
            {
                fprintf(stderr, "face_handoff: --cpus '%s' is not WRITER,READER (two cpu numbers)\n", argv[i + 1]);
                exit(2);
            }
        }
        else
        {
            fprintf(stderr, "face_handoff: unknown option %s (expected --grid, --chunk, --iterations, "
                "--cpus WRITER,READER)\n", argv[i]);
            exit(2);
        }
    }
    return opts;
}

int main(int argc, char **argv)
{
    const options opts = parse(argc, argv);
    handoff h;
    memset(&h, 0, sizeof(h));
    h.opts = &opts;
    h.row_bytes = opts.grid * (long)sizeof(float);
    h.row_stride = opts.grid * opts.grid * (long)sizeof(float);
    h.face_bytes = opts.grid * h.row_bytes;
    const long chunk = opts.chunk_bytes / h.row_bytes > 0 ? opts.chunk_bytes / h.row_bytes * h.row_bytes :
        h.row_bytes;
    const size_t grid_bytes = (size_t)(opts.grid * h.row_stride);
    h.sent_grid = malloc(grid_bytes);
    h.received_grid = malloc(grid_bytes);
    h.shared = aligned_alloc(4096, (size_t)((h.face_bytes + 4095) / 4096 * 4096));
    h.chunk = malloc((size_t)(CHUNK_ROWS * h.row_bytes));
    double *times = malloc(sizeof(double) * (size_t)opts.iterations);
    double *unpack_times = malloc(sizeof(double) * (size_t)opts.iterations);
    if (h.sent_grid == NULL || h.received_grid == NULL || h.shared == NULL || h.chunk == NULL || times == NULL ||
        unpack_times == NULL)
    {
        fprintf(stderr, "face_handoff: out of memory for two %zu-byte grids\n", grid_bytes);
        return 2;
    }
    memset(h.sent_grid, 1, grid_bytes);
    memset(h.received_grid, 2, grid_bytes);
    memset(h.shared, 0, (size_t)h.face_bytes);
    pin(opts.writer_cpu);

    printf("# Y face of a %ld^3 float grid: %ld rows of %ld B, %ld B apart (%ld B); chunks of %ld B\n", opts.grid,
        opts.grid, h.row_bytes, h.row_stride, h.face_bytes, chunk);
    printf("# cpus: writer %d, reader %d (-1: left to the OS); %ld iterations\n", opts.writer_cpu, opts.reader_cpu,
        opts.iterations);
    printf("%-40s %9s %9s %9s\n", "# measure", "p25 us", "p50 us", "p75 us");

    for (long i = 0; i < opts.iterations; i++)
    {
        const double start = now_us();
        pack(&h, 0, h.face_bytes);
        const double packed = now_us();
        unpack(&h, 0, h.face_bytes);
        times[i] = packed - start;
        unpack_times[i] = now_us() - packed;
    }
    report("pack alone (one thread)", times, opts.iterations);
    report("unpack alone (one thread)", unpack_times, opts.iterations);

    pthread_t thread;
    if (pthread_create(&thread, NULL, reader, &h) != 0)
    {
        fprintf(stderr, "face_handoff: cannot start the reader thread\n");
        return 2;
    }
    for (long i = 1; i <= opts.iterations; i++)
    {
        atomic_store_explicit(&h.packed, 0, memory_order_relaxed);
        const double start = now_us();
        atomic_store_explicit(&h.started, i, memory_order_release);
        for (long offset = 0; offset < h.face_bytes; offset += chunk)
        {
            const long end = offset + chunk < h.face_bytes ? offset + chunk : h.face_bytes;
            pack(&h, offset, end);
            atomic_store_explicit(&h.packed, end, memory_order_release);
        }
        while (atomic_load_explicit(&h.finished, memory_order_acquire) != i)
        {
        }
        times[i - 1] = now_us() - start;
    }
    pthread_join(thread, NULL);
    report("pack, hand over, unpack (two cores)", times, opts.iterations);

    h.direct = 1;
    atomic_store_explicit(&h.started, 0, memory_order_relaxed);
    atomic_store_explicit(&h.finished, 0, memory_order_relaxed);
    if (pthread_create(&thread, NULL, reader, &h) != 0)
    {
        fprintf(stderr, "face_handoff: cannot start the reader thread\n");
        return 2;
    }
    for (long i = 1; i <= opts.iterations; i++)
    {
        const double start = now_us();
        atomic_store_explicit(&h.started, i, memory_order_release);
        while (atomic_load_explicit(&h.finished, memory_order_acquire) != i)
        {
        }
        times[i - 1] = now_us() - start;
    }
    pthread_join(thread, NULL);
    report("reader copies out of the sender's grid", times, opts.iterations);
    return 0;
}

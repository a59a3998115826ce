/*
 * OSU-style point-to-point benchmarks on two MPI ranks: the peer of io.stagecoach.benchmarks.omb (Latency,
 * Bandwidth, BiBandwidth, Halo), with the same loops, iteration counts, window and output format.
 *
 *   latency  ping-pong with MPI_Send/MPI_Recv, one-way time = elapsed / (2 * iterations)
 *   bw       rank 0 posts a window of MPI_Isend, rank 1 a window of MPI_Irecv, then a 4-byte ack
 *   bibw     both ranks post a window of MPI_Irecv and a window of MPI_Isend, then wait for all
 *   halo     ping-pong of one face of an N^3 float array (x fastest) with derived datatypes on both sides,
 *            as a lattice-Boltzmann halo exchange does: rank 0 sends plane N-2 and receives into plane N-1,
 *            rank 1 receives into plane 0 and sends plane 1; one-way time = elapsed / (2 * iterations)
 *              X face (i fixed)  MPI_Type_vector(NY*NZ, 1, NX, MPI_FLOAT)
 *              Y face (j fixed)  MPI_Type_vector(NZ, NX, NX*NY, MPI_FLOAT)
 *              Z face (k fixed)  MPI_Type_contiguous(NX*NY, MPI_FLOAT)
 *
 * Iterations and warm-up follow OMB: 10000 + 100 up to 8 KiB, 1000 + 10 above (latency), 100 + 10 and
 * 20 + 2 windows of 64 (bandwidth); halo 1000 + 10 for faces up to 64 KiB, 200 + 10 above. --iterations and
 * --skip override them. Before the first size, the same untimed warm-up as the Java programs' JIT warm-up runs
 * (--warm-up round trips of 8 B and a hundredth as many of 64 KiB; 0 turns it off), so both sides do the same work. Every size and face is checked once after its timed loop: the received bytes must
 * be the ones sent. Progress goes to stderr.
 *
 * Usage: mpirun -n 2 osu_p2p latency|bw|bibw|halo [--min-size B] [--max-size B] [--iterations N]
 *                              [--skip N] [--window N] [--grids 128,256] [--warm-up N]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GRIDS 8
#define MAX_WINDOW 1024
#define LARGE_MESSAGE_BYTES 8192
#define LARGE_FACE_BYTES 65536
#define ACK_TAG 101
#define FIELD_WIDTH 18
#define WARM_UP_TAG 31000
#define WARM_UP_LARGE_BYTES 65536

typedef struct
{
    const char *test;
    long min_size;
    long max_size;
    long iterations;
    long skip;
    int window;
    int grids[MAX_GRIDS];
    int grid_count;
    long warm_up;
} options;

static int rank;

static void fail(const char *message, const char *value)
{
    fprintf(stderr, "osu_p2p: %s: %s\n", message, value);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static long parse_long(const char *name, const char *text, long min, long max)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*end != '\0' || value < min || value > max)
    {
        char message[160];
        snprintf(message, sizeof(message), "%s must be an integer in [%ld, %ld]", name, min, max);
        fail(message, text);
    }
    return value;
}

static void parse_grids(options *opts, const char *text)
{
    char *copy = strdup(text);
    opts->grid_count = 0;
    for (char *token = strtok(copy, ","); token != NULL; token = strtok(NULL, ","))
    {
        if (opts->grid_count == MAX_GRIDS)
        {
            fail("too many grids, at most 8", text);
        }
        opts->grids[opts->grid_count++] = (int)parse_long("grid edge", token, 4, 1024);
    }
    free(copy);
}

static options parse_options(int argc, char **argv)
{
    options opts = { NULL, 1, 4L << 20, 0, -1, 64, { 128, 256 }, 2, 20000 };
    if (argc < 2)
    {
        fail("usage", "osu_p2p latency|bw|bibw|halo [--min-size B] [--max-size B] [--iterations N] "
            "[--skip N] [--window N] [--grids 128,256] [--warm-up N]");
    }
    opts.test = argv[1];
    if (strcmp(opts.test, "latency") != 0 && strcmp(opts.test, "bw") != 0 && strcmp(opts.test, "bibw") != 0 &&
        strcmp(opts.test, "halo") != 0)
    {
        fail("unknown test, expected latency, bw, bibw or halo", opts.test);
    }
    for (int i = 2; i < argc; i++)
    {
        if (i + 1 >= argc)
        {
            fail("option needs a value", argv[i]);
        }
        const char *name = argv[i];
        const char *value = argv[++i];
        if (strcmp(name, "--min-size") == 0)
        {
            opts.min_size = parse_long(name, value, 1, 1L << 30);
        }
        else if (strcmp(name, "--max-size") == 0)
        {
            opts.max_size = parse_long(name, value, 1, 1L << 30);
        }
        else if (strcmp(name, "--iterations") == 0)
        {
            opts.iterations = parse_long(name, value, 1, 1L << 30);
        }
        else if (strcmp(name, "--skip") == 0)
        {
            opts.skip = parse_long(name, value, 0, 1L << 30);
        }
        else if (strcmp(name, "--window") == 0)
        {
            opts.window = (int)parse_long(name, value, 1, MAX_WINDOW);
        }
        else if (strcmp(name, "--grids") == 0)
        {
            parse_grids(&opts, value);
        }
        else if (strcmp(name, "--warm-up") == 0)
        {
            opts.warm_up = parse_long(name, value, 0, 100000000);
        }
        else
        {
            fail("unknown option", name);
        }
    }
    if (opts.min_size > opts.max_size)
    {
        fail("--min-size is larger than --max-size", argv[1]);
    }
    return opts;
}

/* Memory for messages through MPI's own allocator (MPI_Alloc_mem), as the Stagecoach programs use theirs. */
static void *allocate(size_t bytes)
{
    void *memory = NULL;
    if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &memory) != MPI_SUCCESS)
    {
        fail("cannot allocate bytes", "MPI_Alloc_mem");
    }
    return memory;
}

static void release(void *memory)
{
    MPI_Free_mem(memory);
}

static long iterations_for(const options *opts, long size, long small, long large)
{
    return opts->iterations > 0 ? opts->iterations : (size > LARGE_MESSAGE_BYTES ? large : small);
}

static long skip_for(const options *opts, long size, long small, long large)
{
    return opts->skip >= 0 ? opts->skip : (size > LARGE_MESSAGE_BYTES ? large : small);
}

static void clear(char *buffer, long size)
{
    if (size > 0)
    {
        memset(buffer, 0, (size_t)size);
    }
}

static void fill(char *buffer, long size, int seed)
{
    for (long i = 0; i < size; i++)
    {
        buffer[i] = (char)((i * 31 + seed) & 0x7f);
    }
}

static void check(const char *buffer, long size, int seed, const char *test)
{
    for (long i = 0; i < size; i++)
    {
        if (buffer[i] != (char)((i * 31 + seed) & 0x7f))
        {
            char where[96];
            snprintf(where, sizeof(where), "%s size %ld byte %ld", test, size, i);
            fail("received a wrong byte", where);
        }
    }
}

static void ping_pong(char *s_buf, char *r_buf, int bytes, long times)
{
    for (long i = 0; i < times; i++)
    {
        if (rank == 0)
        {
            MPI_Send(s_buf, bytes, MPI_CHAR, 1, WARM_UP_TAG, MPI_COMM_WORLD);
            MPI_Recv(r_buf, bytes, MPI_CHAR, 1, WARM_UP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        else
        {
            MPI_Recv(r_buf, bytes, MPI_CHAR, 0, WARM_UP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s_buf, bytes, MPI_CHAR, 0, WARM_UP_TAG, MPI_COMM_WORLD);
        }
    }
}

static void warm_up(const options *opts)
{
    char *s_buf = allocate(WARM_UP_LARGE_BYTES);
    char *r_buf = allocate(WARM_UP_LARGE_BYTES);
    clear(s_buf, WARM_UP_LARGE_BYTES);
    ping_pong(s_buf, r_buf, 8, opts->warm_up);
    ping_pong(s_buf, r_buf, WARM_UP_LARGE_BYTES, opts->warm_up / 100);
    release(s_buf);
    release(r_buf);
}

static void print_warm_up(const options *opts)
{
    printf("# Warm-up before timing: %ld round trips of 8 B and %ld of %d B, untimed\n", opts->warm_up,
        opts->warm_up / 100, WARM_UP_LARGE_BYTES);
}

static void print_title(const char *title)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length;
    MPI_Get_library_version(version, &length);
    char *end = strpbrk(version, ",\n");
    if (end != NULL)
    {
        *end = '\0';
    }
    printf("# OSU MPI-style %s (%s)\n", title, version);
    printf("# Send Buffer on HOST (H) and Receive Buffer on HOST (H)\n");
}

static void progress(const char *test, long size)
{
    if (rank == 0 && size >= (1L << 20))
    {
        fprintf(stderr, "osu_p2p %s: %ld bytes\n", test, size);
    }
}

static void run_latency(const options *opts)
{
    char *s_buf = allocate((size_t)opts->max_size);
    char *r_buf = allocate((size_t)opts->max_size);
    if (rank == 0)
    {
        print_title("Latency Test");
        print_warm_up(opts);
        printf("%-*s%*s\n", 10, "# Size", FIELD_WIDTH, "Avg Latency(us)");
        fflush(stdout);
    }
    for (long size = opts->min_size; size <= opts->max_size; size *= 2)
    {
        long iterations = iterations_for(opts, size, 10000, 1000);
        long skip = skip_for(opts, size, 100, 10);
        progress("latency", size);
        fill(s_buf, size, rank);
        clear(r_buf, size);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = 0.0;
        for (long i = 0; i < iterations + skip; i++)
        {
            if (i == skip)
            {
                start = MPI_Wtime();
            }
            if (rank == 0)
            {
                MPI_Send(s_buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(r_buf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            else
            {
                MPI_Recv(r_buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s_buf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        double elapsed = MPI_Wtime() - start;
        check(r_buf, size, 1 - rank, "latency");
        if (rank == 0)
        {
            printf("%-*ld%*.*f\n", 10, size, FIELD_WIDTH, 2, elapsed * 1e6 / (2.0 * (double)iterations));
            fflush(stdout);
        }
    }
    release(s_buf);
    release(r_buf);
}

static double bw_round(const options *opts, long size, char *s_buf, char *r_buf, MPI_Request *requests)
{
    if (rank == 0)
    {
        for (int w = 0; w < opts->window; w++)
        {
            MPI_Isend(s_buf, (int)size, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &requests[w]);
        }
        MPI_Waitall(opts->window, requests, MPI_STATUSES_IGNORE);
        MPI_Recv(r_buf, 4, MPI_CHAR, 1, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    else
    {
        for (int w = 0; w < opts->window; w++)
        {
            MPI_Irecv(r_buf, (int)size, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &requests[w]);
        }
        MPI_Waitall(opts->window, requests, MPI_STATUSES_IGNORE);
        MPI_Send(s_buf, 4, MPI_CHAR, 0, ACK_TAG, MPI_COMM_WORLD);
    }
    return MPI_Wtime();
}

static double bibw_round(const options *opts, long size, char *s_buf, char *r_buf, MPI_Request *requests)
{
    int peer = 1 - rank;
    for (int w = 0; w < opts->window; w++)
    {
        MPI_Irecv(r_buf, (int)size, MPI_CHAR, peer, 10 + peer, MPI_COMM_WORLD, &requests[w]);
    }
    for (int w = 0; w < opts->window; w++)
    {
        MPI_Isend(s_buf, (int)size, MPI_CHAR, peer, 10 + rank, MPI_COMM_WORLD, &requests[opts->window + w]);
    }
    MPI_Waitall(2 * opts->window, requests, MPI_STATUSES_IGNORE);
    return MPI_Wtime();
}

static void run_bandwidth(const options *opts, int bidirectional)
{
    char *s_buf = allocate((size_t)opts->max_size);
    char *r_buf = allocate((size_t)opts->max_size);
    MPI_Request requests[2 * MAX_WINDOW];
    const char *test = bidirectional ? "bibw" : "bw";
    if (rank == 0)
    {
        print_title(bidirectional ? "Bi-Directional Bandwidth Test" : "Bandwidth Test");
        print_warm_up(opts);
        printf("# Window size %d\n", opts->window);
        printf("%-*s%*s\n", 10, "# Size", FIELD_WIDTH, "Bandwidth (MB/s)");
        fflush(stdout);
    }
    for (long size = opts->min_size; size <= opts->max_size; size *= 2)
    {
        long iterations = iterations_for(opts, size, 100, 20);
        long skip = skip_for(opts, size, 10, 2);
        progress(test, size);
        fill(s_buf, size, rank);
        clear(r_buf, size);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = 0.0;
        double end = 0.0;
        for (long i = 0; i < iterations + skip; i++)
        {
            if (i == skip)
            {
                start = MPI_Wtime();
            }
            end = bidirectional ? bibw_round(opts, size, s_buf, r_buf, requests) :
                bw_round(opts, size, s_buf, r_buf, requests);
        }
        if (bidirectional || rank == 1)
        {
            check(r_buf, size, 1 - rank, test);
        }
        if (rank == 0)
        {
            double bytes = (double)size * (double)iterations * opts->window * (bidirectional ? 2.0 : 1.0);
            printf("%-*ld%*.*f\n", 10, size, FIELD_WIDTH, 2, bytes / 1e6 / (end - start));
            fflush(stdout);
        }
    }
    release(s_buf);
    release(r_buf);
}

static float cell_value(int owner, size_t cell)
{
    return (float)((int)(owner * 0x400000) + (int)(cell * 2654435761u & 0x3fffff));
}

static MPI_Datatype face_type(char face, int n)
{
    MPI_Datatype type;
    switch (face)
    {
        case 'X':
            MPI_Type_vector(n * n, 1, n, MPI_FLOAT, &type);
            break;
        case 'Y':
            MPI_Type_vector(n, n, n * n, MPI_FLOAT, &type);
            break;
        default:
            MPI_Type_contiguous(n * n, MPI_FLOAT, &type);
            break;
    }
    MPI_Type_commit(&type);
    return type;
}

static size_t plane_offset(char face, int n, int plane)
{
    switch (face)
    {
        case 'X':
            return (size_t)plane;
        case 'Y':
            return (size_t)plane * (size_t)n;
        default:
            return (size_t)plane * (size_t)n * (size_t)n;
    }
}

static size_t face_cell(char face, int n, int plane, size_t e)
{
    size_t a = e % (size_t)n;
    size_t b = e / (size_t)n;
    size_t nn = (size_t)n;
    switch (face)
    {
        case 'X':
            return (size_t)plane + nn * (a + nn * b);
        case 'Y':
            return a + nn * ((size_t)plane + nn * b);
        default:
            return a + nn * (b + nn * (size_t)plane);
    }
}

static void check_face(char face, int n, const float *grid, int ghost, int peer_plane)
{
    size_t elements = (size_t)n * (size_t)n;
    for (size_t e = 0; e < elements; e++)
    {
        if (grid[face_cell(face, n, ghost, e)] != cell_value(1 - rank, face_cell(face, n, peer_plane, e)))
        {
            char where[96];
            snprintf(where, sizeof(where), "halo face %c grid %d element %zu", face, n, e);
            fail("received a wrong value", where);
        }
    }
}

static double halo_face(const options *opts, char face, int n, float *grid)
{
    MPI_Datatype type = face_type(face, n);
    int face_bytes;
    MPI_Type_size(type, &face_bytes);
    long iterations = opts->iterations > 0 ? opts->iterations : (face_bytes > LARGE_FACE_BYTES ? 200 : 1000);
    long skip = opts->skip >= 0 ? opts->skip : 10;
    float *send_face = grid + plane_offset(face, n, rank == 0 ? n - 2 : 1);
    float *ghost_face = grid + plane_offset(face, n, rank == 0 ? n - 1 : 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = 0.0;
    for (long i = 0; i < iterations + skip; i++)
    {
        if (i == skip)
        {
            start = MPI_Wtime();
        }
        if (rank == 0)
        {
            MPI_Send(send_face, 1, type, 1, 2, MPI_COMM_WORLD);
            MPI_Recv(ghost_face, 1, type, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        else
        {
            MPI_Recv(ghost_face, 1, type, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(send_face, 1, type, 0, 2, MPI_COMM_WORLD);
        }
    }
    double elapsed = MPI_Wtime() - start;
    check_face(face, n, grid, rank == 0 ? n - 1 : 0, rank == 0 ? 1 : n - 2);
    MPI_Type_free(&type);
    return elapsed * 1e6 / (2.0 * (double)iterations);
}

static void run_halo(const options *opts)
{
    static const char faces[] = { 'X', 'Y', 'Z' };
    static const char *types[] = {
        "MPI_Type_vector(NY*NZ, 1, NX, MPI_FLOAT)",
        "MPI_Type_vector(NZ, NX, NX*NY, MPI_FLOAT)",
        "MPI_Type_contiguous(NX*NY, MPI_FLOAT)" };
    double latency_us[3][MAX_GRIDS];
    for (int g = 0; g < opts->grid_count; g++)
    {
        int n = opts->grids[g];
        size_t cells = (size_t)n * (size_t)n * (size_t)n;
        float *grid = allocate(cells * sizeof(float));
        for (int f = 0; f < 3; f++)
        {
            for (size_t c = 0; c < cells; c++)
            {
                grid[c] = cell_value(rank, c);
            }
            if (rank == 0)
            {
                fprintf(stderr, "osu_p2p halo: %d^3 face %c\n", n, faces[f]);
            }
            latency_us[f][g] = halo_face(opts, faces[f], n, grid);
        }
        release(grid);
    }
    if (rank != 0)
    {
        return;
    }
    print_title("Halo Face Latency Test");
    print_warm_up(opts);
    printf("# float arrays, x fastest; rank 0 sends plane N-2 into rank 1's plane 0, rank 1 sends plane 1 back\n");
    for (int f = 0; f < 3; f++)
    {
        printf("# Face %c: %s\n", faces[f], types[f]);
        printf("%-*s%*s%*s\n", 10, "# Grid", 12, "Bytes", FIELD_WIDTH, "Avg Latency(us)");
        for (int g = 0; g < opts->grid_count; g++)
        {
            int n = opts->grids[g];
            printf("%-*d%*ld%*.*f\n", 10, n, 12, 4L * n * n, FIELD_WIDTH, 2, latency_us[f][g]);
        }
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options opts = parse_options(argc, argv);
    if (size != 2)
    {
        fail("needs exactly 2 ranks", argv[0]);
    }
    warm_up(&opts);
    if (strcmp(opts.test, "latency") == 0)
    {
        run_latency(&opts);
    }
    else if (strcmp(opts.test, "halo") == 0)
    {
        run_halo(&opts);
    }
    else
    {
        run_bandwidth(&opts, strcmp(opts.test, "bibw") == 0);
    }
    MPI_Finalize();
    return 0;
}

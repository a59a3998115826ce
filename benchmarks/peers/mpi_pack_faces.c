/*
 * MPI_Pack of the three halo faces of a float array in x-fastest layout, beside memcpy of the same bytes.
 *
 * The peer of io.stagecoach.benchmarks.datatype.PackFacesBenchmark: the same faces, the same derived
 * datatypes an MPI user would build, the same buffer (the face at index 0 of its axis), timed with
 * MPI_Wtime. Each case runs batches of repeated packs, a batch sized to take about --batch-ms; the
 * figure reported is the median per-pack time over --batches batches.
 *
 *   X face: i fixed  MPI_Type_vector(NY*NZ, 1, NX, MPI_FLOAT)
 *   Y face: j fixed  MPI_Type_vector(NZ, NX, NX*NY, MPI_FLOAT)
 *   Z face: k fixed  MPI_Type_contiguous(NX*NY, MPI_FLOAT)
 *
 * Usage: mpi_pack_faces [--grids 128,256] [--batches 25] [--batch-ms 20]
 * Output: comment lines starting with '#', a header line, then one line per face and grid:
 *   face grid bytes mpi_pack_us mpi_pack_gbs memcpy_us memcpy_gbs
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GRIDS 8

typedef struct
{
    int grids[MAX_GRIDS];
    int grid_count;
    int batches;
    double batch_ms;
} options;

typedef struct
{
    MPI_Datatype type;
    const float *src;
    char *dst;
    int dst_bytes;
} pack_case;

typedef struct
{
    const char *src;
    char *dst;
    size_t bytes;
} copy_case;

static void fail(const char *message, const char *value)
{
    fprintf(stderr, "mpi_pack_faces: %s: %s\n", message, value);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void parse_grids(options *opts, const char *text)
{
    char *copy = strdup(text);
    opts->grid_count = 0;
    for (char *token = strtok(copy, ","); token != NULL; token = strtok(NULL, ","))
    {
        int n = atoi(token);
        if (n < 2 || n > 1024)
        {
            fail("grid edge must be in [2, 1024]", token);
        }
        if (opts->grid_count == MAX_GRIDS)
        {
            fail("too many grids, at most 8", text);
        }
        opts->grids[opts->grid_count++] = n;
    }
    free(copy);
}

static options parse_options(int argc, char **argv)
{
    options opts = { { 128, 256 }, 2, 25, 20.0 };
    for (int i = 1; i < argc; i++)
    {
        if (i + 1 >= argc)
        {
            fail("option needs a value", argv[i]);
        }
        if (strcmp(argv[i], "--grids") == 0)
        {
            parse_grids(&opts, argv[++i]);
        }
        else if (strcmp(argv[i], "--batches") == 0)
        {
            opts.batches = atoi(argv[++i]);
            if (opts.batches < 1)
            {
                fail("--batches must be at least 1", argv[i]);
            }
        }
        else if (strcmp(argv[i], "--batch-ms") == 0)
        {
            opts.batch_ms = atof(argv[++i]);
            if (opts.batch_ms <= 0.0)
            {
                fail("--batch-ms must be positive", argv[i]);
            }
        }
        else
        {
            fail("unknown option", argv[i]);
        }
    }
    return opts;
}

static void pack_once(const void *arg)
{
    const pack_case *c = arg;
    int position = 0;
    MPI_Pack(c->src, 1, c->type, c->dst, c->dst_bytes, &position, MPI_COMM_SELF);
}

static void copy_once(const void *arg)
{
    const copy_case *c = arg;
    memcpy(c->dst, c->src, c->bytes);
    __asm__ __volatile__("" ::: "memory");
}

typedef void (*operation)(const void *);

static double seconds_per_op(operation op, const void *arg, long iterations)
{
    double start = MPI_Wtime();
    for (long i = 0; i < iterations; i++)
    {
        op(arg);
    }
    return (MPI_Wtime() - start) / (double)iterations;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_us(operation op, const void *arg, const options *opts)
{
    long iterations = 1;
    while (seconds_per_op(op, arg, iterations) * (double)iterations * 1e3 < opts->batch_ms && iterations < (1L << 30))
    {
        iterations *= 2;
    }
    double *samples = malloc(sizeof(double) * (size_t)opts->batches);
    for (int b = 0; b < opts->batches; b++)
    {
        samples[b] = seconds_per_op(op, arg, iterations) * 1e6;
    }
    qsort(samples, (size_t)opts->batches, sizeof(double), compare_doubles);
    int mid = opts->batches / 2;
    double median = opts->batches % 2 == 1 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
    free(samples);
    return median;
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

static size_t face_index(char face, int n, size_t e)
{
    size_t a = e % (size_t)n;
    size_t b = e / (size_t)n;
    switch (face)
    {
        case 'X':
            return e * (size_t)n;
        case 'Y':
            return b * (size_t)n * (size_t)n + a;
        default:
            return e;
    }
}

static void check_packed(char face, int n, const float *grid, const char *packed)
{
    const float *values = (const float *)packed;
    size_t elements = (size_t)n * (size_t)n;
    for (size_t e = 0; e < elements; e++)
    {
        if (values[e] != grid[face_index(face, n, e)])
        {
            char where[64];
            snprintf(where, sizeof(where), "face %c grid %d element %zu", face, n, e);
            fail("MPI_Pack produced a wrong value", where);
        }
    }
}

static void run_grid(int n, const options *opts)
{
    size_t cells = (size_t)n * (size_t)n * (size_t)n;
    float *grid = malloc(cells * sizeof(float));
    for (size_t c = 0; c < cells; c++)
    {
        grid[c] = (float)(c % 1000003);
    }
    const char faces[] = { 'X', 'Y', 'Z' };
    for (int f = 0; f < 3; f++)
    {
        MPI_Datatype type = face_type(faces[f], n);
        int size_bytes;
        int pack_bytes;
        MPI_Type_size(type, &size_bytes);
        MPI_Pack_size(1, type, MPI_COMM_SELF, &pack_bytes);
        char *dst = malloc((size_t)pack_bytes);
        pack_case pc = { type, grid, dst, pack_bytes };
        pack_once(&pc);
        check_packed(faces[f], n, grid, dst);
        copy_case cc = { (const char *)grid, dst, (size_t)size_bytes };

        double pack_us = median_us(pack_once, &pc, opts);
        double copy_us = median_us(copy_once, &cc, opts);
        printf("%c %d %d %.3f %.2f %.3f %.2f\n", faces[f], n, size_bytes,
            pack_us, size_bytes / pack_us / 1e3, copy_us, size_bytes / copy_us / 1e3);
        fflush(stdout);
        free(dst);
        MPI_Type_free(&type);
    }
    free(grid);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options opts = parse_options(argc, argv);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length;
    MPI_Get_library_version(version, &length);
    char *newline = strchr(version, '\n');
    if (newline != NULL)
    {
        *newline = '\0';
    }
    printf("# %s\n", version);
    printf("# MPI_Pack of halo faces, float, x fastest; median over %d batches of about %.0f ms\n",
        opts.batches, opts.batch_ms);
    printf("face grid bytes mpi_pack_us mpi_pack_gbs memcpy_us memcpy_gbs\n");
    for (int g = 0; g < opts.grid_count; g++)
    {
        run_grid(opts.grids[g], &opts);
    }
    MPI_Finalize();
    return 0;
}

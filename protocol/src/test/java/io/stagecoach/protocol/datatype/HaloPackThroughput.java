package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;

/**
 * Quick throughput check of packing the halo faces of an NX x NY x NZ float array (x fastest) against a plain
 * memory copy of the same number of bytes; not a test and not a benchmark of record (those live in benchmarks/).
 * Run: {@code java -cp protocol/target/classes:protocol/target/test-classes
 * io.stagecoach.protocol.datatype.HaloPackThroughput 256}.
 */
public final class HaloPackThroughput
{
    private HaloPackThroughput()
    {
    }

    public static void main(final String[] args)
    {
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        final ByteBuffer field = ByteBuffer.allocateDirect(n * n * n * 4);
        final ByteBuffer packed = ByteBuffer.allocateDirect(n * n * 4);
        final long src = Memory.directAddress(field);
        final long dst = Memory.directAddress(packed);
        final Datatype[] faces = {
            Datatype.vector(n * n, 1, n, Datatype.FLOAT).commit(),
            Datatype.vector(n, n, n * n, Datatype.FLOAT).commit(),
            Datatype.contiguous(n * n, Datatype.FLOAT).commit() };
        final String[] names = { "X vector(NY*NZ,1,NX)", "Y vector(NZ,NX,NX*NY)", "Z contiguous(NX*NY)" };
        for (int round = 0; round < 3; round++)
        {
            final double memcpy = gbPerSecond(() -> Memory.copy(null, src + 4L * n * n, null, dst, 4L * n * n),
                4L * n * n);
            for (int f = 0; f < faces.length; f++)
            {
                final CompiledType compiled = faces[f].compiled();
                final long offset = f == 0 ? 4 : f == 1 ? 4L * n : 4L * n * n;
                final double rate = gbPerSecond(() -> compiled.pack(src + offset, 1, 0, compiled.size(), dst),
                    compiled.size());
                System.out.printf("n=%d %-24s %7.2f GB/s  memcpy %7.2f GB/s  ratio %.2f%n",
                    n, names[f], rate, memcpy, rate / memcpy);
            }
        }
    }

    private static double gbPerSecond(final Runnable action, final long bytes)
    {
        for (int i = 0; i < 2000; i++)
        {
            action.run();
        }
        long best = Long.MAX_VALUE;
        for (int sample = 0; sample < 50; sample++)
        {
            final long start = System.nanoTime();
            for (int i = 0; i < 20; i++)
            {
                action.run();
            }
            best = Math.min(best, System.nanoTime() - start);
        }
        return bytes * 20.0 / best;
    }
}

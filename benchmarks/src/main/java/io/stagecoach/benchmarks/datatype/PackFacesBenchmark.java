package io.stagecoach.benchmarks.datatype;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.UnsafeApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Host pack of one halo face of an off-heap float grid with the compiled datatype, beside the loop written by hand
 * for that face and a copy of the same number of contiguous bytes with {@code Unsafe.copyMemory}.
 * <p>
 * Setup checks every packed float against the grid, so a wrong pack fails the run instead of being timed.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { PackFacesBenchmark.ADD_EXPORTS, PackFacesBenchmark.UNSAFE_PACKAGE })
public class PackFacesBenchmark
{
    /**
     * Agrona's {@code UnsafeApi} reaches {@code jdk.internal.misc.Unsafe}, which the forked JVM must export.
     */
    static final String ADD_EXPORTS = "--add-exports";

    /**
     * The package exported to the class path.
     */
    static final String UNSAFE_PACKAGE = "java.base/jdk.internal.misc=ALL-UNNAMED";

    static final int FLOAT_BYTES = Face.FLOAT_BYTES;

    @Param({ "128", "256" })
    int grid;

    @Param({ "X", "Y", "Z" })
    Face face;

    private Datatype datatype;
    private CompiledType compiled;
    private long gridAddress;
    private long packedAddress;
    private long faceBytes;

    /**
     * Allocates and fills the grid, compiles the face's datatype and checks one pack of it.
     */
    @Setup
    public void setUp()
    {
        final long gridBytes = (long)grid * grid * grid * FLOAT_BYTES;
        gridAddress = UnsafeApi.allocateMemory(gridBytes);
        for (long index = 0; index < gridBytes / FLOAT_BYTES; index++)
        {
            UnsafeApi.putFloat(gridAddress + index * FLOAT_BYTES, valueAt(index));
        }
        datatype = face.datatype(grid).commit();
        compiled = datatype.compiled();
        faceBytes = compiled.size();
        if (faceBytes != (long)grid * grid * FLOAT_BYTES)
        {
            throw new IllegalStateException("face " + face + " of grid " + grid + " packs to " + faceBytes +
                " bytes, expected " + (long)grid * grid * FLOAT_BYTES);
        }
        packedAddress = UnsafeApi.allocateMemory(faceBytes);
        handLoop();
        verifyPacked();
        UnsafeApi.setMemory(packedAddress, faceBytes, (byte)0);
        pack();
        verifyPacked();
    }

    /**
     * Frees the type and the off-heap memory.
     */
    @TearDown
    public void tearDown()
    {
        datatype.free();
        UnsafeApi.freeMemory(packedAddress);
        UnsafeApi.freeMemory(gridAddress);
    }

    /**
     * Packs the whole face into the packed buffer.
     */
    @Benchmark
    public void pack()
    {
        compiled.pack(gridAddress, 1, 0, faceBytes, packedAddress);
    }

    /**
     * Packs the whole face with the loop written by hand for its shape, see {@link Face#copyByHand}.
     */
    @Benchmark
    public void handLoop()
    {
        face.copyByHand(gridAddress, grid, packedAddress);
    }

    /**
     * Copies as many contiguous bytes as the face packs to.
     */
    @Benchmark
    public void memcpy()
    {
        UnsafeApi.copyMemory(gridAddress, packedAddress, faceBytes);
    }

    static float valueAt(final long index)
    {
        return (float)(index % 1_000_003);
    }

    private void verifyPacked()
    {
        final long elements = faceBytes / FLOAT_BYTES;
        for (long element = 0; element < elements; element++)
        {
            final long index = face.gridIndex(grid, element);
            final float packed = UnsafeApi.getFloat(packedAddress + element * FLOAT_BYTES);
            if (Float.compare(packed, valueAt(index)) != 0)
            {
                throw new IllegalStateException("face " + face + " of grid " + grid + ": packed element " +
                    element + " is " + packed + ", grid index " + index + " holds " + valueAt(index));
            }
        }
    }
}

package io.stagecoach.benchmarks.omb;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HaloFaceTest
{
    private static final int N = 8;

    @ParameterizedTest
    @EnumSource(HaloFace.class)
    void shouldAddressTheCellsItsDatatypeCovers(final HaloFace face)
    {
        final Datatype type = face.datatype(N).commit();
        final CompiledType compiled = type.compiled();
        assertEquals((long)N * N * Float.BYTES, type.size());
        final int plane = N - 2;
        final long baseBytes = face.offsetBytes(N, plane);
        compiled.forEachSegment(1, 0, type.size(), (displacementBytes, packedOffsetBytes, lengthBytes) ->
        {
            for (long p = packedOffsetBytes; p < packedOffsetBytes + lengthBytes; p += Float.BYTES)
            {
                final long element = p / Float.BYTES;
                final long expectedBytes = face.cell(N, plane, element % N, element / N) * Float.BYTES;
                assertEquals(expectedBytes, baseBytes + displacementBytes + (p - packedOffsetBytes),
                    face + " element " + element);
            }
        });
        type.free();
    }

    @ParameterizedTest
    @EnumSource(HaloFace.class)
    void shouldPlaceEachPlaneInsideTheGrid(final HaloFace face)
    {
        for (int plane = 0; plane < N; plane++)
        {
            final long last = face.cell(N, plane, N - 1, N - 1);
            assertEquals(plane, axisCoordinate(face, last));
            assertEquals(true, last < (long)N * N * N, face + " plane " + plane);
        }
    }

    private static long axisCoordinate(final HaloFace face, final long cell)
    {
        return switch (face)
        {
            case X -> cell % N;
            case Y -> (cell / N) % N;
            case Z -> cell / ((long)N * N);
        };
    }
}

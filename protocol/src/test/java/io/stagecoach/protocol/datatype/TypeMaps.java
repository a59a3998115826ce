package io.stagecoach.protocol.datatype;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a committed datatype back as a type map of "TYPE@displacement" strings, by walking its compiled segments
 * against its signature runs.
 */
final class TypeMaps
{
    private TypeMaps()
    {
    }

    static List<String> of(final Datatype type)
    {
        final List<long[]> segments = new ArrayList<>();
        final CompiledType compiled = type.commit().compiled();
        compiled.forEachSegment(1, 0, compiled.size(), (d, p, l) -> segments.add(new long[]{ d, p, l }));
        final List<BasicType> basics = new ArrayList<>();
        type.signature().forEachRun((basic, count) ->
        {
            for (long i = 0; i < count; i++)
            {
                basics.add(basic);
            }
        });
        final List<String> map = new ArrayList<>();
        long packed = 0;
        for (final BasicType basic : basics)
        {
            map.add(basic + "@" + displacementOf(segments, packed));
            packed += basic.sizeBytes();
        }
        return map;
    }

    private static long displacementOf(final List<long[]> segments, final long packed)
    {
        for (final long[] segment : segments)
        {
            if (packed >= segment[1] && packed < segment[1] + segment[2])
            {
                return segment[0] + packed - segment[1];
            }
        }
        throw new AssertionError("packed byte " + packed + " not in any segment");
    }
}

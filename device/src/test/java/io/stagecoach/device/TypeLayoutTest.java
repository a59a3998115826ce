package io.stagecoach.device;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TypeLayoutTest
{
    @Test
    void shouldLocateEveryPackedByteLikeTheSegmentWalk()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("type layout"));
        for (int t = 0; t < 200; t++)
        {
            final CompiledType type = random.next().compiled();
            final long count = 1 + random.nextInt(3);
            final TypeLayout layout = new TypeLayout(type);
            type.forEachSegment(count, 0, count * type.size(), (displacement, packedOffset, length) ->
            {
                for (long i = 0; i < length; i += 1 + length / 5)
                {
                    assertEquals(displacement + i, layout.displacement(packedOffset + i), type.describe());
                    final long run = layout.runRemaining(count, packedOffset + i);
                    assertTrue(run >= 1 && packedOffset + i + run <= count * type.size(), type.describe());
                    for (long j = 0; j < run; j += 1 + run / 7)
                    {
                        assertEquals(displacement + i + j, layout.displacement(packedOffset + i + j),
                            "run of " + run + " bytes at packed byte " + (packedOffset + i) + " is not contiguous\n" +
                            type.describe());
                    }
                }
            });
        }
    }

    @Test
    void shouldSeeTheWholeStreamOfAContiguousTypeAsOneRun()
    {
        final TypeLayout layout = new TypeLayout(Datatype.contiguous(100, Datatype.INT).commit().compiled());
        assertEquals(800 - 13, layout.runRemaining(2, 13));
        final TypeLayout vector = new TypeLayout(Datatype.vector(3, 2, 4, Datatype.INT).commit().compiled());
        assertEquals(5, vector.runRemaining(1, 11));
        assertEquals(4 * 4 + 3, vector.displacement(11));
    }
}

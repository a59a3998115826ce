package io.stagecoach.rank;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RangeTableTest
{
    private final ByteBuffer table =
        ByteBuffer.allocateDirect((int)RangeTable.MAX_TABLE_BYTES).order(ByteOrder.nativeOrder());

    @Test
    void shouldListTheRowsOfAFaceInPackedOrder()
    {
        final CompiledType rows = Datatype.vector(128, 128, 128 * 128, Datatype.FLOAT).commit().compiled();
        final long base = 1L << 20;
        assertEquals(128, RangeTable.fill(rows, base, 1, 128 * 512, BufferUtil.address(table)));
        for (int row = 0; row < 128; row++)
        {
            assertEquals(base + row * 128L * 128 * 4, table.getLong(row * 16));
            assertEquals(512, table.getLong(row * 16 + 8));
        }
        assertEquals(3, RangeTable.fill(rows, base, 1, 1100, BufferUtil.address(table)));
        assertEquals(76, table.getLong(2 * 16 + 8));
    }

    @Test
    void shouldRefuseLayoutsWithTooManyOrTooShortRanges()
    {
        final CompiledType floats = Datatype.vector(16384, 1, 128, Datatype.FLOAT).commit().compiled();
        assertEquals(-1, RangeTable.fill(floats, 4096, 1, 65536, BufferUtil.address(table)));
        final CompiledType manyRows = Datatype.vector(2048, 64, 128, Datatype.FLOAT).commit().compiled();
        assertEquals(-1, RangeTable.fill(manyRows, 4096, 1, 2048 * 256, BufferUtil.address(table)));
        final CompiledType shortRows = Datatype.vector(100, 32, 64, Datatype.FLOAT).commit().compiled();
        assertEquals(-1, RangeTable.fill(shortRows, 4096, 1, 100 * 128, BufferUtil.address(table)));
    }
}

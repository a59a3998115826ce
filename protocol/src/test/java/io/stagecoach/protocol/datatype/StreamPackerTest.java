package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.stagecoach.protocol.ErrorClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MPI_PACK, MPI_UNPACK and MPI_PACK_SIZE on {@link Datatype}, with positions that advance.
 */
class StreamPackerTest
{
    private static final Datatype EVERY_OTHER_INT = Datatype.vector(3, 1, 2, Datatype.INT).commit();

    @Test
    void shouldGivePackSizeOfCountInstancesAndNameTheLargestCount()
    {
        assertEquals(36, EVERY_OTHER_INT.packSize(3));
        assertEquals(0, EVERY_OTHER_INT.packSize(0));
        assertEquals(0, Datatype.contiguous(0, Datatype.INT).packSize(Long.MAX_VALUE));
        assertEquals(36, EVERY_OTHER_INT.compiled().packSize(3));
        assertFails(ErrorClass.COUNT, () -> EVERY_OTHER_INT.packSize(Long.MAX_VALUE),
            "count 9223372036854775807 of vector(3, 1, 2, INT) (12 packed bytes each) overflows the long limit " +
            "9223372036854775807 of packed bytes: the count must be <= 768614336404564650");
        assertFails(ErrorClass.COUNT, () -> EVERY_OTHER_INT.packSize(-1),
            "count -1 of vector(3, 1, 2, INT) is negative");
    }

    @Test
    void shouldPackSeveralTypesAfterEachOtherAndUnpackThemBackThroughRawAddresses()
    {
        final ByteBuffer typed = ints(1, 2, 3, 4, 5, 6);
        final ByteBuffer packed = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        final long typedAddress = Memory.directAddress(typed);
        final long packedAddress = Memory.directAddress(packed);

        long position = Datatype.INT.pack(typedAddress + 20, 1, packedAddress, 64, 0);
        position = EVERY_OTHER_INT.pack(typedAddress, 1, packedAddress, 64, position);
        assertEquals(16, position);
        assertEquals(6, packed.getInt(0));
        assertEquals(1, packed.getInt(4));
        assertEquals(3, packed.getInt(8));
        assertEquals(5, packed.getInt(12));

        final ByteBuffer restored = ints(0, 0, 0, 0, 0, 0);
        final long restoredAddress = Memory.directAddress(restored);
        position = Datatype.INT.unpack(packedAddress, 16, 0, restoredAddress + 4, 1);
        position = EVERY_OTHER_INT.unpack(packedAddress, 16, position, restoredAddress, 1);
        assertEquals(16, position);
        assertEquals(1, restored.getInt(0));
        assertEquals(6, restored.getInt(4));
        assertEquals(3, restored.getInt(8));
        assertEquals(5, restored.getInt(16));
    }

    @Test
    void shouldPackIntoAndUnpackFromByteBufferPositions()
    {
        final ByteBuffer typed = ints(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        final ByteBuffer packed = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
        packed.position(4);
        EVERY_OTHER_INT.pack(typed, 0, 2, packed);
        assertEquals(28, packed.position());
        assertEquals(6, packed.getInt(16), "the second instance starts one extent (20 bytes) on, at int 5");

        packed.flip().position(4);
        final ByteBuffer restored = ByteBuffer.allocate(48).order(ByteOrder.nativeOrder());
        EVERY_OTHER_INT.unpack(packed, restored, 0, 2);
        assertEquals(28, packed.position());
        for (final int index : new int[]{ 0, 2, 4, 5, 7, 9 })
        {
            assertEquals(typed.getInt(4 * index), restored.getInt(4 * index), "int " + index);
        }
        assertEquals(0, restored.getInt(4));
    }

    @Test
    void shouldRefuseBeforeWritingNamingTheValueAndTheLimit()
    {
        final ByteBuffer typed = ints(1, 2, 3, 4, 5);
        final long address = Memory.directAddress(typed);
        assertFails(ErrorClass.TRUNCATE, () -> EVERY_OTHER_INT.pack(address, 1, address, 16, 8),
            "pack: 1 x vector(3, 1, 2, INT) take 12 packed bytes but outsize 16 leaves 8 after position 8");
        assertFails(ErrorClass.ARG, () -> EVERY_OTHER_INT.pack(address, 1, address, 16, 17),
            "pack: position 17 is outside [0, 16] (outsize 16)");
        assertFails(ErrorClass.ARG, () -> EVERY_OTHER_INT.unpack(address, 16, -1, address, 1),
            "unpack: position -1 is outside [0, 16] (insize 16)");
        assertFails(ErrorClass.SIZE, () -> EVERY_OTHER_INT.pack(address, 1, address, -4, 0),
            "pack: outsize -4 is negative");
        assertFails(ErrorClass.TRUNCATE, () -> EVERY_OTHER_INT.unpack(address, 20, 0, address, 2),
            "unpack: 2 x vector(3, 1, 2, INT) take 24 packed bytes but insize 20 leaves 20 after position 0");
        assertFails(ErrorClass.TYPE, () -> Datatype.vector(2, 1, 2, Datatype.INT).pack(address, 1, address, 64, 0),
            "is not committed");

        final ByteBuffer packed = ByteBuffer.allocateDirect(32);
        packed.position(24);
        assertFails(ErrorClass.TRUNCATE, () -> EVERY_OTHER_INT.pack(typed, 0, 1, packed),
            "take 12 packed bytes but limit 32 leaves 8 after position 24");
        assertEquals(24, packed.position());
        assertFails(ErrorClass.BUFFER, () -> EVERY_OTHER_INT.pack(typed, 4, 1, packed.position(0)),
            "typed buffer of 20 bytes with displacement 0 at index 4 cannot hold 1 x vector(3, 1, 2, INT): its data " +
            "spans bytes [4, 24)");
        assertFails(ErrorClass.BUFFER, () -> EVERY_OTHER_INT.pack(typed, 0, 1, packed.asReadOnlyBuffer()),
            "the packed buffer is read-only");
        assertFails(ErrorClass.BUFFER, () -> EVERY_OTHER_INT.unpack(packed, typed.asReadOnlyBuffer(), 0, 1),
            "the typed buffer is read-only");
        assertEquals(0, packed.position());
    }

    private static ByteBuffer ints(final int... values)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(values.length * 4).order(ByteOrder.nativeOrder());
        for (int i = 0; i < values.length; i++)
        {
            buffer.putInt(4 * i, values[i]);
        }
        return buffer;
    }

    private static void assertFails(final ErrorClass errorClass, final Executable executable, final String part)
    {
        final DatatypeException ex = assertThrows(DatatypeException.class, executable);
        assertTrue(ex.getMessage().contains(part), "message '" + ex.getMessage() + "' lacks '" + part + "'");
        assertEquals(errorClass, ex.errorClass(), ex.getMessage());
    }
}

package io.stagecoach.device.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import io.stagecoach.device.HostBuffer;
import io.stagecoach.device.RandomTypes;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.Order;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class KernelPlanTest
{
    private static final byte POISON = (byte)0x5A;

    @Test
    void shouldPlanTheHaloFacesAsTwoDimensionalCopies()
    {
        final int n = 128;
        final KernelPlan x = plan(Datatype.vector(n * n, 1, n, Datatype.FLOAT), 1, 0, 4L * n * n, 1 << 20, 1 << 24);
        assertEquals("sc_pack_nd1_u4", x.kernel);
        assertEquals(1, x.run);
        assertEquals(4L * n, x.stride1);
        final KernelPlan y = plan(Datatype.vector(n, n, n * n, Datatype.FLOAT), 1, 0, 4L * n * n, 1 << 20, 1 << 24);
        assertEquals("sc_pack_nd1_u16", y.kernel);
        assertEquals(n * 4 / 16, y.run);
        final KernelPlan plane = plan(Datatype.subarray(new int[] {n, n, n}, new int[] {n - 2, n - 2, 1},
            new int[] {1, 1, n - 2}, Order.C, Datatype.FLOAT), 1, 0, 4L * (n - 2) * (n - 2), 1 << 20, 1 << 24);
        assertEquals("sc_pack_nd2_u4", plane.kernel);
        assertEquals(n - 2, plane.n1);
        final KernelPlan box = plan(Datatype.subarray(new int[] {n, n, n}, new int[] {4, 6, 8},
            new int[] {1, 1, 1}, Order.C, Datatype.DOUBLE), 3, 0, 3L * 4 * 6 * 8 * 8, 1 << 20, 1 << 24);
        assertEquals("sc_pack_nd3_u8", box.kernel);
    }

    @Test
    void shouldMergeContiguousDimensionsIntoTheRun()
    {
        final KernelPlan rows = plan(Datatype.vector(8, 16, 16, Datatype.INT), 4, 0, 4L * 8 * 16 * 4, 4096, 8192);
        assertEquals(1, rows.dims);
        assertEquals(0, rows.stride1);
    }

    @Test
    void shouldFallBackToTheTreeKernelForSequences()
    {
        final Datatype struct = Datatype.struct(new int[] {1, 2}, new long[] {0, 12},
            new Datatype[] {Datatype.INT, Datatype.DOUBLE});
        final KernelPlan plan = plan(struct, 2, 0, 40, 4096, 8192);
        assertTrue(plan.tree);
        assertEquals("sc_pack_tree_u4", plan.kernel);
    }

    @Test
    void shouldShrinkTheUnitToTheAlignmentOfAddressesAndRange()
    {
        final Datatype y = Datatype.vector(4, 64, 1024, Datatype.FLOAT);
        assertEquals(16, plan(y, 1, 0, 1024, 4096, 8192).unit);
        assertEquals(8, plan(y, 1, 8, 512, 4096, 8192).unit);
        assertEquals(2, plan(y, 1, 0, 1024, 4098, 8192).unit);
        assertEquals(1, plan(y, 1, 0, 1023, 4096, 8192).unit);
    }

    @Test
    void shouldUseWideIndicesBeyondFourBillionUnits()
    {
        final Datatype column = Datatype.vector(1024, 1, 4, Datatype.BYTE).commit();
        final long count = 1L << 24;
        final long total = count * 1024;
        final KernelPlan plan = KernelPlan.of(new TypeShape(column.compiled()), true, 1 << 20, count,
            total - 4096, 4096, 1 << 16, 0);
        assertTrue(plan.wide);
        assertEquals("sc_pack_nd2w_u1", plan.kernel);
        final long[] code = column.compiled().code();
        for (long t = 0; t < plan.units; t += 97)
        {
            assertEquals(reference(column.compiled(), plan.first + t) + (1 << 20) - column.compiled().code()[1],
                KernelModel.ndOffset(plan, t) + plan.typed, "unit " + t);
        }
        assertFalse(code.length == 0);
    }

    @Test
    void shouldWriteArgumentsInTheKernelsLayout()
    {
        final KernelPlan plan = plan(Datatype.vector(7, 3, 5, Datatype.INT), 2, 4, 60, 4096, 8192);
        final ByteBuffer arguments = ByteBuffer.allocateDirect(KernelPlan.ARGUMENT_BYTES);
        plan.writeArguments(arguments);
        arguments.order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(plan.typed, arguments.getLong(0));
        assertEquals(plan.packed, arguments.getLong(8));
        assertEquals(plan.first, arguments.getLong(24));
        assertEquals(plan.units, arguments.getLong(32));
        assertEquals(plan.stride1, arguments.getLong(56));
        assertEquals(plan.run, arguments.getLong(80));
        final FastDivisor run = FastDivisor.of(plan.run);
        assertEquals(run.multiplier(), arguments.getInt(104));
        assertEquals(run.shift(), arguments.getInt(108));
        assertEquals(0, arguments.getLong(128));
        final KernelPlan signalled = KernelPlan.of(new TypeShape(Datatype.vector(7, 3, 5, Datatype.INT).commit().compiled()),
            true, 4096, 2, 4, 60, 8192, 0, 0x7000, 0x9000);
        signalled.writeArguments(arguments);
        assertEquals(0x7000, arguments.getLong(128));
        assertEquals(0x9000, arguments.getLong(136));
        assertEquals(signalled.ilp, arguments.getLong(144));
        assertEquals(KernelPlan.ARGUMENT_BYTES, 152);
    }

    @Test
    void shouldSpreadASmallRangeOverMoreBlocksWithOneUnitPerThread()
    {
        final TypeShape column = new TypeShape(Datatype.vector(1 << 20, 1, 64, Datatype.FLOAT).commit().compiled());
        final long smallUnits = 64L * 1024;
        final KernelPlan small = KernelPlan.of(column, true, 1 << 20, 1, 0, smallUnits * 4, 8192, 0, 0, 0);
        assertEquals(smallUnits, small.units);
        assertEquals(1, small.ilp, small.toString());
        assertEquals(smallUnits / KernelPlan.THREADS, small.blocks, small.toString());

        final long largeUnits = KernelPlan.SPREAD_BLOCKS * KernelPlan.THREADS * KernelPlan.ILP;
        final KernelPlan large = KernelPlan.of(column, true, 1 << 20, 1, 0, largeUnits * 4, 8192, 0, 0, 0);
        assertEquals(KernelPlan.ILP, large.ilp, large.toString());
        assertEquals(KernelPlan.SPREAD_BLOCKS, large.blocks, large.toString());
    }

    @Test
    void shouldMatchTheHostPackForRandomDatatypesRangesAndAlignments()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("kernel model pack"));
        int nd = 0;
        for (int t = 0; t < 400; t++)
        {
            final Datatype type = random.next();
            final long count = 1 + random.nextInt(4);
            nd += check(random, type, count, true) ? 1 : 0;
            if (RandomTypes.isNonOverlapping(type.compiled(), count))
            {
                check(random, type, count, false);
            }
        }
        assertTrue(nd > 40, "only " + nd + " datatypes took an nd kernel");
    }

    private static boolean check(final RandomTypes random, final Datatype type, final long count, final boolean pack)
    {
        final CompiledType compiled = type.compiled();
        final long low = compiled.dataLowBytes(count);
        final int typedBytes = (int)(compiled.dataHighBytes(count) - low) + 32;
        final long total = count * compiled.size();
        final long offset = random.nextInt(3) == 0 ? 0 : random.nextLong(total);
        final long length = random.nextInt(3) == 0 ? total - offset : 1 + random.nextLong(total - offset);
        final int typedSlack = random.nextInt(16);
        final int packedSlack = random.nextInt(16);
        final byte[] values = new byte[typedBytes];
        random.nextBytes(values);
        final byte[] incoming = new byte[(int)length];
        random.nextBytes(incoming);

        final HostBuffer modelTyped = new HostBuffer(typedBytes);
        final HostBuffer modelPacked = new HostBuffer((int)length + 64);
        final HostBuffer hostTyped = new HostBuffer(typedBytes);
        final HostBuffer hostPacked = new HostBuffer((int)length + 64);
        prepare(pack, values, incoming, modelTyped, modelPacked, packedSlack);
        prepare(pack, values, incoming, hostTyped, hostPacked, packedSlack);

        final long modelBase = modelTyped.address() + typedSlack - low;
        final KernelPlan plan = KernelPlan.of(new TypeShape(compiled), pack, modelBase, count, offset, length,
            modelPacked.address() + packedSlack, 0);
        KernelModel.run(plan, compiled.code(), pack);
        final long hostBase = hostTyped.address() + typedSlack - low;
        if (pack)
        {
            compiled.pack(hostBase, count, offset, length, hostPacked.address() + packedSlack);
        }
        else
        {
            compiled.unpack(hostPacked.address() + packedSlack, count, offset, length, hostBase);
        }
        final byte[] expected = pack ? hostPacked.get((int)length + 64) : hostTyped.get(typedBytes);
        final byte[] actual = pack ? modelPacked.get((int)length + 64) : modelTyped.get(typedBytes);
        if (!Arrays.equals(expected, actual))
        {
            fail((pack ? "pack " : "unpack ") + type + " x" + count + " range [" + offset + ", +" + length + ") " +
                plan + ": first difference at " + Arrays.mismatch(expected, actual) + "\n" + compiled.describe());
        }
        assertArrayEquals(expected, actual);
        return !plan.tree;
    }

    private static void prepare(final boolean pack, final byte[] values, final byte[] incoming, final HostBuffer typed,
        final HostBuffer packed, final int packedSlack)
    {
        if (pack)
        {
            typed.put(values);
            packed.fill(POISON, incoming.length + 64);
        }
        else
        {
            typed.fill(POISON, values.length);
            packed.fill(POISON, incoming.length + 64);
            for (int i = 0; i < incoming.length; i++)
            {
                packed.buffer().put(packedSlack + i, incoming[i]);
            }
        }
    }

    private static KernelPlan plan(final Datatype type, final long count, final long offset, final long length,
        final long typed, final long packed)
    {
        return KernelPlan.of(new TypeShape(type.commit().compiled()), true, typed, count, offset, length, packed, 0);
    }

    private static long reference(final CompiledType type, final long packedByte)
    {
        final long[] displacement = {0};
        type.forEachSegment(1L << 24, packedByte, 1, (d, p, l) -> displacement[0] = d);
        return displacement[0];
    }
}

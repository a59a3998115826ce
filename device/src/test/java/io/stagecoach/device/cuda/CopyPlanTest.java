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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class CopyPlanTest
{
    private static final byte POISON = (byte)0x5A;
    private static final int N = 64;

    @Test
    void shouldCopyAnXFaceIntoAYFaceWithTheNdKernelOfTheirCommonUnit()
    {
        final Datatype x = Datatype.vector(N * N, 1, N, Datatype.FLOAT);
        final Datatype y = Datatype.vector(N, N, N * N, Datatype.FLOAT);
        final CopyPlan plan = plan(x, 1, 1 << 20, y, 1, 1 << 24, 0, 4L * N * N);
        assertEquals("sc_copy_nd_u4", plan.kernel);
        assertEquals(1, plan.source.run);
        assertEquals(4L * N, plan.source.strides[2], "the X face's one dimension takes the outermost place");
        assertEquals(1, plan.source.n1);
        assertEquals(1, plan.source.n2);
        assertEquals(N, plan.destination.run, "a row of the Y face in units of 4 bytes");
        assertEquals(4L * N * N, plan.destination.strides[2]);
        assertEquals(N * N, plan.units);
    }

    @Test
    void shouldPadASubarrayOfTwoDimensionsInsideAndKeepThreeAsTheyAre()
    {
        final Datatype plane = Datatype.subarray(new int[] {N, N, N}, new int[] {N - 2, N - 2, 1},
            new int[] {1, 1, N - 2}, Order.C, Datatype.DOUBLE);
        final Datatype box = Datatype.subarray(new int[] {N, N, N}, new int[] {4, 6, 8}, new int[] {1, 1, 1},
            Order.C, Datatype.DOUBLE);
        final CopyPlan plan = plan(plane, 1, 1 << 20, box, 3, 1 << 24, 0, 8L * 4 * 6 * 8);
        assertEquals("sc_copy_nd_u8", plan.kernel);
        assertEquals(1, plan.source.n1, "plane: two dimensions outside its run, padded inside");
        assertEquals(N - 2, plan.source.n2);
        assertEquals(0, plan.source.strides[0]);
        assertEquals(8L * N, plan.source.strides[1]);
        assertEquals(8L * N * N, plan.source.strides[2]);
        assertEquals(6, plan.destination.n1, "box: rows, planes and instances fill the three places");
        assertEquals(4, plan.destination.n2);
        assertEquals(8L * N, plan.destination.strides[0]);
        assertEquals(8L * N * N, plan.destination.strides[1]);
    }

    @Test
    void shouldTakeTheUnitThatDividesBothLayouts()
    {
        final Datatype rows16 = Datatype.vector(8, 4, 8, Datatype.INT);
        final Datatype odd = Datatype.vector(32, 2, 3, Datatype.SHORT);
        assertEquals(16, plan(rows16, 1, 4096, Datatype.contiguous(32, Datatype.INT), 1, 8192, 0, 128).unit);
        assertEquals(2, plan(rows16, 1, 4096, odd, 1, 8192, 0, 128).unit, "runs of 4 bytes, strides of 6");
        assertEquals(1, plan(rows16, 1, 4096, odd, 1, 8193, 0, 128).unit, "an odd destination address");
        assertEquals(4, plan(rows16, 1, 4096, Datatype.contiguous(32, Datatype.INT), 1, 8192, 4, 100).unit,
            "the range");
    }

    @Test
    void shouldTakeTheMixedFormWhereOneLayoutIsNdAndTheTreeFormWhereNeitherIs()
    {
        final Datatype struct = Datatype.struct(new int[] {1, 2}, new long[] {0, 12},
            new Datatype[] {Datatype.INT, Datatype.DOUBLE});
        final Datatype column = Datatype.vector(10, 1, 7, Datatype.INT);
        final CopyPlan toStruct = plan(column, 2, 4096, struct, 1, 8192, 4, 16);
        assertFalse(toStruct.tree);
        assertFalse(toStruct.sourceTree);
        assertTrue(toStruct.destinationTree);
        assertEquals("sc_copy_ndtree_u4", toStruct.kernel);
        assertEquals(1, toStruct.first, "the mixed form counts units");
        assertEquals(4, toStruct.units);
        assertEquals(8192, toStruct.destination.base, "the tree side starts at displacement 0");
        final CopyPlan fromStruct = plan(struct, 1, 8192, column, 2, 4096, 0, 20);
        assertEquals("sc_copy_treend_u4", fromStruct.kernel);
        assertEquals(1, fromStruct.ilp);
        final CopyPlan both = plan(struct, 1, 8192, struct, 1, 4096, 4, 16);
        assertTrue(both.tree);
        assertEquals("sc_copy_tree_u4", both.kernel);
        assertEquals(4, both.first, "the tree form counts bytes");
    }

    @Test
    void shouldTakeTheTreeFormWhereTheMixedFormsNdSideNeedsWideIndices()
    {
        final Datatype column = Datatype.vector(1024, 1, 4, Datatype.BYTE);
        final Datatype struct = Datatype.struct(new int[] {1, 2}, new long[] {0, 5},
            new Datatype[] {Datatype.BYTE, Datatype.BYTE});
        final long count = 1L << 24;
        final long total = count * 1024;
        final CopyPlan plan = plan(column, count, 1 << 20, struct, total / 3 + 1, 1L << 40, total - 4095, 4095);
        assertTrue(plan.tree, plan.toString());
        assertEquals("sc_copy_tree_u1", plan.kernel);
        assertEquals("sc_copy_ndtree_u1", plan(column, 4, 1 << 20, struct, 2000, 1L << 40, 0, 4095).kernel);
    }

    @Test
    void shouldUseWideIndicesBeyondFourBillionUnits()
    {
        final Datatype column = Datatype.vector(1024, 1, 4, Datatype.BYTE);
        final long count = 1L << 24;
        final long total = count * 1024;
        final CopyPlan plan = plan(column, count, 1 << 20, Datatype.BYTE, total, 1L << 40, total - 4096, 4096);
        assertTrue(plan.wide);
        assertEquals("sc_copy_ndw_u1", plan.kernel);
        assertFalse(plan(column, 4, 1 << 20, Datatype.BYTE, 4096, 1L << 40, 0, 4096).wide);
    }

    @Test
    void shouldWriteArgumentsInTheKernelsLayout()
    {
        final CopyPlan plan = CopyPlan.of(side(Datatype.vector(7, 3, 5, Datatype.INT), 2, 4096, 0x100),
            side(Datatype.vector(6, 7, 9, Datatype.INT), 1, 8192, 0x200), 4, 160, 0x7000, 0x9000);
        final ByteBuffer arguments = ByteBuffer.allocateDirect(CopyPlan.ARGUMENT_BYTES);
        plan.writeArguments(arguments);
        arguments.order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(plan.source.base, arguments.getLong(0));
        assertEquals(plan.source.strides[2], arguments.getLong(48));
        assertEquals(plan.source.run, arguments.getLong(56));
        final FastDivisor run = FastDivisor.of(plan.source.run);
        assertEquals(run.multiplier(), arguments.getInt(80));
        assertEquals(run.shift(), arguments.getInt(84));
        assertEquals(plan.destination.base, arguments.getLong(CopyPlan.LAYOUT_BYTES));
        assertEquals(plan.destination.run, arguments.getLong(CopyPlan.LAYOUT_BYTES + 56));
        assertEquals(plan.destination.n2, arguments.getLong(CopyPlan.LAYOUT_BYTES + 72));
        assertEquals(plan.first, arguments.getLong(208));
        assertEquals(plan.units, arguments.getLong(216));
        assertEquals(0x7000, arguments.getLong(224));
        assertEquals(0x9000, arguments.getLong(232));
        assertEquals(plan.ilp, arguments.getLong(240));
        assertTrue(CopyPlan.ARGUMENT_BYTES <= PreparedLaunch.MAX_ARGUMENT_BYTES);
    }

    /**
     * The planning and the kernels' index arithmetic, transcribed ({@link KernelModel#copy}), against the datatype
     * engine's pack then unpack, for random pairs of layouts, counts, ranges and misalignments, destinations poisoned.
     */
    @Test
    void shouldMatchAPackThenAnUnpackForRandomPairsOfLayoutsRangesAndAlignments()
    {
        final RandomTypes random = new RandomTypes(RandomTypes.seed("copy model"));
        int nd = 0;
        int mixed = 0;
        int checked = 0;
        for (int t = 0; t < 400; t++)
        {
            final Datatype from = random.next();
            final Datatype to = random.next();
            final long count = 1 + random.nextInt(4);
            final long total = count * from.size();
            final long toCount = (total + to.size() - 1) / to.size();
            if (!RandomTypes.isNonOverlapping(to.compiled(), toCount))
            {
                continue;
            }
            final CopyPlan plan = check(random, from.compiled(), count, to.compiled(), toCount, total);
            nd += plan.sourceTree || plan.destinationTree ? 0 : 1;
            mixed += plan.sourceTree != plan.destinationTree ? 1 : 0;
            checked++;
        }
        assertTrue(checked > 150, "only " + checked + " pairs with a destination without overlap");
        assertTrue(nd > 10, "only " + nd + " pairs took the nd form");
        assertTrue(mixed > 10, "only " + mixed + " pairs took the mixed form");
    }

    private static CopyPlan check(final RandomTypes random, final CompiledType from, final long count,
        final CompiledType to, final long toCount, final long total)
    {
        final long offset = random.nextInt(3) == 0 ? 0 : random.nextLong(total);
        final long length = random.nextInt(3) == 0 ? total - offset : 1 + random.nextLong(total - offset);
        final long fromLow = from.dataLowBytes(count);
        final int fromBytes = (int)(from.dataHighBytes(count) - fromLow) + 32;
        final long toLow = to.dataLowBytes(toCount);
        final int toBytes = (int)(to.dataHighBytes(toCount) - toLow) + 32;
        final int fromSlack = random.nextInt(16);
        final int toSlack = random.nextInt(16);
        final byte[] values = new byte[fromBytes];
        random.nextBytes(values);

        final HostBuffer source = new HostBuffer(fromBytes);
        source.put(values);
        final long sourceBase = source.address() + fromSlack - fromLow;
        final HostBuffer expected = new HostBuffer(toBytes);
        expected.fill(POISON, toBytes);
        final HostBuffer packed = new HostBuffer((int)length);
        from.pack(sourceBase, count, offset, length, packed.address());
        to.unpack(packed.address(), toCount, offset, length, expected.address() + toSlack - toLow);

        final HostBuffer actual = new HostBuffer(toBytes);
        actual.fill(POISON, toBytes);
        final CopyPlan plan = CopyPlan.of(new CopyPlan.Side(new TypeShape(from), sourceBase, count, 0),
            new CopyPlan.Side(new TypeShape(to), actual.address() + toSlack - toLow, toCount, 0), offset, length, 0,
            0);
        KernelModel.copy(plan, from.code(), to.code());
        final byte[] want = expected.get(toBytes);
        final byte[] got = actual.get(toBytes);
        if (!Arrays.equals(want, got))
        {
            fail("copy x" + count + " to x" + toCount + " range [" + offset + ", +" + length + ") " + plan +
                ": first difference at " + Arrays.mismatch(want, got) + "\n" + from.describe() + to.describe());
        }
        return plan;
    }

    private static CopyPlan plan(final Datatype from, final long count, final long fromAddress, final Datatype to,
        final long toCount, final long toAddress, final long offset, final long length)
    {
        return CopyPlan.of(side(from, count, fromAddress, 0), side(to, toCount, toAddress, 0), offset, length, 0, 0);
    }

    private static CopyPlan.Side side(final Datatype type, final long count, final long address, final long code)
    {
        return new CopyPlan.Side(new TypeShape(type.commit().compiled()), address, count, code);
    }
}

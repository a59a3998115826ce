package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongBinaryOperator;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Request;

/**
 * The few collectives the example needs, built from point-to-point messages of host memory (the API has none): a
 * barrier and all-reductions of small arrays, reduced at rank 0 in rank order and sent back, so that every rank gets
 * the same bits.
 */
final class Collectives
{
    private static final int REDUCE_TAG = 32_001;
    private static final int RESULT_TAG = 32_002;

    private final Communicator comm;

    Collectives(final Communicator comm)
    {
        this.comm = comm;
    }

    void barrier()
    {
        sumLongs(new long[1]);
    }

    /**
     * @return the element-wise sums over the ranks.
     */
    double[] sum(final double[] values)
    {
        return doubles(reduce(bits(values), (a, b) ->
            Double.doubleToRawLongBits(Double.longBitsToDouble(a) + Double.longBitsToDouble(b))));
    }

    /**
     * @return the element-wise maxima over the ranks.
     */
    double[] max(final double[] values)
    {
        return doubles(reduce(bits(values), (a, b) ->
            Double.doubleToRawLongBits(Math.max(Double.longBitsToDouble(a), Double.longBitsToDouble(b)))));
    }

    /**
     * @return the element-wise sums over the ranks, modulo 2^64.
     */
    long[] sumLongs(final long[] values)
    {
        return reduce(values.clone(), Long::sum);
    }

    private long[] reduce(final long[] values, final LongBinaryOperator operator)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(values.length * Long.BYTES).order(ByteOrder.nativeOrder());
        final int count = values.length;
        if (comm.rank() == 0)
        {
            for (int source = 1; source < comm.size(); source++)
            {
                await(comm.irecv(buffer, count, Datatype.LONG, source, REDUCE_TAG));
                for (int i = 0; i < count; i++)
                {
                    values[i] = operator.applyAsLong(values[i], buffer.getLong(i * Long.BYTES));
                }
            }
            write(values, buffer);
            final Request[] sends = new Request[comm.size() - 1];
            for (int destination = 1; destination < comm.size(); destination++)
            {
                sends[destination - 1] = comm.isend(buffer, count, Datatype.LONG, destination, RESULT_TAG);
            }
            HaloContext.awaitAll(sends, "all-reduce results");
            return values;
        }
        write(values, buffer);
        await(comm.isend(buffer, count, Datatype.LONG, 0, REDUCE_TAG));
        await(comm.irecv(buffer, count, Datatype.LONG, 0, RESULT_TAG));
        final long[] result = new long[count];
        for (int i = 0; i < count; i++)
        {
            result[i] = buffer.getLong(i * Long.BYTES);
        }
        return result;
    }

    private static void await(final Request request)
    {
        HaloContext.awaitAll(new Request[] {request}, "all-reduce");
    }

    private static void write(final long[] values, final ByteBuffer buffer)
    {
        for (int i = 0; i < values.length; i++)
        {
            buffer.putLong(i * Long.BYTES, values[i]);
        }
    }

    private static long[] bits(final double[] values)
    {
        final long[] bits = new long[values.length];
        for (int i = 0; i < values.length; i++)
        {
            bits[i] = Double.doubleToRawLongBits(values[i]);
        }
        return bits;
    }

    private static double[] doubles(final long[] bits)
    {
        final double[] values = new double[bits.length];
        for (int i = 0; i < bits.length; i++)
        {
            values[i] = Double.longBitsToDouble(bits[i]);
        }
        return values;
    }
}

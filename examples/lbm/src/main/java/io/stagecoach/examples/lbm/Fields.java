package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;

/**
 * The fields of a rank's block in device memory: two population buffers (the current populations and those being
 * streamed into, swapped every step: parity p's current buffer is {@code pops(p)}, its next {@code pops(1 - p)}) and
 * the order parameter phi. Written and read from the host one component at a time through a staging buffer.
 */
final class Fields implements AutoCloseable
{
    private final Block block;
    private final Allocation[] pops = new Allocation[2];
    private final Allocation phi;
    private final DeviceStream stream;
    private final ByteBuffer staging;

    Fields(final DeviceRuntime device, final Block block)
    {
        this.block = block;
        final long componentBytes = block.cells() * Float.BYTES;
        if (componentBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("block " + block.nx() + "x" + block.ny() + "x" + block.nz() +
                " has more than " + Integer.MAX_VALUE + " bytes in one field");
        }
        this.staging = BufferUtil.allocateDirectAligned((int)componentBytes, 4096).order(ByteOrder.nativeOrder());
        try
        {
            pops[0] = device.allocate(block.populationBytes());
            pops[1] = device.allocate(block.populationBytes());
            phi = device.allocate(componentBytes);
            stream = device.createStream();
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(pops[0], pops[1]);
            throw ex;
        }
    }

    Block block()
    {
        return block;
    }

    /**
     * @param parity of the step.
     * @return the address of the step's current populations.
     */
    long current(final int parity)
    {
        return pops[parity].address();
    }

    /**
     * @param parity of the step.
     * @return the address of the populations the step streams into.
     */
    long next(final int parity)
    {
        return pops[1 - parity].address();
    }

    long phi()
    {
        return phi.address();
    }

    /**
     * @return end of the allocation an address lies in, for the capacity of a message buffer.
     */
    long endOf(final long address)
    {
        for (final Allocation allocation : new Allocation[] {pops[0], pops[1], phi})
        {
            if (address >= allocation.address() && address < allocation.address() + allocation.lengthBytes())
            {
                return allocation.address() + allocation.lengthBytes();
            }
        }
        throw new IllegalArgumentException("0x" + Long.toHexString(address) + " lies in no field");
    }

    /**
     * Sets every element of every field to zero, ghosts included.
     */
    void clear()
    {
        staging.clear();
        while (staging.remaining() >= Long.BYTES)
        {
            staging.putLong(0L);
        }
        while (staging.hasRemaining())
        {
            staging.put((byte)0);
        }
        for (int component = 0; component < Lattice.COMPONENTS; component++)
        {
            copyIn(current(0) + offset(component));
            copyIn(current(1) + offset(component));
        }
        copyIn(phi());
    }

    /**
     * @param populations the buffer, {@link #current(int)} or {@link #next(int)}.
     * @param component   in [0, {@link Lattice#COMPONENTS}).
     * @param values      one float per element of the field, native order, filled by the caller.
     */
    void write(final long populations, final int component, final ByteBuffer values)
    {
        staging.clear();
        staging.put(values.duplicate().clear());
        copyIn(populations + offset(component));
    }

    /**
     * @param populations the buffer, {@link #current(int)} or {@link #next(int)}.
     * @param component   in [0, {@link Lattice#COMPONENTS}).
     * @return the component's elements, native order; valid until the next read or write.
     */
    ByteBuffer read(final long populations, final int component)
    {
        stream.copy(BufferUtil.address(staging), populations + offset(component), staging.capacity());
        stream.synchronize();
        return staging.duplicate().order(ByteOrder.nativeOrder()).clear();
    }

    /**
     * @return a host buffer of one field, native order, for {@link #write(long, int, ByteBuffer)}.
     */
    ByteBuffer hostField()
    {
        return ByteBuffer.allocateDirect(staging.capacity()).order(ByteOrder.nativeOrder());
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(stream, phi, pops[0], pops[1]);
    }

    private long offset(final int component)
    {
        return component * block.cells() * Float.BYTES;
    }

    private void copyIn(final long address)
    {
        stream.copy(address, BufferUtil.address(staging), staging.capacity());
        stream.synchronize();
    }
}

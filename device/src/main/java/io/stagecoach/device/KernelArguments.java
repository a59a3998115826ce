package io.stagecoach.device;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import org.agrona.BufferUtil;

/**
 * The parameters of a kernel launch, in the kernel's order: device addresses, 32- and 64-bit integers, floats and
 * doubles. Each takes an 8-byte slot of a direct buffer, its value at the start of the slot in little-endian order, as
 * a C parameter of that type lies in memory; beside the slots lies the array of their addresses that
 * {@code cuLaunchKernel} reads as {@code kernelParams}. Built once and launched as often as needed: a launch reads the
 * values before it returns, so the same arguments may be changed and launched again at once.
 * <p>
 * The emulated device gives a kernel's Java body a copy taken at the launch, read with {@link #longAt(int)},
 * {@link #intAt(int)}, {@link #floatAt(int)} and {@link #doubleAt(int)}. Not thread safe.
 */
public final class KernelArguments
{
    /**
     * Most parameters of one launch.
     */
    public static final int MAX_ARGUMENTS = 48;

    private static final int SLOT_BYTES = 8;
    private static final int POINTERS_OFFSET = MAX_ARGUMENTS * SLOT_BYTES;

    private final long[] values;
    private final char[] kinds;
    private final ByteBuffer buffer;
    private int count;

    /**
     * Empty arguments.
     */
    public KernelArguments()
    {
        values = new long[MAX_ARGUMENTS];
        kinds = new char[MAX_ARGUMENTS];
        buffer = BufferUtil.allocateDirectAligned(2 * POINTERS_OFFSET, 64).order(ByteOrder.LITTLE_ENDIAN);
        final long slots = BufferUtil.address(buffer);
        for (int i = 0; i < MAX_ARGUMENTS; i++)
        {
            buffer.putLong(POINTERS_OFFSET + i * SLOT_BYTES, slots + (long)i * SLOT_BYTES);
        }
    }

    private KernelArguments(final KernelArguments original)
    {
        values = Arrays.copyOf(original.values, original.count);
        kinds = Arrays.copyOf(original.kinds, original.count);
        buffer = null;
        count = original.count;
    }

    /**
     * Forget every argument.
     *
     * @return this.
     */
    public KernelArguments clear()
    {
        count = 0;
        return this;
    }

    /**
     * @param address a device address (a pointer parameter).
     * @return this.
     */
    public KernelArguments address(final long address)
    {
        return add('p', address);
    }

    /**
     * @param value of an {@code int} parameter.
     * @return this.
     */
    public KernelArguments i32(final int value)
    {
        return add('i', value & 0xFFFF_FFFFL);
    }

    /**
     * @param value of a {@code long long} parameter.
     * @return this.
     */
    public KernelArguments i64(final long value)
    {
        return add('l', value);
    }

    /**
     * @param value of a {@code float} parameter.
     * @return this.
     */
    public KernelArguments f32(final float value)
    {
        return add('f', Float.floatToRawIntBits(value) & 0xFFFF_FFFFL);
    }

    /**
     * @param value of a {@code double} parameter.
     * @return this.
     */
    public KernelArguments f64(final double value)
    {
        return add('d', Double.doubleToRawLongBits(value));
    }

    /**
     * @return parameters given so far.
     */
    public int count()
    {
        return count;
    }

    /**
     * @param index of a parameter given by {@link #address(long)} or {@link #i64(long)}.
     * @return its value.
     */
    public long longAt(final int index)
    {
        check(index, 'p', 'l');
        return values[index];
    }

    /**
     * @param index of a parameter given by {@link #i32(int)}.
     * @return its value.
     */
    public int intAt(final int index)
    {
        check(index, 'i', 'i');
        return (int)values[index];
    }

    /**
     * @param index of a parameter given by {@link #f32(float)}.
     * @return its value.
     */
    public float floatAt(final int index)
    {
        check(index, 'f', 'f');
        return Float.intBitsToFloat((int)values[index]);
    }

    /**
     * @param index of a parameter given by {@link #f64(double)}.
     * @return its value.
     */
    public double doubleAt(final int index)
    {
        check(index, 'd', 'd');
        return Double.longBitsToDouble(values[index]);
    }

    /**
     * @return a copy of the values, for a launch that runs later (the emulated device's); it cannot be launched.
     */
    public KernelArguments copy()
    {
        return new KernelArguments(this);
    }

    /**
     * For back ends: where the array of the parameters' addresses lies ({@code kernelParams} of
     * {@code cuLaunchKernel}), valid while this object lives.
     *
     * @return its address.
     */
    public long parameterArrayAddress()
    {
        if (buffer == null)
        {
            throw new IllegalStateException("a copy of kernel arguments cannot be launched");
        }
        return BufferUtil.address(buffer) + POINTERS_OFFSET;
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < count; i++)
        {
            text.append(i == 0 ? "" : ", ").append(describe(i));
        }
        return text.append(')').toString();
    }

    private KernelArguments add(final char kind, final long value)
    {
        if (buffer == null)
        {
            throw new IllegalStateException("a copy of kernel arguments cannot be changed");
        }
        if (count == MAX_ARGUMENTS)
        {
            throw new IllegalArgumentException("a kernel takes at most " + MAX_ARGUMENTS + " arguments here");
        }
        values[count] = value;
        kinds[count] = kind;
        buffer.putLong(count * SLOT_BYTES, value);
        count++;
        return this;
    }

    private void check(final int index, final char kind, final char otherKind)
    {
        if (index < 0 || index >= count)
        {
            throw new IndexOutOfBoundsException("argument " + index + " outside [0, " + count + ")");
        }
        if (kinds[index] != kind && kinds[index] != otherKind)
        {
            throw new IllegalArgumentException("argument " + index + " is " + describe(index) + ", not of kind " +
                kind);
        }
    }

    private String describe(final int index)
    {
        return switch (kinds[index])
        {
            case 'p' -> "0x" + Long.toHexString(values[index]);
            case 'i' -> Integer.toString((int)values[index]);
            case 'f' -> Float.intBitsToFloat((int)values[index]) + "f";
            case 'd' -> Double.toString(Double.longBitsToDouble(values[index]));
            default -> values[index] + "L";
        };
    }
}

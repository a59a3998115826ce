package io.stagecoach.protocol.datatype;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.Buffer;

/**
 * Raw memory access through {@code sun.misc.Unsafe} (module jdk.unsupported), reached through constant method
 * handles so that the sources need neither {@code --add-exports} nor a reference to the proprietary type, which
 * the compiler would flag. The JIT inlines the constant handles into plain loads, stores and copies.
 * <p>
 * Every access takes an object base and an offset: {@code null} and a raw address for off-heap memory, an array
 * and {@link #BYTE_ARRAY_BASE_OFFSET} plus an index for a {@code byte[]}.
 */
final class Memory
{
    static final long BYTE_ARRAY_BASE_OFFSET;
    static final long BUFFER_ADDRESS_FIELD_OFFSET;

    private static final MethodHandle COPY_MEMORY;
    private static final MethodHandle GET_BYTE;
    private static final MethodHandle PUT_BYTE;
    private static final MethodHandle GET_SHORT;
    private static final MethodHandle PUT_SHORT;
    private static final MethodHandle GET_INT;
    private static final MethodHandle PUT_INT;
    private static final MethodHandle GET_LONG;
    private static final MethodHandle PUT_LONG;

    static
    {
        try
        {
            final Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            final Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            final Object unsafe = theUnsafe.get(null);
            final MethodHandles.Lookup lookup = MethodHandles.lookup();

            COPY_MEMORY = bind(lookup, unsafeClass, unsafe, "copyMemory", MethodType.methodType(
                void.class, Object.class, long.class, Object.class, long.class, long.class));
            GET_BYTE = getter(lookup, unsafeClass, unsafe, "getByte", byte.class);
            PUT_BYTE = putter(lookup, unsafeClass, unsafe, "putByte", byte.class);
            GET_SHORT = getter(lookup, unsafeClass, unsafe, "getShort", short.class);
            PUT_SHORT = putter(lookup, unsafeClass, unsafe, "putShort", short.class);
            GET_INT = getter(lookup, unsafeClass, unsafe, "getInt", int.class);
            PUT_INT = putter(lookup, unsafeClass, unsafe, "putInt", int.class);
            GET_LONG = getter(lookup, unsafeClass, unsafe, "getLong", long.class);
            PUT_LONG = putter(lookup, unsafeClass, unsafe, "putLong", long.class);

            final MethodHandle arrayBaseOffset = bind(
                lookup, unsafeClass, unsafe, "arrayBaseOffset", MethodType.methodType(int.class, Class.class));
            BYTE_ARRAY_BASE_OFFSET = (int)arrayBaseOffset.invokeExact((Class<?>)byte[].class);
            final MethodHandle objectFieldOffset = bind(
                lookup, unsafeClass, unsafe, "objectFieldOffset", MethodType.methodType(long.class, Field.class));
            BUFFER_ADDRESS_FIELD_OFFSET =
                (long)objectFieldOffset.invokeExact(Buffer.class.getDeclaredField("address"));
        }
        catch (final Throwable ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private Memory()
    {
    }

    static void copy(final Object srcBase, final long srcOffset, final Object dstBase, final long dstOffset,
        final long lengthBytes)
    {
        try
        {
            COPY_MEMORY.invokeExact(srcBase, srcOffset, dstBase, dstOffset, lengthBytes);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static byte getByte(final Object base, final long offset)
    {
        try
        {
            return (byte)GET_BYTE.invokeExact(base, offset);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void putByte(final Object base, final long offset, final byte value)
    {
        try
        {
            PUT_BYTE.invokeExact(base, offset, value);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static short getShort(final Object base, final long offset)
    {
        try
        {
            return (short)GET_SHORT.invokeExact(base, offset);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void putShort(final Object base, final long offset, final short value)
    {
        try
        {
            PUT_SHORT.invokeExact(base, offset, value);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int getInt(final Object base, final long offset)
    {
        try
        {
            return (int)GET_INT.invokeExact(base, offset);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void putInt(final Object base, final long offset, final int value)
    {
        try
        {
            PUT_INT.invokeExact(base, offset, value);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static long getLong(final Object base, final long offset)
    {
        try
        {
            return (long)GET_LONG.invokeExact(base, offset);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static void putLong(final Object base, final long offset, final long value)
    {
        try
        {
            PUT_LONG.invokeExact(base, offset, value);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static long directAddress(final Buffer buffer)
    {
        return getLong(buffer, BUFFER_ADDRESS_FIELD_OFFSET);
    }

    private static MethodHandle getter(
        final MethodHandles.Lookup lookup, final Class<?> type, final Object unsafe, final String name,
        final Class<?> valueType) throws ReflectiveOperationException
    {
        return bind(lookup, type, unsafe, name, MethodType.methodType(valueType, Object.class, long.class));
    }

    private static MethodHandle putter(
        final MethodHandles.Lookup lookup, final Class<?> type, final Object unsafe, final String name,
        final Class<?> valueType) throws ReflectiveOperationException
    {
        return bind(lookup, type, unsafe, name, MethodType.methodType(void.class, Object.class, long.class,
            valueType));
    }

    private static MethodHandle bind(
        final MethodHandles.Lookup lookup, final Class<?> type, final Object unsafe, final String name,
        final MethodType methodType) throws ReflectiveOperationException
    {
        return lookup.findVirtual(type, name, methodType).bindTo(unsafe);
    }

    private static RuntimeException rethrow(final Throwable ex)
    {
        if (ex instanceof RuntimeException)
        {
            return (RuntimeException)ex;
        }
        if (ex instanceof Error)
        {
            throw (Error)ex;
        }
        return new IllegalStateException(ex);
    }
}

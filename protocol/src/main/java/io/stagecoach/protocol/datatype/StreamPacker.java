package io.stagecoach.protocol.datatype;

import java.nio.ByteBuffer;

import io.stagecoach.protocol.ErrorClass;

/**
 * MPI_PACK, MPI_UNPACK and MPI_PACK_SIZE: whole instances of a committed type into and out of a packed stream at a
 * position that advances, on raw addresses or on ByteBuffers. Every check runs before a byte moves and fails with a
 * {@link DatatypeException} naming the value and its limit.
 */
final class StreamPacker
{
    private StreamPacker()
    {
    }

    static long packSize(final String name, final long sizeBytes, final long count)
    {
        if (count < 0)
        {
            throw new DatatypeException(ErrorClass.COUNT, "count " + count + " of " + name + " is negative");
        }
        if (sizeBytes != 0 && count > Long.MAX_VALUE / sizeBytes)
        {
            throw new DatatypeException(ErrorClass.COUNT, "count " + count + " of " + name + " (" + sizeBytes +
                " packed bytes each) overflows the long limit " + Long.MAX_VALUE + " of packed bytes: the count " +
                "must be <= " + Long.MAX_VALUE / sizeBytes);
        }
        return count * sizeBytes;
    }

    static long pack(final Datatype type, final long inAddress, final long count, final long outAddress,
        final long outsizeBytes, final long position)
    {
        final CompiledType compiled = type.compiled();
        final long bytes = packSize(type.toString(), compiled.size(), count);
        checkRoom("pack", "outsize", type, count, bytes, outsizeBytes, position);
        compiled.pack(inAddress, count, 0, bytes, outAddress + position);
        return position + bytes;
    }

    static long unpack(final Datatype type, final long inAddress, final long insizeBytes, final long position,
        final long outAddress, final long count)
    {
        final CompiledType compiled = type.compiled();
        final long bytes = packSize(type.toString(), compiled.size(), count);
        checkRoom("unpack", "insize", type, count, bytes, insizeBytes, position);
        compiled.unpack(inAddress + position, count, 0, bytes, outAddress);
        return position + bytes;
    }

    static void pack(final Datatype type, final ByteBuffer in, final int inIndex, final long count,
        final ByteBuffer out)
    {
        final CompiledType compiled = type.compiled();
        final long bytes = packSize(type.toString(), compiled.size(), count);
        checkTyped("pack", compiled, in, inIndex, count, bytes);
        checkWritable("pack", "packed", out);
        checkRoom("pack", "limit", type, count, bytes, out.limit(), out.position());
        compiled.pack(in, inIndex, count, 0, bytes, out, out.position());
        out.position(out.position() + (int)bytes);
    }

    static void unpack(final Datatype type, final ByteBuffer in, final ByteBuffer out, final int outIndex,
        final long count)
    {
        final CompiledType compiled = type.compiled();
        final long bytes = packSize(type.toString(), compiled.size(), count);
        checkAccessible("unpack", "packed", in);
        checkRoom("unpack", "limit", type, count, bytes, in.limit(), in.position());
        checkTyped("unpack", compiled, out, outIndex, count, bytes);
        checkWritable("unpack", "typed", out);
        compiled.unpack(in, in.position(), count, 0, bytes, out, outIndex);
        in.position(in.position() + (int)bytes);
    }

    private static void checkRoom(final String operation, final String limitName, final Datatype type,
        final long count, final long bytes, final long limit, final long position)
    {
        if (limit < 0)
        {
            throw new DatatypeException(ErrorClass.SIZE, operation + ": " + limitName + " " + limit +
                " is negative");
        }
        if (position < 0 || position > limit)
        {
            throw new DatatypeException(ErrorClass.ARG, operation + ": position " + position + " is outside [0, " +
                limit + "] (" + limitName + " " + limit + ")");
        }
        if (bytes > limit - position)
        {
            throw new DatatypeException(ErrorClass.TRUNCATE, operation + ": " + count + " x " + type + " take " +
                bytes + " packed bytes but " + limitName + " " + limit + " leaves " + (limit - position) +
                " after position " + position);
        }
    }

    private static void checkTyped(final String operation, final CompiledType compiled, final ByteBuffer typed,
        final int index, final long count, final long bytes)
    {
        checkAccessible(operation, "typed", typed);
        if (bytes == 0)
        {
            return;
        }
        final long low = index + compiled.dataLowBytes(count);
        final long high = index + compiled.dataHighBytes(count);
        if (low < 0 || high > typed.capacity())
        {
            throw new DatatypeException(ErrorClass.BUFFER, operation + ": typed buffer of " + typed.capacity() +
                " bytes with displacement 0 at index " + index + " cannot hold " + count + " x " + compiled.name() +
                ": its data spans bytes [" + low + ", " + high + ")");
        }
    }

    private static void checkAccessible(final String operation, final String which, final ByteBuffer buffer)
    {
        if (!buffer.isDirect() && !buffer.hasArray())
        {
            throw new DatatypeException(ErrorClass.BUFFER, operation + ": the " + which + " buffer is a heap " +
                "buffer without an accessible array (read-only?); use a direct buffer or a writable heap buffer");
        }
    }

    private static void checkWritable(final String operation, final String which, final ByteBuffer buffer)
    {
        if (buffer.isReadOnly())
        {
            throw new DatatypeException(ErrorClass.BUFFER, operation + ": the " + which + " buffer is read-only");
        }
        checkAccessible(operation, which, buffer);
    }
}

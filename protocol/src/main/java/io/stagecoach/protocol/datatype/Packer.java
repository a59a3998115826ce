package io.stagecoach.protocol.datatype;

import static io.stagecoach.protocol.datatype.CompiledType.CHILD;
import static io.stagecoach.protocol.datatype.CompiledType.COUNT;
import static io.stagecoach.protocol.datatype.CompiledType.KIND;
import static io.stagecoach.protocol.datatype.CompiledType.KIND_BLOCK;
import static io.stagecoach.protocol.datatype.CompiledType.KIND_VECTOR;
import static io.stagecoach.protocol.datatype.CompiledType.NODE_LONGS;
import static io.stagecoach.protocol.datatype.CompiledType.OFFSET;
import static io.stagecoach.protocol.datatype.CompiledType.PACKED;
import static io.stagecoach.protocol.datatype.CompiledType.STRIDE;

/**
 * Copies a packed byte range between a typed buffer and a packed buffer by walking the encoded node tree. The
 * walk descends once to the start of the range and then copies whole elements: a VECTOR of BLOCKs and a VECTOR of
 * VECTORs of BLOCKs run as strided loops with word-sized loads and stores, larger blocks as memory copies. Nothing
 * is allocated and there are no virtual calls per element.
 * <p>
 * Addresses are (base object, offset) pairs as taken by {@link Memory}; {@code pack} chooses the direction.
 */
final class Packer
{
    private static final long SMALL_BLOCK_BYTES = 64;

    private Packer()
    {
    }

    /**
     * Transfers packed bytes [from, to) of instances of the root spaced {@code extentBytes} apart, counted from
     * instance 0 at {@code typedAddress}.
     */
    static void transfer(final long[] code, final long extentBytes, final long from, final long to,
        final Object typedBase, final long typedAddress, final Object packedBase, final long packedAddress,
        final boolean pack)
    {
        if (from < to)
        {
            vectorRange(code, 0, typedAddress, extentBytes, from, to, typedBase, packedBase, packedAddress, pack);
        }
    }

    private static void node(final long[] code, final int index, final long base, final long from, final long to,
        final Object typedBase, final Object packedBase, final long packed, final boolean pack)
    {
        final int record = index * NODE_LONGS;
        final long address = base + code[record + OFFSET];
        final long kind = code[record + KIND];
        if (kind == KIND_BLOCK)
        {
            copy(typedBase, address + from, packedBase, packed, to - from, pack);
        }
        else if (kind == KIND_VECTOR)
        {
            vectorRange(code, (int)code[record + CHILD], address, code[record + STRIDE], from, to,
                typedBase, packedBase, packed, pack);
        }
        else
        {
            sequence(code, record, address, from, to, typedBase, packedBase, packed, pack);
        }
    }

    private static void sequence(final long[] code, final int record, final long address, final long from,
        final long to, final Object typedBase, final Object packedBase, final long packed, final boolean pack)
    {
        final int table = (int)code[record + STRIDE];
        final int children = (int)code[record + COUNT];
        int low = 0;
        int high = children - 1;
        while (low < high)
        {
            final int mid = (low + high + 1) >>> 1;
            if (code[table + 2 * mid + 1] <= from)
            {
                low = mid;
            }
            else
            {
                high = mid - 1;
            }
        }
        for (int j = low; j < children; j++)
        {
            final long prefix = code[table + 2 * j + 1];
            if (prefix >= to)
            {
                break;
            }
            final int child = (int)code[table + 2 * j];
            final long childFrom = Math.max(from - prefix, 0);
            final long childTo = Math.min(to - prefix, code[child * NODE_LONGS + PACKED]);
            if (childFrom < childTo)
            {
                node(code, child, address, childFrom, childTo, typedBase, packedBase,
                    packed + prefix + childFrom - from, pack);
            }
        }
    }

    private static void vectorRange(final long[] code, final int child, final long address, final long strideBytes,
        final long from, final long to, final Object typedBase, final Object packedBase, final long packed,
        final boolean pack)
    {
        final long elementBytes = code[child * NODE_LONGS + PACKED];
        long k = from / elementBytes;
        long position = from;
        long cursor = packed;
        final long offsetInElement = from - k * elementBytes;
        if (offsetInElement != 0 || to - from < elementBytes)
        {
            final long end = Math.min(elementBytes, offsetInElement + (to - from));
            node(code, child, address + k * strideBytes, offsetInElement, end, typedBase, packedBase, cursor, pack);
            cursor += end - offsetInElement;
            position += end - offsetInElement;
            k++;
            if (position == to)
            {
                return;
            }
        }
        final long kEnd = to / elementBytes;
        if (kEnd > k)
        {
            elements(code, child, address + k * strideBytes, strideBytes, kEnd - k, typedBase, packedBase, cursor,
                pack);
            cursor += (kEnd - k) * elementBytes;
        }
        final long rest = to - kEnd * elementBytes;
        if (rest > 0)
        {
            node(code, child, address + kEnd * strideBytes, 0, rest, typedBase, packedBase, cursor, pack);
        }
    }

    /**
     * Transfers {@code n} whole elements of node {@code index}, element e based at address + e * strideBytes.
     */
    private static void elements(final long[] code, final int index, final long address, final long strideBytes,
        final long n, final Object typedBase, final Object packedBase, final long packed, final boolean pack)
    {
        final int record = index * NODE_LONGS;
        final long kind = code[record + KIND];
        final long elementBytes = code[record + PACKED];
        final long start = address + code[record + OFFSET];
        if (kind == KIND_BLOCK)
        {
            strided(typedBase, start, strideBytes, packedBase, packed, elementBytes, n, pack);
        }
        else if (kind == KIND_VECTOR)
        {
            final int child = (int)code[record + CHILD];
            final long innerCount = code[record + COUNT];
            final long innerStride = code[record + STRIDE];
            for (long e = 0; e < n; e++)
            {
                elements(code, child, start + e * strideBytes, innerStride, innerCount, typedBase, packedBase,
                    packed + e * elementBytes, pack);
            }
        }
        else
        {
            for (long e = 0; e < n; e++)
            {
                sequence(code, record, start + e * strideBytes, 0, elementBytes, typedBase, packedBase,
                    packed + e * elementBytes, pack);
            }
        }
    }

    private static void strided(final Object typedBase, final long typed, final long strideBytes,
        final Object packedBase, final long packed, final long lengthBytes, final long n, final boolean pack)
    {
        if (pack)
        {
            gather(typedBase, typed, strideBytes, packedBase, packed, lengthBytes, lengthBytes, n);
        }
        else
        {
            gather(packedBase, packed, lengthBytes, typedBase, typed, strideBytes, lengthBytes, n);
        }
    }

    private static void copy(final Object typedBase, final long typed, final Object packedBase, final long packed,
        final long lengthBytes, final boolean pack)
    {
        if (pack)
        {
            gather(typedBase, typed, lengthBytes, packedBase, packed, lengthBytes, lengthBytes, 1);
        }
        else
        {
            gather(packedBase, packed, lengthBytes, typedBase, typed, lengthBytes, lengthBytes, 1);
        }
    }

    /**
     * Copies n blocks of lengthBytes from src + e * srcStride to dst + e * dstStride, natively where
     * {@link NativeCopier#takes} says so.
     */
    static void gather(final Object srcBase, final long src, final long srcStride, final Object dstBase,
        final long dst, final long dstStride, final long lengthBytes, final long n)
    {
        if (NativeCopier.takes(srcBase, dstBase, lengthBytes, n))
        {
            NativeCopier.gather(srcBase, src, srcStride, dstBase, dst, dstStride, lengthBytes, n);
        }
        else if (srcStride == lengthBytes && dstStride == lengthBytes)
        {
            Memory.copy(srcBase, src, dstBase, dst, lengthBytes * n);
        }
        else if (lengthBytes == 4)
        {
            for (long e = 0; e < n; e++)
            {
                Memory.putInt(dstBase, dst + e * dstStride, Memory.getInt(srcBase, src + e * srcStride));
            }
        }
        else if (lengthBytes == 8)
        {
            for (long e = 0; e < n; e++)
            {
                Memory.putLong(dstBase, dst + e * dstStride, Memory.getLong(srcBase, src + e * srcStride));
            }
        }
        else if (lengthBytes > SMALL_BLOCK_BYTES)
        {
            for (long e = 0; e < n; e++)
            {
                Memory.copy(srcBase, src + e * srcStride, dstBase, dst + e * dstStride, lengthBytes);
            }
        }
        else
        {
            for (long e = 0; e < n; e++)
            {
                small(srcBase, src + e * srcStride, dstBase, dst + e * dstStride, lengthBytes);
            }
        }
    }

    private static void small(final Object srcBase, final long src, final Object dstBase, final long dst,
        final long lengthBytes)
    {
        long i = 0;
        for (; i + 8 <= lengthBytes; i += 8)
        {
            Memory.putLong(dstBase, dst + i, Memory.getLong(srcBase, src + i));
        }
        if (i + 4 <= lengthBytes)
        {
            Memory.putInt(dstBase, dst + i, Memory.getInt(srcBase, src + i));
            i += 4;
        }
        if (i + 2 <= lengthBytes)
        {
            Memory.putShort(dstBase, dst + i, Memory.getShort(srcBase, src + i));
            i += 2;
        }
        if (i < lengthBytes)
        {
            Memory.putByte(dstBase, dst + i, Memory.getByte(srcBase, src + i));
        }
    }
}

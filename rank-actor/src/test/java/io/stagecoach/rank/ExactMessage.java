package io.stagecoach.rank;

import java.nio.ByteBuffer;

import io.stagecoach.device.RandomTypes;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.BufferUtil;

/**
 * A message of an exact number of packed bytes in a random layout: one instance of a struct of {@code k} instances of
 * a random datatype from {@link RandomTypes} (dense enough that a large message spans at most eight times its packed
 * bytes, its instances apart) and a tail of the remaining bytes in blocks with random gaps, all at displacements of at
 * least 0; when the message spans more than a chunk, some block of it straddles a chunk boundary.
 *
 * @param type      the committed datatype.
 * @param count     instances: 1, or 0 for an empty message.
 * @param spanBytes bytes from displacement 0 that hold the data.
 */
record ExactMessage(Datatype type, long count, int spanBytes)
{
    private static final int ATTEMPTS = 10_000;
    private static final int DENSITY = 8;

    /**
     * @param random      the seeded generator.
     * @param packedBytes bytes of the packed message.
     * @param chunkBytes  bytes of a chunk, for the straddling block.
     * @return the message.
     */
    static ExactMessage of(final RandomTypes random, final long packedBytes, final long chunkBytes)
    {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            final Datatype element = random.next();
            if (element.extent() < element.trueExtent() || element.extent() > DENSITY * element.size() ||
                !RandomTypes.isNonOverlapping(element.compiled(), 2))
            {
                continue;
            }
            if (packedBytes == 0)
            {
                return new ExactMessage(element, 0, 0);
            }
            final ExactMessage message = build(random, element, packedBytes);
            if (packedBytes <= chunkBytes || straddles(message.type.compiled(), packedBytes, chunkBytes))
            {
                return message;
            }
        }
        throw new IllegalStateException("no message of " + packedBytes + " bytes after " + ATTEMPTS + " attempts");
    }

    /**
     * @return one contiguous block of {@code packedBytes} bytes at displacement 0.
     */
    static ExactMessage contiguous(final int packedBytes)
    {
        return new ExactMessage(Datatype.contiguous(packedBytes, Datatype.BYTE).commit(), 1, packedBytes);
    }

    /**
     * @return {@code blocks} blocks of {@code blockBytes} bytes, {@code strideBytes} apart, from displacement 0.
     */
    static ExactMessage strided(final int blocks, final int blockBytes, final int strideBytes)
    {
        return new ExactMessage(Datatype.vector(blocks, blockBytes, strideBytes, Datatype.BYTE).commit(), 1,
            (blocks - 1) * strideBytes + blockBytes);
    }

    /**
     * @return a direct buffer of the span with the bytes a buffer that held {@code before} holds once the message
     * packed from {@code source} is unpacked into it.
     */
    ByteBuffer unpackedInto(final ByteBuffer source, final ByteBuffer before)
    {
        return receivedAs(this, source, before);
    }

    /**
     * @return a direct buffer of the receive's span with the bytes a buffer that held {@code before} holds once this
     * message packed from {@code source} is unpacked into it as {@code receive}, a message of the same packed size.
     */
    ByteBuffer receivedAs(final ExactMessage receive, final ByteBuffer source, final ByteBuffer before)
    {
        final long packedBytes = count * type.size();
        final ByteBuffer packed = ByteBuffer.allocateDirect((int)Math.max(1, packedBytes));
        final ByteBuffer after = ByteBuffer.allocateDirect(before.capacity());
        after.put(before.duplicate().clear()).clear();
        type.compiled().pack(BufferUtil.address(source), count, 0, packedBytes, BufferUtil.address(packed));
        receive.type.compiled().unpack(BufferUtil.address(packed), receive.count, 0, packedBytes,
            BufferUtil.address(after));
        return after;
    }

    private static ExactMessage build(final RandomTypes random, final Datatype element, final long packedBytes)
    {
        final long instances = packedBytes / element.size();
        final int tailBytes = (int)(packedBytes % element.size());
        final int fields = (instances > 0 ? 1 : 0) + (tailBytes > 0 ? 1 : 0);
        final long[] lengths = new long[fields];
        final long[] displacements = new long[fields];
        final Datatype[] types = new Datatype[fields];
        long end = random.nextInt(64);
        int field = 0;
        if (instances > 0)
        {
            final Datatype body = Datatype.contiguous(instances, element).commit();
            lengths[field] = 1;
            displacements[field] = end - body.trueLb();
            types[field++] = body;
            end += body.trueExtent();
        }
        if (tailBytes > 0)
        {
            final Datatype tail = tail(random, tailBytes);
            end += random.nextInt(16);
            lengths[field] = 1;
            displacements[field] = end - tail.trueLb();
            types[field] = tail;
            end += tail.trueExtent();
        }
        final Datatype type = Datatype.struct(lengths, displacements, types).commit();
        return new ExactMessage(type, 1, (int)(end + random.nextInt(64)));
    }

    private static Datatype tail(final RandomTypes random, final int bytes)
    {
        final int blocks = 1 + random.nextInt(Math.min(bytes, 64));
        final int[] lengths = new int[blocks];
        final int[] displacements = new int[blocks];
        int extraLeft = bytes - blocks;
        int next = random.nextInt(8);
        for (int i = 0; i < blocks; i++)
        {
            final int extra = i == blocks - 1 ? extraLeft :
                Math.min(extraLeft, random.nextInt(2 * extraLeft / (blocks - i) + 1));
            extraLeft -= extra;
            lengths[i] = 1 + extra;
            displacements[i] = next;
            next += lengths[i] + random.nextInt(16);
        }
        return Datatype.indexed(lengths, displacements, Datatype.BYTE).commit();
    }

    private static boolean straddles(final CompiledType type, final long packedBytes, final long chunkBytes)
    {
        final boolean[] found = { false };
        type.forEachSegment(1, 0, packedBytes, (displacement, packedOffset, length) ->
        {
            if (packedOffset / chunkBytes != (packedOffset + length - 1) / chunkBytes)
            {
                found[0] = true;
            }
        });
        return found[0];
    }
}

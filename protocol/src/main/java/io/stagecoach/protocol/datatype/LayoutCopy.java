package io.stagecoach.protocol.datatype;

/**
 * Copies a byte range of the packed stream from one layout into another on the host, {@link #PIECE_BYTES} at a time
 * through a buffer of the calling thread that stays in its cache: each piece packed out of the source's layout, then
 * unpacked into the destination's. Walking both layouts' segments side by side and copying each piece once leaves out
 * that buffer but pays a callback per segment on each side, which costs more than the second pass over cached bytes
 * wherever blocks are short (48 MiB in blocks of 1 / 4 / 64 / 1024 bytes, 2-core development machine: 2304 / 492 /
 * 68 / 27 ms against 234 / 33 / 16 / 12 ms through the buffer) and no less where they are long: the pack and unpack
 * loops are specialised for short blocks, and long rows go to native code.
 */
final class LayoutCopy
{
    static final int PIECE_BYTES = 64 * 1024;
    private static final ThreadLocal<byte[]> PIECE = ThreadLocal.withInitial(() -> new byte[PIECE_BYTES]);

    private LayoutCopy()
    {
    }

    static void copy(
        final CompiledType from, final long srcAddress, final long count, final long packedOffset,
        final long lengthBytes, final CompiledType to, final long dstAddress, final long toCount)
    {
        final byte[] piece = PIECE.get();
        final long end = packedOffset + lengthBytes;
        for (long at = packedOffset; at < end; at += PIECE_BYTES)
        {
            final long bytes = Math.min(PIECE_BYTES, end - at);
            from.transfer(null, srcAddress, count, at, bytes, piece, Memory.BYTE_ARRAY_BASE_OFFSET, true);
            to.transfer(null, dstAddress, toCount, at, bytes, piece, Memory.BYTE_ARRAY_BASE_OFFSET, false);
        }
    }
}

package io.stagecoach.protocol.wire;

import java.nio.ByteBuffer;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireCodecTest
{
    private static final int OFFSET = 24;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));

    @Test
    void shouldRoundTripAShortEagerMessageInOneLineWithItsFrame()
    {
        final ShortEagerFlyweight eager = new ShortEagerFlyweight();
        final int length = ShortEagerFlyweight.HEADER_LENGTH + 8;
        eager.wrap(buffer, OFFSET, length).write(3, 42, 0x1_0000_0007L, 0x1234_5678_9ABC_DEF0L, 2);
        buffer.putLong(OFFSET + ShortEagerFlyweight.HEADER_LENGTH, 99L);
        assertNull(MessageHeaderFlyweight.validate(buffer, OFFSET, length));
        assertEquals(32 + length, 64, "Aeron's 32-byte frame header and the message fill one cache line");

        final ShortEagerFlyweight read = new ShortEagerFlyweight().wrap(buffer, OFFSET, length);
        assertEquals(3, read.contextId());
        assertEquals(42, read.tag());
        assertEquals(0x1_0000_0007L, read.sequence(0x1_0000_0007L));
        assertEquals(0x2_0000_0007L, read.sequence(0x2_0000_0007L), "the high bits come from the sequence due");
        assertEquals(0x1234_5678_9ABC_DEF0L, read.signatureHash());
        assertEquals(2, read.signatureLength());
        assertEquals(8, read.payloadLength());
        assertEquals(99L, buffer.getLong(OFFSET + ShortEagerFlyweight.HEADER_LENGTH));
        assertTrue(WireDump.describe(buffer, OFFSET, length).startsWith("EAGER_SHORT ctx=3 tag=42 seq32=7 bytes=8"),
            WireDump.describe(buffer, OFFSET, length));

        assertTrue(MessageHeaderFlyweight.validate(buffer, OFFSET, length + 1).contains("longer than 32"));
        assertTrue(MessageHeaderFlyweight.validate(buffer, OFFSET, 20).contains("shorter"));
        assertTrue(ShortEagerFlyweight.fits(8, 255));
        assertTrue(!ShortEagerFlyweight.fits(9, 1) && !ShortEagerFlyweight.fits(8, 256));
    }

    @Test
    void shouldRoundTripEagerEnvelopeWithPayload()
    {
        final EnvelopeFlyweight encoder = new EnvelopeFlyweight().wrap(buffer, OFFSET);
        encoder.header(MessageType.EAGER, EnvelopeFlyweight.FLAG_SYNC);
        encoder.sourceRank(3);
        encoder.destinationRank(1);
        encoder.creditBytes(4096);
        encoder.contextId(5).tag(Integer.MAX_VALUE).sequence(Long.MAX_VALUE - 1).transferId(77).packedBytes(8)
            .putSignature(new long[]{ 0x1234_5678_9ABCL, 2, 8 }, 0);
        encoder.buffer().putLong(encoder.payloadOffset(), 0xCAFE_BABE_DEAD_BEEFL);

        final EnvelopeFlyweight decoder = new EnvelopeFlyweight().wrap(buffer, OFFSET, encoder.encodedLength());
        assertEquals(MessageHeaderFlyweight.CURRENT_VERSION, decoder.version());
        assertEquals(MessageType.EAGER, decoder.type());
        assertEquals(EnvelopeFlyweight.FLAG_SYNC, decoder.flags());
        assertEquals(3, decoder.sourceRank());
        assertEquals(1, decoder.destinationRank());
        assertEquals(4096, decoder.creditBytes());
        assertEquals(5, decoder.contextId());
        assertEquals(Integer.MAX_VALUE, decoder.tag());
        assertEquals(Long.MAX_VALUE - 1, decoder.sequence());
        assertEquals(77, decoder.transferId());
        assertEquals(8, decoder.packedBytes());
        final long[] signature = new long[4];
        decoder.getSignature(signature, 1);
        assertEquals(0x1234_5678_9ABCL, signature[1]);
        assertEquals(2, signature[2]);
        assertEquals(8, signature[3]);
        assertEquals(0xCAFE_BABE_DEAD_BEEFL, decoder.buffer().getLong(decoder.payloadOffset()));
        assertEquals(EnvelopeFlyweight.HEADER_LENGTH + 8, decoder.encodedLength());
        assertNull(MessageHeaderFlyweight.validate(buffer, OFFSET, decoder.encodedLength()));
    }

    @Test
    void shouldEncodeRtsWithoutPayload()
    {
        final EnvelopeFlyweight rts = new EnvelopeFlyweight().wrap(buffer, 0);
        rts.header(MessageType.RTS, 0);
        rts.packedBytes(1L << 40);
        assertEquals(EnvelopeFlyweight.HEADER_LENGTH, rts.encodedLength());
        assertNull(MessageHeaderFlyweight.validate(buffer, 0, EnvelopeFlyweight.HEADER_LENGTH));
        assertEquals(1L << 40, new EnvelopeFlyweight().wrap(buffer, 0).packedBytes());

        rts.signature(7, 8, 9);
        assertEquals(7, rts.signature(0));
        assertEquals(8, rts.signature(1));
        assertEquals(9, rts.signature(2));
    }

    @Test
    void shouldRoundTripReadableRtsWithTheSendersPidAndAddress()
    {
        final EnvelopeFlyweight rts = new EnvelopeFlyweight().wrap(buffer, OFFSET);
        rts.header(MessageType.RTS, EnvelopeFlyweight.FLAG_READABLE | EnvelopeFlyweight.FLAG_SYNC);
        rts.packedBytes(4 << 20).sourcePid(4242).sourceAddress(0x7F00_1234_5000L);
        assertEquals(EnvelopeFlyweight.READABLE_LENGTH, rts.encodedLength());
        assertNull(MessageHeaderFlyweight.validate(buffer, OFFSET, EnvelopeFlyweight.READABLE_LENGTH));
        assertTrue(MessageHeaderFlyweight.validate(buffer, OFFSET, EnvelopeFlyweight.HEADER_LENGTH)
            .contains("declares 88 bytes but has 72"));

        final EnvelopeFlyweight decoder =
            new EnvelopeFlyweight().wrap(buffer, OFFSET, EnvelopeFlyweight.READABLE_LENGTH);
        assertEquals(4242, decoder.sourcePid());
        assertEquals(0x7F00_1234_5000L, decoder.sourceAddress());
        assertTrue(WireDump.describe(buffer, OFFSET, EnvelopeFlyweight.READABLE_LENGTH)
            .contains("readable pid=4242 at=0x7f0012345000"));
    }

    @Test
    void shouldRoundTripClearToSend()
    {
        final ClearToSendFlyweight cts = new ClearToSendFlyweight().wrap(buffer, OFFSET);
        cts.header(MessageType.CTS, 0);
        cts.senderTransferId(-5).receiverTransferId(1L << 50).windowBytes(1 << 20);

        final ClearToSendFlyweight decoded = new ClearToSendFlyweight().wrap(buffer, OFFSET, cts.encodedLength());
        assertEquals(MessageType.CTS, decoded.type());
        assertEquals(-5, decoded.senderTransferId());
        assertEquals(1L << 50, decoded.receiverTransferId());
        assertEquals(1 << 20, decoded.windowBytes());
        assertEquals(ClearToSendFlyweight.LENGTH, decoded.encodedLength());
    }

    @Test
    void shouldRoundTripDataFragment()
    {
        final DataFlyweight data = new DataFlyweight().wrap(buffer, OFFSET);
        data.header(MessageType.DATA, 0);
        data.receiverTransferId(9).packedOffset(65_536L * 1000).payloadLength(100);
        for (int i = 0; i < 100; i++)
        {
            data.buffer().putByte(data.payloadOffset() + i, (byte)i);
        }

        final DataFlyweight decoded = new DataFlyweight().wrap(buffer, OFFSET, data.encodedLength());
        assertEquals(9, decoded.receiverTransferId());
        assertEquals(65_536L * 1000, decoded.packedOffset());
        assertEquals(100, decoded.payloadLength());
        assertEquals(DataFlyweight.HEADER_LENGTH + 100, decoded.encodedLength());
        assertEquals((byte)99, decoded.buffer().getByte(decoded.payloadOffset() + 99));
        assertNull(MessageHeaderFlyweight.validate(buffer, OFFSET, decoded.encodedLength()));
    }

    @Test
    void shouldRoundTripFinAndAck()
    {
        final FinFlyweight fin = new FinFlyweight().wrap(buffer, 0);
        fin.header(MessageType.FIN, 0);
        fin.receiverTransferId(3).totalBytes(12345);
        final AckFlyweight ack = new AckFlyweight().wrap(buffer, 100);
        ack.header(MessageType.ACK, 0);
        ack.senderTransferId(44);

        final FinFlyweight finDecoded = new FinFlyweight().wrap(buffer, 0, FinFlyweight.LENGTH);
        assertEquals(3, finDecoded.receiverTransferId());
        assertEquals(12345, finDecoded.totalBytes());
        assertEquals(44, new AckFlyweight().wrap(buffer, 100, AckFlyweight.LENGTH).senderTransferId());
    }

    @Test
    void shouldRoundTripHelloWithTheSendersProcess()
    {
        final HelloFlyweight hello = new HelloFlyweight().wrap(buffer, OFFSET, HelloFlyweight.LENGTH);
        hello.header(MessageType.HELLO, 0);
        hello.sourceRank(1);
        hello.destinationRank(0);
        hello.pid(4242).startTimeMs(1_796_000_000_123L);

        assertNull(MessageHeaderFlyweight.validate(buffer, OFFSET, HelloFlyweight.LENGTH));
        final HelloFlyweight decoded = new HelloFlyweight().wrap(buffer, OFFSET, HelloFlyweight.LENGTH);
        assertEquals(4242, decoded.pid());
        assertEquals(1_796_000_000_123L, decoded.startTimeMs());
        assertEquals("HELLO 1->0 pid=4242 started=1796000000123",
            WireDump.describe(buffer, OFFSET, HelloFlyweight.LENGTH));
        assertTrue(MessageHeaderFlyweight.validate(buffer, OFFSET, HelloFlyweight.LENGTH - 1)
            .contains("HELLO message of 31 bytes is shorter than its 32-byte fixed part"));
    }

    @Test
    void shouldRoundTripChunkAndChunkDoneAndTheSlotRegionOfAnArenaRts()
    {
        final ChunkFlyweight chunk = new ChunkFlyweight().wrap(buffer, OFFSET, ChunkFlyweight.LENGTH);
        chunk.header(MessageType.CHUNK, 0);
        chunk.sourceRank(0);
        chunk.destinationRank(1);
        chunk.transferId(77).chunk(5).chunkBytes(1 << 20).arenaOffset(1L << 30);

        assertNull(MessageHeaderFlyweight.validate(buffer, OFFSET, ChunkFlyweight.LENGTH));
        final ChunkFlyweight decoded = new ChunkFlyweight().wrap(buffer, OFFSET, ChunkFlyweight.LENGTH);
        assertEquals(77, decoded.transferId());
        assertEquals(5, decoded.chunk());
        assertEquals(1L << 30, decoded.arenaOffset());
        assertEquals(1 << 20, decoded.chunkBytes());
        assertEquals("CHUNK 0->1 xfer=77 chunk=5 of 1048576 arena offset=1073741824",
            WireDump.describe(buffer, OFFSET, ChunkFlyweight.LENGTH));
        assertTrue(MessageHeaderFlyweight.validate(buffer, OFFSET, ChunkFlyweight.LENGTH - 1).contains("shorter"));

        final long region = EnvelopeFlyweight.slotRegion(4096, 8L << 20);
        assertEquals(4096, EnvelopeFlyweight.slotRegionOffset(region));
        assertEquals(8L << 20, EnvelopeFlyweight.slotRegionLength(region));
        assertEquals(Integer.MAX_VALUE - 4095, EnvelopeFlyweight.slotRegionOffset(
            EnvelopeFlyweight.slotRegion(Integer.MAX_VALUE - 4095, Integer.MAX_VALUE)));
    }

    @Test
    void shouldRoundTripErrorWithUtf8Message()
    {
        final String message = "receive buffer holds 4 bytes, message has 8 (tag=7, source=1) \u00e9\u4e2d";
        final ErrorFlyweight error = new ErrorFlyweight().wrap(buffer, OFFSET);
        error.header(MessageType.ERROR, ErrorFlyweight.FLAG_SEND);
        error.transferId(12).errorCode(ErrorFlyweight.CODE_TRUNCATED).message(message);

        final ErrorFlyweight decoded = new ErrorFlyweight().wrap(buffer, OFFSET, error.encodedLength());
        assertEquals(ErrorFlyweight.FLAG_SEND, decoded.flags());
        assertEquals(12, decoded.transferId());
        assertEquals(ErrorFlyweight.CODE_TRUNCATED, decoded.errorCode());
        assertEquals(message, decoded.message());
        assertEquals(ErrorFlyweight.encodedLength(message), decoded.encodedLength());
        assertEquals("TRUNCATED", ErrorFlyweight.codeName(decoded.errorCode()));
    }

    @Test
    void shouldCutLongErrorMessageAtCharacterBoundary()
    {
        final String message = "\u4e2d".repeat(1000) + "\uD83D\uDE00".repeat(10);
        final ErrorFlyweight error = new ErrorFlyweight().wrap(buffer, 0);
        error.header(MessageType.ERROR, 0);
        error.message(message);

        assertTrue(error.messageLength() <= ErrorFlyweight.MAX_MESSAGE_BYTES);
        assertTrue(message.startsWith(error.message()));
        assertTrue(error.message().length() > 300);
    }

    @Test
    void shouldRejectMalformedMessages()
    {
        final EnvelopeFlyweight eager = new EnvelopeFlyweight().wrap(buffer, 0);
        eager.header(MessageType.EAGER, 0);
        eager.packedBytes(100);
        assertTrue(MessageHeaderFlyweight.validate(buffer, 0, EnvelopeFlyweight.HEADER_LENGTH + 99)
            .contains("declares 172 bytes but has 171"));
        eager.packedBytes(-1);
        assertTrue(MessageHeaderFlyweight.validate(buffer, 0, 200).contains("declares"));

        assertTrue(MessageHeaderFlyweight.validate(buffer, 0, 15).contains("shorter than the 16-byte header"));

        buffer.putByte(0, (byte)2);
        assertTrue(MessageHeaderFlyweight.validate(buffer, 0, 100).contains("wire version 2 is not supported"));

        new MessageHeaderFlyweight().wrap(buffer, 0).header(42, 0);
        assertTrue(MessageHeaderFlyweight.validate(buffer, 0, 100).contains("unknown message type 42"));

        new MessageHeaderFlyweight().wrap(buffer, 0).header(MessageType.CTS, 0);
        assertTrue(MessageHeaderFlyweight.validate(buffer, 0, 39)
            .contains("CTS message of 39 bytes is shorter than its 40-byte fixed part"));
    }

    @Test
    void shouldRejectSignatureIndexOutOfRange()
    {
        final EnvelopeFlyweight envelope = new EnvelopeFlyweight().wrap(buffer, 0);
        assertThrows(IndexOutOfBoundsException.class, () -> envelope.signature(3));
        assertThrows(IndexOutOfBoundsException.class, () -> envelope.signature(-1));
    }

    @Test
    void shouldDescribeMessages()
    {
        final EnvelopeFlyweight rts = new EnvelopeFlyweight().wrap(buffer, 0);
        rts.header(MessageType.RTS, 0);
        rts.sourceRank(0);
        rts.destinationRank(2);
        rts.contextId(0).tag(7).sequence(3).transferId(12).packedBytes(1 << 20)
            .putSignature(new long[]{ 31, 2, 8 }, 0);

        assertEquals("RTS 0->2 ctx=0 tag=7 seq=3 xfer=12 bytes=1048576 sig=[0x1f,2,8]",
            WireDump.describe(buffer, 0, rts.encodedLength()));
        assertTrue(WireDump.describe(buffer, 0, 10).startsWith("MALFORMED("));
    }

    @Test
    void shouldRoundTripAnIpcReleaseOfOneExport()
    {
        final IpcReleaseFlyweight release = new IpcReleaseFlyweight().wrap(buffer, OFFSET, IpcReleaseFlyweight.LENGTH);
        release.header(MessageType.IPC_RELEASE, 0);
        release.sourceRank(0);
        release.destinationRank(1);
        release.allocationAddress(0x7f12_3400_0000L).exportNumber(9);

        assertNull(MessageHeaderFlyweight.validate(buffer, OFFSET, IpcReleaseFlyweight.LENGTH));
        final IpcReleaseFlyweight decoded = new IpcReleaseFlyweight().wrap(buffer, OFFSET, IpcReleaseFlyweight.LENGTH);
        assertEquals(0x7f12_3400_0000L, decoded.allocationAddress());
        assertEquals(9, decoded.exportNumber());
        assertEquals("IPC_RELEASE 0->1 allocation=0x7f1234000000 export=9",
            WireDump.describe(buffer, OFFSET, IpcReleaseFlyweight.LENGTH));
        assertEquals("IPC_RELEASE message of 24 bytes is shorter than its 32-byte fixed part",
            MessageHeaderFlyweight.validate(buffer, OFFSET, 24));
    }

    @Test
    void shouldNameEveryMessageType()
    {
        assertEquals("EAGER", MessageType.name(MessageType.EAGER));
        assertEquals("BYE", MessageType.name(MessageType.BYE));
        assertEquals("HELLO", MessageType.name(MessageType.HELLO));
        assertEquals("BYE_ACK", MessageType.name(MessageType.BYE_ACK));
        assertEquals("CHUNK_DONE", MessageType.name(MessageType.CHUNK_DONE));
        assertEquals("IPC_RELEASE", MessageType.name(MessageType.IPC_RELEASE));
        assertEquals("UNKNOWN(16)", MessageType.name(16));
        assertEquals(MessageHeaderFlyweight.HEADER_LENGTH, MessageType.minimumLength(MessageType.BYE_ACK));
        assertEquals("UNKNOWN(0)", MessageType.name(0));
        assertEquals(MessageHeaderFlyweight.HEADER_LENGTH, MessageType.minimumLength(MessageType.CREDIT));
        assertEquals(-1, MessageType.minimumLength(99));
    }
}

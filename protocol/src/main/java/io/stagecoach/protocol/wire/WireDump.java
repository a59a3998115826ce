package io.stagecoach.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * Renders wire messages as one line of text, for logs, traces and test failures. Allocates; not for hot paths.
 */
public final class WireDump
{
    private WireDump()
    {
    }

    /**
     * @param buffer holding the message.
     * @param offset of the message.
     * @param length of the message in bytes.
     * @return for example {@code EAGER 0->1 ctx=0 tag=7 seq=3 xfer=12 bytes=8 sig=[0x1f,2,8]}, or why the message
     * is malformed.
     */
    public static String describe(final DirectBuffer buffer, final int offset, final int length)
    {
        final String problem = MessageHeaderFlyweight.validate(buffer, offset, length);
        if (problem != null)
        {
            return "MALFORMED(" + problem + ")";
        }
        if ((buffer.getByte(offset + MessageHeaderFlyweight.TYPE_OFFSET) & 0xFF) == MessageType.EAGER_SHORT)
        {
            final ShortEagerFlyweight eager = new ShortEagerFlyweight().wrap(buffer, offset, length);
            return "EAGER_SHORT ctx=" + eager.contextId() + " tag=" + eager.tag() + " seq32=" + eager.sequence(0) +
                " bytes=" + eager.payloadLength() + " sig=[0x" + Long.toHexString(eager.signatureHash()) + "," +
                eager.signatureLength() + "," + eager.payloadLength() + "]";
        }
        final MessageHeaderFlyweight header = new MessageHeaderFlyweight().wrap(buffer, offset, length);
        final StringBuilder text = new StringBuilder(96)
            .append(MessageType.name(header.type())).append(' ')
            .append(header.sourceRank()).append("->").append(header.destinationRank());
        if (header.flags() != 0)
        {
            text.append(" flags=0x").append(Integer.toHexString(header.flags()));
        }
        if (header.creditBytes() != 0)
        {
            text.append(" credit=").append(header.creditBytes());
        }
        appendBody(text, header.type(), buffer, offset, length);
        return text.toString();
    }

    private static void appendBody(
        final StringBuilder text, final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        switch (type)
        {
            case MessageType.EAGER:
            case MessageType.RTS:
                appendEnvelope(text, new EnvelopeFlyweight().wrap(buffer, offset, length));
                break;
            case MessageType.CTS:
                final ClearToSendFlyweight cts = new ClearToSendFlyweight().wrap(buffer, offset, length);
                text.append(" sender=").append(cts.senderTransferId())
                    .append(" receiver=").append(cts.receiverTransferId())
                    .append(" window=").append(cts.windowBytes());
                break;
            case MessageType.DATA:
                final DataFlyweight data = new DataFlyweight().wrap(buffer, offset, length);
                text.append(" xfer=").append(data.receiverTransferId())
                    .append(" offset=").append(data.packedOffset())
                    .append(" length=").append(data.payloadLength());
                break;
            case MessageType.FIN:
                final FinFlyweight fin = new FinFlyweight().wrap(buffer, offset, length);
                text.append(" xfer=").append(fin.receiverTransferId()).append(" total=").append(fin.totalBytes());
                break;
            case MessageType.ERROR:
                final ErrorFlyweight error = new ErrorFlyweight().wrap(buffer, offset, length);
                text.append(" xfer=").append(error.transferId())
                    .append(' ').append(ErrorFlyweight.codeName(error.errorCode()))
                    .append(" \"").append(error.message()).append('"');
                break;
            case MessageType.ACK:
                text.append(" xfer=").append(new AckFlyweight().wrap(buffer, offset, length).senderTransferId());
                break;
            case MessageType.CHUNK:
            case MessageType.CHUNK_DONE:
                final ChunkFlyweight chunk = new ChunkFlyweight().wrap(buffer, offset, length);
                text.append(" xfer=").append(chunk.transferId()).append(" chunk=").append(chunk.chunk());
                if (type == MessageType.CHUNK)
                {
                    text.append(" of ").append(chunk.chunkBytes()).append(" arena offset=").append(chunk.arenaOffset());
                }
                break;
            case MessageType.HELLO:
                final HelloFlyweight hello = new HelloFlyweight().wrap(buffer, offset, length);
                text.append(" pid=").append(hello.pid()).append(" started=").append(hello.startTimeMs());
                break;
            case MessageType.IPC_RELEASE:
                final IpcReleaseFlyweight release = new IpcReleaseFlyweight().wrap(buffer, offset, length);
                text.append(" allocation=0x").append(Long.toHexString(release.allocationAddress()))
                    .append(" export=").append(release.exportNumber());
                break;
            default:
                break;
        }
    }

    private static void appendEnvelope(final StringBuilder text, final EnvelopeFlyweight envelope)
    {
        text.append(" ctx=").append(envelope.contextId())
            .append(" tag=").append(envelope.tag())
            .append(" seq=").append(envelope.sequence())
            .append(" xfer=").append(envelope.transferId())
            .append(" bytes=").append(envelope.packedBytes())
            .append(" sig=[0x").append(Long.toHexString(envelope.signature(0)))
            .append(',').append(envelope.signature(1))
            .append(',').append(envelope.signature(2)).append(']');
        if (envelope.type() == MessageType.RTS && (envelope.flags() & EnvelopeFlyweight.FLAG_READABLE) != 0)
        {
            text.append(" readable pid=").append(envelope.sourcePid());
            if ((envelope.flags() & EnvelopeFlyweight.FLAG_SHARED) != 0)
            {
                text.append(" arena offset=").append(envelope.sourceAddress());
            }
            else
            {
                text.append(" at=0x").append(Long.toHexString(envelope.sourceAddress()));
            }
        }
    }
}

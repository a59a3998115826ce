package io.stagecoach.protocol.wire;

/**
 * The message types of the Stagecoach point-to-point wire protocol, carried in byte 1 of every
 * {@link MessageHeaderFlyweight header}.
 */
public final class MessageType
{
    /** A matchable message carrying its whole packed payload. */
    public static final int EAGER = 1;
    /** Request to send: a matchable envelope announcing a payload that follows only after {@link #CTS}. */
    public static final int RTS = 2;
    /** Clear to send: the receiver matched an {@link #RTS} and is ready for its {@link #DATA}. */
    public static final int CTS = 3;
    /** A fragment of a rendezvous payload at a packed offset. */
    public static final int DATA = 4;
    /** End of a rendezvous payload: every {@link #DATA} fragment of the transfer precedes it. */
    public static final int FIN = 5;
    /** A transfer failed; carries an error code and a UTF-8 message. */
    public static final int ERROR = 6;
    /** A synchronous-mode {@link #EAGER} message was matched. */
    public static final int ACK = 7;
    /** Returns eager credit, carried in the header, when no other message is going to that peer. */
    public static final int CREDIT = 8;
    /**
     * The sending rank is closing in an orderly way: nothing more will come from it but {@link #BYE_ACK}s, and it
     * waits for a {@link #BYE_ACK} from every peer still there before it leaves.
     */
    public static final int BYE = 9;
    /** An {@link #EAGER} message of at most 8 bytes in one cache line with its frame ({@link ShortEagerFlyweight}). */
    public static final int EAGER_SHORT = 10;
    /** The sending rank is connected with every rank, both ways, and names its process ({@link HelloFlyweight}). */
    public static final int HELLO = 11;
    /** Answers a {@link #BYE}: everything its sender sent before the BYE has been read. */
    public static final int BYE_ACK = 12;
    /** A packed chunk of a large device message lies in a slot of the sender's shared arena ({@link ChunkFlyweight}). */
    public static final int CHUNK = 13;
    /** The receiver took a chunk out of the sender's slot: the slot may take the next ({@link ChunkFlyweight}). */
    public static final int CHUNK_DONE = 14;
    /**
     * The sender freed a device allocation it offered over IPC: the recipient drops its mapping of that export
     * ({@link IpcReleaseFlyweight}).
     */
    public static final int IPC_RELEASE = 15;

    private static final String[] NAMES = { "UNKNOWN", "EAGER", "RTS", "CTS", "DATA", "FIN", "ERROR", "ACK", "CREDIT",
        "BYE", "EAGER_SHORT", "HELLO", "BYE_ACK", "CHUNK", "CHUNK_DONE", "IPC_RELEASE" };

    private MessageType()
    {
    }

    /**
     * @param type a message type.
     * @return its name, or {@code UNKNOWN(type)} when it is not one of the types above.
     */
    public static String name(final int type)
    {
        return type > 0 && type < NAMES.length ? NAMES[type] : "UNKNOWN(" + type + ")";
    }

    /**
     * @param type a message type.
     * @return the least number of bytes a message of that type occupies, or -1 for an unknown type.
     */
    public static int minimumLength(final int type)
    {
        switch (type)
        {
            case EAGER:
            case RTS:
                return EnvelopeFlyweight.HEADER_LENGTH;
            case CTS:
                return ClearToSendFlyweight.LENGTH;
            case DATA:
                return DataFlyweight.HEADER_LENGTH;
            case FIN:
                return FinFlyweight.LENGTH;
            case ERROR:
                return ErrorFlyweight.HEADER_LENGTH;
            case ACK:
                return AckFlyweight.LENGTH;
            case CREDIT:
            case BYE:
            case BYE_ACK:
                return MessageHeaderFlyweight.HEADER_LENGTH;
            case HELLO:
                return HelloFlyweight.LENGTH;
            case CHUNK:
            case CHUNK_DONE:
                return ChunkFlyweight.LENGTH;
            case IPC_RELEASE:
                return IpcReleaseFlyweight.LENGTH;
            case EAGER_SHORT:
                return ShortEagerFlyweight.HEADER_LENGTH;
            default:
                return -1;
        }
    }
}

package io.stagecoach.protocol.host;

/**
 * Reads of another process's memory on the same node ({@code process_vm_readv}): the kernel copies from the other
 * process's pages into this one's once, with no buffer in between. This is how a receiver takes a large message
 * straight out of a same-node sender's buffer. Needs the native host library and ptrace access to the other process
 * (same user; Yama's {@code ptrace_scope} 0 or 1 with the processes related as it allows); {@link #read} reports a
 * refusal as an error code so that the caller can fall back to another path.
 */
public final class CrossMemory
{
    /** errno: the other process does not exist. */
    public static final int ESRCH = 3;
    /** errno: not permitted to read the other process. */
    public static final int EPERM = 1;
    /** errno: an address range is not mapped. */
    public static final int EFAULT = 14;

    private static final long PID = ProcessHandle.current().pid();

    private CrossMemory()
    {
    }

    /**
     * @return null when cross-memory reads can be tried, otherwise why not.
     */
    public static String unavailableReason()
    {
        return NativeLibrary.loadFailure();
    }

    /**
     * @return this process's id, to be given to the processes that read from it.
     */
    public static long pid()
    {
        return PID;
    }

    /**
     * Copies {@code lengthBytes} from {@code remoteAddress} in process {@code pid} to {@code localAddress} here.
     *
     * @param pid           the process to read from.
     * @param remoteAddress where to read there.
     * @param localAddress  where to write here; the caller owns the range.
     * @param lengthBytes   how much, at least 0.
     * @return the bytes read (less than {@code lengthBytes} only when the remote range ends early), or {@code -errno}
     * ({@link #EPERM}, {@link #ESRCH}, {@link #EFAULT}, ...) when the kernel refused.
     * @throws IllegalStateException when the native host library is not loaded.
     */
    public static long read(final long pid, final long remoteAddress, final long localAddress, final long lengthBytes)
    {
        final String reason = NativeLibrary.loadFailure();
        if (reason != null)
        {
            throw new IllegalStateException("cross-memory read unavailable: " + reason);
        }
        if (lengthBytes < 0)
        {
            throw new IllegalArgumentException("cross-memory read of " + lengthBytes + " bytes: must be >= 0");
        }
        return read0(pid, remoteAddress, localAddress, lengthBytes);
    }

    /**
     * @param result a negative result of {@link #read}.
     * @return the errno's name and meaning, for messages.
     */
    public static String describe(final long result)
    {
        final int errno = (int)-result;
        return switch (errno)
        {
            case EPERM -> "EPERM (not permitted to read that process)";
            case ESRCH -> "ESRCH (no such process)";
            case EFAULT -> "EFAULT (an address range is not mapped)";
            case 22 -> "EINVAL (invalid argument)";
            case 12 -> "ENOMEM (out of memory)";
            case 38 -> "ENOSYS (process_vm_readv is not supported)";
            default -> "errno " + errno;
        };
    }

    /**
     * Lets other processes of this user read this one where Yama's {@code ptrace_scope} is 1 (only ancestors may
     * otherwise): ranks of a job are siblings. Does nothing where Yama is absent.
     *
     * @return 0, or {@code -errno} when the kernel refused.
     * @throws IllegalStateException when the native host library is not loaded.
     */
    public static int allowReaders()
    {
        final String reason = NativeLibrary.loadFailure();
        if (reason != null)
        {
            throw new IllegalStateException("cross-memory reads unavailable: " + reason);
        }
        final int result = allowReaders0();
        return result == -22 ? 0 : result;
    }

    private static native int allowReaders0();

    private static native long read0(long pid, long remoteAddress, long localAddress, long lengthBytes);
}

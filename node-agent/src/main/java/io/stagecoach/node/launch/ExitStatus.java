package io.stagecoach.node.launch;

final class ExitStatus
{
    static final int TIMED_OUT = 124;
    private static final int SIGNAL_BASE = 128;
    private static final String[] SIGNALS = {
        null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1",
        "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM" };

    private ExitStatus()
    {
    }

    /**
     * @param status as reported by {@link Process#exitValue()}: 128 + n when the process was killed by signal n.
     * @return e.g. {@code "exit status 3"} or {@code "exit status 137 (signal 9, SIGKILL)"}.
     */
    static String describe(final int status)
    {
        final int signal = status - SIGNAL_BASE;
        if (signal > 0 && signal < SIGNALS.length)
        {
            return "exit status " + status + " (signal " + signal + ", " + SIGNALS[signal] + ")";
        }
        return "exit status " + status;
    }
}

package io.stagecoach.pipeline.transport.aeron;

import java.util.concurrent.ThreadFactory;

/**
 * Threads of the runtime (Aeron's conductor and driver agents, a rank's progress thread) are daemon threads: they
 * never keep a JVM alive once the program's own threads have ended, so a program that returns or throws without
 * closing its rank still exits.
 */
public final class DaemonThreads
{
    private DaemonThreads()
    {
    }

    /**
     * @param name of the threads made; Aeron's agent runners rename theirs after the agent.
     * @return a factory of daemon threads with that name.
     */
    public static ThreadFactory factory(final String name)
    {
        return runnable ->
        {
            final Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}

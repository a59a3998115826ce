package io.stagecoach.node.launch;

import java.io.IOException;

/**
 * A rank that starts a child process and then sleeps, to be ended by the launcher with its child.
 */
public final class SleepingRank
{
    private SleepingRank()
    {
    }

    public static void main(final String[] args) throws IOException, InterruptedException
    {
        final Process child = new ProcessBuilder("sleep", "300").start();
        System.out.println("pid " + ProcessHandle.current().pid() + " child " + child.pid());
        Thread.sleep(600_000);
    }
}

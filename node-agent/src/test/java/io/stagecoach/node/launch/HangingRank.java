package io.stagecoach.node.launch;

/**
 * A rank that prints its pid and hangs; with arguments, rank {@code args[0]} exits with status {@code args[1]} at
 * once instead.
 */
public final class HangingRank
{
    private HangingRank()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final int rank = Integer.parseInt(System.getenv("STAGECOACH_RANK"));
        System.out.println("pid " + ProcessHandle.current().pid());
        if (args.length == 2 && rank == Integer.parseInt(args[0]))
        {
            System.exit(Integer.parseInt(args[1]));
        }
        Thread.sleep(600_000);
    }
}

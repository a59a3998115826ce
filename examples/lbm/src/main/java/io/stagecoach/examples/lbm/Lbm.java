package io.stagecoach.examples.lbm;

import java.util.List;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;
import org.agrona.CloseHelper;

/**
 * The paper's multiphase 3D lattice Boltzmann application (a free-energy binary fluid: f on D3Q19, g on D3Q7) on a
 * periodic lattice split over a 3D grid of ranks, with the boundary exchanges of every step done four ways (Default,
 * Contig, Datatype, Overlap) and timed:
 * <pre>
 * stagecoach run -n 2 lbm --size 128 --steps 1000 --variant all
 * </pre>
 * Each rank's fields live in device memory of its default device (emulated where there is no GPU); the kernels are
 * CUDA C on a GPU and their Java twins on the emulated device. See {@link LbmOptions} for the command line and
 * docs/lbm.md for the model and the variants.
 */
public final class Lbm
{
    private Lbm()
    {
    }

    /**
     * Exit status of a run whose populations stopped being numbers (the model went unstable).
     */
    static final int UNSTABLE = 3;

    /**
     * Entry point of each rank; rank 0 prints the table, and progress on stderr. Exits with {@link #UNSTABLE} when a
     * variant ended with populations that are not numbers, 2 on a usage error.
     *
     * @param args see {@link LbmOptions}.
     */
    public static void main(final String[] args)
    {
        final LbmOptions options;
        try
        {
            options = LbmOptions.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("lbm: " + ex.getMessage());
            System.err.println(LbmOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help())
        {
            System.out.println(LbmOptions.USAGE);
            return;
        }
        final StagecoachContext context = new StagecoachContext();
        final DeviceRuntime device =
            DeviceRuntime.open(new DeviceContext().localRank(context.launchEnvironment().localRank()));
        Communicator comm = null;
        List<VariantResult> results;
        try
        {
            comm = Stagecoach.init(context.deviceRuntime(device));
            results = new LbmRun(comm, device, options, System.out, System.err).run();
        }
        finally
        {
            CloseHelper.quietCloseAll(comm, device);
        }
        for (final VariantResult result : results)
        {
            if (!result.after().isFinite())
            {
                System.err.println("lbm: " + result.variant() + " went unstable: its populations are not numbers " +
                    "after " + result.steps() + " steps");
                System.exit(UNSTABLE);
            }
        }
    }
}

package io.stagecoach.examples.lbm;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.rank.Communicator;
import org.agrona.CloseHelper;

/**
 * One rank's run of the example: its block of the lattice, its fields and kernels, and each variant in turn from the
 * same initial state, timed and checked.
 */
final class LbmRun
{
    private final Communicator comm;
    private final DeviceRuntime device;
    private final LbmOptions options;
    private final Physics physics = Physics.standard();
    private final Collectives collectives;
    private final LbmReport report;

    LbmRun(final Communicator comm, final DeviceRuntime device, final LbmOptions options, final PrintStream out,
        final PrintStream err)
    {
        this.comm = comm;
        this.device = device;
        this.options = options;
        this.collectives = new Collectives(comm);
        this.report = new LbmReport(out, err, comm.rank() == 0);
    }

    /**
     * @return the results, one per variant, in order.
     */
    List<VariantResult> run()
    {
        final ProcessGrid grid = options.grid(comm.size());
        final int[] global = options.global(grid);
        final Block block = grid.block(comm.rank(), global[0], global[1], global[2]);
        final List<VariantResult> results = new ArrayList<>();
        try (Fields fields = new Fields(device, block);
            LbmKernels kernels = new LbmKernels(device);
            DeviceStream stream = device.createStream())
        {
            final HaloContext context = new HaloContext(comm, device, fields, stream, kernels);
            title(grid, block);
            VariantResult reference = null;
            for (final Variant variant : options.variants())
            {
                final VariantResult result = run(context, grid, variant);
                reference = variant == Variant.DEFAULT ? result : reference;
                report.row(result, reference);
                results.add(result);
            }
        }
        return results;
    }

    private VariantResult run(final HaloContext context, final ProcessGrid grid, final Variant variant)
    {
        final Fields fields = context.fields();
        options.lbmCase().initialise(fields, physics);
        final Totals before = Totals.measure(fields, 0, collectives);
        Solver solver = null;
        try
        {
            solver = new Solver(context, grid, comm.rank(), physics, variant);
            report.progress(variant, "warm-up", 0, options.warmUp(), true);
            for (int step = 1; step <= options.warmUp(); step++)
            {
                solver.step();
                report.progress(variant, "warm-up", step, options.warmUp(), false);
            }
            solver.resetTimes();
            collectives.barrier();
            final long startNs = System.nanoTime();
            for (int step = 1; step <= options.steps(); step++)
            {
                solver.step();
                report.progress(variant, "timed", step, options.steps(), step == 1);
            }
            collectives.barrier();
            final double seconds = collectives.max(new double[] {(System.nanoTime() - startNs) / 1e9})[0];
            final double[] times = collectives.sum(new double[] {solver.communicationNs(), solver.totalNs()});
            final Totals after = Totals.measure(fields, solver.parity(), collectives);
            return new VariantResult(variant, options.steps(), seconds, fields.block().globalCells(),
                times[0] / times[1], before, after);
        }
        finally
        {
            CloseHelper.close(solver);
        }
    }

    private void title(final ProcessGrid grid, final Block block)
    {
        report.title(
            "Stagecoach multiphase LBM: free-energy binary fluid, f on D3Q19, g on D3Q7, periodic",
            comm.size() + " rank(s) as a " + grid + " grid, " + block.nx() + "x" + block.ny() + "x" + block.nz() +
                " cells per rank, " + block.gx() + "x" + block.gy() + "x" + block.gz() + " in all; case " +
                options.lbmCase() + "; " + options.steps() + " timed steps after " + options.warmUp() + " warm-up",
            "Device layer: " + device.kind() + ", rank 0 on device " + device.defaultDevice() + " of " +
                device.deviceCount() + " = " + device.deviceName(),
            "Variants: " + LbmReport.describe(options.variants()) + "; comm % = host time in the exchanges / step " +
                "time; drift from the initial state; checksum of every population's bits");
    }
}

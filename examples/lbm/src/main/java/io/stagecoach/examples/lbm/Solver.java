package io.stagecoach.examples.lbm;

import io.stagecoach.device.DeviceStream;
import org.agrona.CloseHelper;

import static io.stagecoach.examples.lbm.JavaKernels.ALL;
import static io.stagecoach.examples.lbm.JavaKernels.INNER;
import static io.stagecoach.examples.lbm.JavaKernels.SHELL;

/**
 * The time steps of one rank with one variant's exchanges. A step, as in the paper:
 * <ol>
 * <li>update: phi from g;</li>
 * <li>exchange phi;</li>
 * <li>collision of f and g;</li>
 * <li>exchange f (its axis populations, from the current populations into the neighbours' next ones);</li>
 * <li>streaming of f and g, by push, into the next populations and their ghost layer;</li>
 * <li>exchange f and g (what the streaming left in the ghost layer), in the z, y and x phases;</li>
 * </ol>
 * then the next populations become current. Overlap runs the kernels of the inner cells while the messages fly: the
 * collision's beside exchange (2), the streaming beside exchange (4), and the next step's update beside (6); the
 * shell's kernels follow once the messages are in. Every variant computes the same bits.
 * <p>
 * Host time inside the exchanges (posting, packing, copying, waiting) is counted as communication; the rest of a
 * step (launching kernels, waiting for them) as computation.
 */
final class Solver implements AutoCloseable
{
    private final Variant variant;
    private final DeviceStream stream;
    private final Step[] steps = new Step[2];
    private final PhaseExchange phi;
    private final PhaseExchange axes;
    private final PhaseExchange[] populations = new PhaseExchange[3];
    private int parity;
    private boolean phiReady;
    private long communicationNs;
    private long totalNs;

    /**
     * The kernel launches of one parity.
     */
    private record Step(
        LbmKernels.Launch update,
        LbmKernels.Launch updateInner,
        LbmKernels.Launch updateShell,
        LbmKernels.Launch collide,
        LbmKernels.Launch collideInner,
        LbmKernels.Launch collideShell,
        LbmKernels.Launch stream)
    {
    }

    Solver(final HaloContext context, final ProcessGrid grid, final int rank, final Physics physics,
        final Variant variant)
    {
        this.variant = variant;
        this.stream = context.stream();
        final Fields fields = context.fields();
        final Block block = fields.block();
        for (int p = 0; p < 2; p++)
        {
            steps[p] = prepare(context.kernels(), fields, p, physics);
        }
        phi = variant.phase("exchange (2) phi", context, Halo.phi(block, grid, rank));
        axes = variant.phase("exchange (4) f", context, Halo.axes(block, grid, rank));
        for (int d = 2; d >= 0; d--)
        {
            populations[d] = variant.phase("exchange (6) f and g, " + "xyz".charAt(d) + " phase", context,
                Halo.populations(block, grid, rank, d));
        }
    }

    /**
     * @return the parity of the next step: populations {@code fields.current(parity())} are the current ones.
     */
    int parity()
    {
        return parity;
    }

    /**
     * Runs one step; returns once its kernels are done.
     */
    void step()
    {
        final long startNs = System.nanoTime();
        if (variant == Variant.OVERLAP)
        {
            overlappedStep();
        }
        else
        {
            plainStep();
        }
        parity = 1 - parity;
        totalNs += System.nanoTime() - startNs;
    }

    long communicationNs()
    {
        return communicationNs;
    }

    long totalNs()
    {
        return totalNs;
    }

    void resetTimes()
    {
        communicationNs = 0;
        totalNs = 0;
    }

    @Override
    public void close()
    {
        CloseHelper.closeAll(phi, axes, populations[0], populations[1], populations[2]);
    }

    private void plainStep()
    {
        final Step step = steps[parity];
        step.update().on(stream);
        stream.synchronize();
        exchange(phi);
        step.collide().on(stream);
        stream.synchronize();
        exchange(axes);
        step.stream().on(stream);
        stream.synchronize();
        for (int d = 2; d >= 0; d--)
        {
            exchange(populations[d]);
        }
        // the last exchange's unpacks are still on the stream: a step is done when it returns (what reads the fields
        // next may use another stream, and the step's time includes them)
        stream.synchronize();
    }

    private void overlappedStep()
    {
        final Step step = steps[parity];
        final Step next = steps[1 - parity];
        if (!phiReady)
        {
            step.update().on(stream);
            stream.synchronize();
        }
        start(phi);
        step.collideInner().on(stream);
        finish(phi);
        step.collideShell().on(stream);
        stream.synchronize();
        start(axes);
        step.stream().on(stream);
        stream.synchronize();
        start(populations[2]);
        next.updateInner().on(stream);
        finish(populations[2]);
        exchange(populations[1]);
        exchange(populations[0]);
        finish(axes);
        next.updateShell().on(stream);
        stream.synchronize();
        phiReady = true;
    }

    private void exchange(final PhaseExchange phase)
    {
        start(phase);
        finish(phase);
    }

    private void start(final PhaseExchange phase)
    {
        final long startNs = System.nanoTime();
        phase.start(parity);
        communicationNs += System.nanoTime() - startNs;
    }

    private void finish(final PhaseExchange phase)
    {
        final long startNs = System.nanoTime();
        phase.finish(parity);
        communicationNs += System.nanoTime() - startNs;
    }

    private static Step prepare(final LbmKernels kernels, final Fields fields, final int parity,
        final Physics physics)
    {
        final Block block = fields.block();
        final long current = fields.current(parity);
        final long phi = fields.phi();
        return new Step(
            kernels.update(current, phi, block, ALL),
            kernels.update(current, phi, block, INNER),
            kernels.update(current, phi, block, SHELL),
            kernels.collide(current, phi, block, ALL, physics),
            kernels.collide(current, phi, block, INNER, physics),
            kernels.collide(current, phi, block, SHELL, physics),
            kernels.stream(current, fields.next(parity), block));
    }
}

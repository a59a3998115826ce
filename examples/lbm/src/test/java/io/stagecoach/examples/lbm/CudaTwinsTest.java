package io.stagecoach.examples.lbm;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.KernelArguments;
import io.stagecoach.device.cuda.CudaBackendProvider;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The CUDA kernels against their Java twins on a GPU, where the emulated device's results are the reference: kernel
 * by kernel on the same inputs (ghosts included), then whole runs of every variant on the GPU against the emulated
 * device's. Both must give the same bits (the kernels are compiled without FMA contraction and round as Java does).
 * Skipped where no GPU is visible.
 */
@Tag("gpu")
@Timeout(300)
class CudaTwinsTest
{
    private static final Block BLOCK = Block.whole(7, 6, 5);
    private static final Physics PHYSICS = Physics.standard();
    private static final String[] RUN = {"--global", "24x20x16", "--steps", "20", "--warm-up", "0"};

    @BeforeEach
    void needAGpu()
    {
        final String reason = CudaBackendProvider.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "CUDA unavailable: " + reason);
    }

    @Test
    void shouldComputeTheSameBitsAsTheJavaTwinsKernelByKernel()
    {
        final HostFields host = new HostFields(BLOCK);
        host.fillFluid(11);
        JavaKernels.update(cellArguments(host.popsAddress(), host.phiAddress(), JavaKernels.ALL));
        try (DeviceRuntime cuda = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.CUDA));
            LbmKernels kernels = new LbmKernels(cuda);
            DeviceStream stream = cuda.createStream();
            Allocation pops = cuda.allocate(host.pops.capacity());
            Allocation next = cuda.allocate(host.next.capacity());
            Allocation phi = cuda.allocate(host.phi.capacity());
            Allocation packed = cuda.allocate(host.pops.capacity()))
        {
            upload(stream, pops, host.pops);
            upload(stream, next, host.next);
            upload(stream, phi, host.phi);
            final List<String> differences = new ArrayList<>();

            JavaKernels.collide(collideArguments(host.popsAddress(), host.phiAddress(), JavaKernels.ALL));
            kernels.collide(pops.address(), phi.address(), BLOCK, JavaKernels.ALL, PHYSICS).on(stream);
            compare("lbm_collide", stream, pops, host.pops, differences);

            JavaKernels.update(cellArguments(host.popsAddress(), host.phiAddress(), JavaKernels.SHELL));
            kernels.update(pops.address(), phi.address(), BLOCK, JavaKernels.SHELL).on(stream);
            compare("lbm_update", stream, phi, host.phi, differences);

            JavaKernels.stream(new KernelArguments().address(host.popsAddress()).address(host.nextAddress())
                .i32(BLOCK.nx()).i32(BLOCK.ny()).i32(BLOCK.nz()));
            kernels.stream(pops.address(), next.address(), BLOCK).on(stream);
            compare("lbm_stream", stream, next, host.next, differences);

            final Side side = Halo.populations(BLOCK, new ProcessGrid(1, 1, 1), 0, 1).get(0).send();
            final ByteBuffer hostPacked = BufferUtil.allocateDirectAligned(host.pops.capacity(), 64);
            kernels.pack(next.address(), packed.address(), BLOCK, side.box(), side.components()).on(stream);
            kernels.unpack(pops.address(), packed.address(), BLOCK, side.box(), side.components()).on(stream);
            final KernelArguments move = new KernelArguments().address(host.nextAddress())
                .address(BufferUtil.address(hostPacked)).i32(BLOCK.nx()).i32(BLOCK.ny()).i32(BLOCK.nz())
                .i32(side.box().i0()).i32(side.box().ni()).i32(side.box().j0()).i32(side.box().nj())
                .i32(side.box().k0()).i32(side.box().nk()).i32(side.components().length);
            for (int c = 0; c < 5; c++)
            {
                move.i32(side.components()[c]);
            }
            JavaKernels.pack(move);
            final KernelArguments back = new KernelArguments().address(host.popsAddress())
                .address(BufferUtil.address(hostPacked));
            for (int a = 2; a < move.count(); a++)
            {
                back.i32(move.intAt(a));
            }
            JavaKernels.unpack(back);
            compare("lbm_pack and lbm_unpack", stream, pops, host.pops, differences);

            assertEquals(List.of(), differences, "kernels whose bits differ from their Java twins'");
        }
    }

    @Test
    void shouldEndEveryVariantOnTheGpuWithTheBitsOfTheEmulatedDevice()
    {
        final List<VariantResult> gpu = run(DeviceKind.CUDA, "all");
        final List<VariantResult> emulated = run(DeviceKind.EMULATED, "datatype");

        final long reference = emulated.get(0).after().checksum();
        for (final VariantResult result : gpu)
        {
            System.out.printf("twins: %s on the GPU %.1f MLUPS, checksum %016x, emulated datatype %016x%n",
                result.variant(), result.mlups(), result.after().checksum(), reference);
        }
        for (final VariantResult result : gpu)
        {
            assertEquals(reference, result.after().checksum(), result.variant() + " on the GPU against the emulated " +
                "device: mass " + result.after().mass() + " / " + emulated.get(0).after().mass() + ", phase " +
                result.after().phase() + " / " + emulated.get(0).after().phase());
        }
    }

    private static List<VariantResult> run(final DeviceKind kind, final String variants)
    {
        final String[] args = Arrays.copyOf(RUN, RUN.length + 2);
        args[RUN.length] = "--variant";
        args[RUN.length + 1] = variants;
        try (DeviceRuntime device = DeviceRuntime.open(new DeviceContext().kind(kind).emulatedDeviceCount(1)
            .emulatedMemoryBytes(256L << 20));
            Communicator comm = Stagecoach.init(new StagecoachContext().deviceRuntime(device)))
        {
            return new LbmRun(comm, device, LbmOptions.parse(args), System.out, System.err).run();
        }
    }

    private static KernelArguments cellArguments(final long pops, final long phi, final int region)
    {
        return new KernelArguments().address(pops).address(phi).i32(BLOCK.nx()).i32(BLOCK.ny()).i32(BLOCK.nz())
            .i32(region);
    }

    private static KernelArguments collideArguments(final long pops, final long phi, final int region)
    {
        return cellArguments(pops, phi, region).f32(PHYSICS.a()).f32(PHYSICS.kappa()).f32(PHYSICS.omegaF())
            .f32(PHYSICS.omegaG()).f32(PHYSICS.gamma()).f32(PHYSICS.forcing());
    }

    private static void upload(final DeviceStream stream, final Allocation device, final ByteBuffer host)
    {
        stream.copy(device.address(), BufferUtil.address(host), host.capacity());
        stream.synchronize();
    }

    private static void compare(final String kernel, final DeviceStream stream, final Allocation device,
        final ByteBuffer expected, final List<String> differences)
    {
        final ByteBuffer actual = BufferUtil.allocateDirectAligned(expected.capacity(), 64).order(expected.order());
        stream.copy(BufferUtil.address(actual), device.address(), expected.capacity());
        stream.synchronize();
        int mismatches = 0;
        double largest = 0;
        for (int e = 0; e < expected.capacity(); e += Float.BYTES)
        {
            final float want = expected.getFloat(e);
            final float got = actual.getFloat(e);
            if (Float.floatToRawIntBits(want) != Float.floatToRawIntBits(got))
            {
                mismatches++;
                largest = Math.max(largest, Math.abs((double)want - got));
            }
        }
        System.out.printf("twins: %s: %d of %d elements differ, largest difference %.3e%n", kernel, mismatches,
            expected.capacity() / Float.BYTES, largest);
        if (mismatches > 0)
        {
            differences.add(kernel + " (" + mismatches + " elements, up to " + largest + ")");
        }
    }
}

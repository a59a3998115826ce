package io.stagecoach.examples.lbm;

import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.Kernel;
import io.stagecoach.device.KernelArguments;
import io.stagecoach.device.KernelModule;
import io.stagecoach.device.KernelSource;
import io.stagecoach.device.LaunchShape;

/**
 * The example's kernels on the rank's device: the PTX of lbm_kernels.cu on a GPU, {@link JavaKernels} on the emulated
 * device. Launches are prepared once ({@link Launch}: kernel, shape and arguments) and enqueued every step.
 */
final class LbmKernels implements AutoCloseable
{
    static final String PTX_RESOURCE = "/io/stagecoach/examples/lbm/lbm_kernels.ptx";
    static final int THREADS = 256;

    private final KernelModule module;
    private final Kernel update;
    private final Kernel collide;
    private final Kernel stream;
    private final Kernel pack;
    private final Kernel unpack;

    LbmKernels(final DeviceRuntime device)
    {
        module = device.loadModule(source());
        update = module.kernel(JavaKernels.UPDATE);
        collide = module.kernel(JavaKernels.COLLIDE);
        stream = module.kernel(JavaKernels.STREAM);
        pack = module.kernel(JavaKernels.PACK);
        unpack = module.kernel(JavaKernels.UNPACK);
    }

    static KernelSource source()
    {
        return KernelSource.named("lbm")
            .ptxResource(LbmKernels.class, PTX_RESOURCE)
            .emulated(JavaKernels.UPDATE, JavaKernels::update)
            .emulated(JavaKernels.COLLIDE, JavaKernels::collide)
            .emulated(JavaKernels.STREAM, JavaKernels::stream)
            .emulated(JavaKernels.PACK, JavaKernels::pack)
            .emulated(JavaKernels.UNPACK, JavaKernels::unpack);
    }

    /**
     * (1) phi = sum of g in the cells of a region.
     */
    Launch update(final long pops, final long phi, final Block block, final int region)
    {
        return cells(update, block, new KernelArguments().address(pops).address(phi), region);
    }

    /**
     * (3) collision of f and g, in place, in the cells of a region.
     */
    Launch collide(final long pops, final long phi, final Block block, final int region, final Physics physics)
    {
        final Launch launch = cells(collide, block, new KernelArguments().address(pops).address(phi), region);
        launch.arguments.f32(physics.a()).f32(physics.kappa()).f32(physics.omegaF()).f32(physics.omegaG())
            .f32(physics.gamma()).f32(physics.forcing());
        return launch;
    }

    /**
     * (5) streaming by push from one population buffer into the other.
     */
    Launch stream(final long src, final long dst, final Block block)
    {
        final KernelArguments arguments = new KernelArguments().address(src).address(dst)
            .i32(block.nx()).i32(block.ny()).i32(block.nz());
        return new Launch(stream, LaunchShape.linear(block.interiorCells(), THREADS), arguments);
    }

    /**
     * Hand-written pack of a box of up to five components into a contiguous buffer.
     */
    Launch pack(final long field, final long buffer, final Block block, final Box box, final int[] components)
    {
        return box(pack, field, buffer, block, box, components);
    }

    /**
     * Hand-written unpack of a contiguous buffer into a box of up to five components.
     */
    Launch unpack(final long field, final long buffer, final Block block, final Box box, final int[] components)
    {
        return box(unpack, field, buffer, block, box, components);
    }

    @Override
    public void close()
    {
        module.close();
    }

    private static Launch cells(final Kernel kernel, final Block block, final KernelArguments arguments,
        final int region)
    {
        arguments.i32(block.nx()).i32(block.ny()).i32(block.nz()).i32(region);
        return new Launch(kernel, LaunchShape.linear(block.interiorCells(), THREADS), arguments);
    }

    private static Launch box(
        final Kernel kernel, final long field, final long buffer, final Block block, final Box box,
        final int[] components)
    {
        if (components.length < 1 || components.length > 5)
        {
            throw new IllegalArgumentException("a face box has 1 to 5 components, not " + components.length);
        }
        final KernelArguments arguments = new KernelArguments().address(field).address(buffer)
            .i32(block.nx()).i32(block.ny()).i32(block.nz())
            .i32(box.i0()).i32(box.ni()).i32(box.j0()).i32(box.nj()).i32(box.k0()).i32(box.nk())
            .i32(components.length);
        for (int c = 0; c < 5; c++)
        {
            arguments.i32(c < components.length ? components[c] : 0);
        }
        return new Launch(kernel, LaunchShape.linear(box.cells() * components.length, THREADS), arguments);
    }

    /**
     * A kernel launch with its shape and arguments, built once.
     */
    static final class Launch
    {
        private final Kernel kernel;
        private final LaunchShape shape;
        private final KernelArguments arguments;

        Launch(final Kernel kernel, final LaunchShape shape, final KernelArguments arguments)
        {
            this.kernel = kernel;
            this.shape = shape;
            this.arguments = arguments;
        }

        void on(final DeviceStream stream)
        {
            kernel.launch(stream, shape, arguments);
        }

        @Override
        public String toString()
        {
            return kernel.name() + arguments;
        }
    }
}

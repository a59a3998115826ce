package io.stagecoach.device;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application's kernels loaded with {@link DeviceRuntime#loadModule(int, KernelSource)} and launched in a stream,
 * on each back end: a CUDA device runs the kernel's PTX, the emulated device its Java twin, and both compute the same
 * bits, in order with the stream's copies; every kind of argument arrives; misuse fails naming what was wrong.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class KernelModuleContractTest
{
    static final String PTX = "/io/stagecoach/device/module_test_kernels.ptx";
    static final String KERNEL = "sc_test_axpb";
    private static final int ELEMENTS = 1_000;

    protected DeviceRuntime runtime;
    private DeviceStream stream;

    /**
     * @return a runtime of the back end under test (skip with an assumption when it cannot run here).
     */
    protected abstract DeviceRuntime openRuntime();

    @BeforeAll
    void openRuntimeAndStream()
    {
        runtime = openRuntime();
        stream = runtime.createStream(0);
    }

    @AfterAll
    void closeRuntime()
    {
        if (runtime != null)
        {
            runtime.close();
        }
    }

    static KernelSource source()
    {
        return KernelSource.named("module-test").ptxResource(KernelModuleContractTest.class, PTX)
            .emulated(KERNEL, KernelModuleContractTest::axpb);
    }

    /**
     * The Java twin of sc_test_axpb(y, x, n, a, offset, b).
     */
    static void axpb(final KernelArguments arguments)
    {
        final long y = arguments.longAt(0);
        final long x = arguments.longAt(1);
        final int n = arguments.intAt(2);
        final float a = arguments.floatAt(3);
        final long offset = arguments.longAt(4);
        final double b = arguments.doubleAt(5);
        for (int i = 0; i < n; i++)
        {
            UnsafeApi.putFloat(y + 4L * i, a * UnsafeApi.getFloat(x + 4L * i) + (float)offset + (float)b);
        }
    }

    @Test
    public void shouldRunAKernelInStreamOrderWithEveryKindOfArgument()
    {
        final ByteBuffer host = BufferUtil.allocateDirectAligned(ELEMENTS * Float.BYTES, 64)
            .order(ByteOrder.nativeOrder());
        for (int i = 0; i < ELEMENTS; i++)
        {
            host.putFloat(i * Float.BYTES, i * 0.37f - 11.0f);
        }
        try (KernelModule module = runtime.loadModule(0, source());
            Allocation x = runtime.allocate(0, ELEMENTS * Float.BYTES);
            Allocation y = runtime.allocate(0, ELEMENTS * Float.BYTES))
        {
            final KernelArguments arguments = new KernelArguments().address(y.address()).address(x.address())
                .i32(ELEMENTS - 1).f32(1.5f).i64(3L << 33).f64(0.1);
            stream.copy(x.address(), BufferUtil.address(host), ELEMENTS * Float.BYTES);
            stream.copy(y.address(), BufferUtil.address(host), ELEMENTS * Float.BYTES);
            module.kernel(KERNEL).launch(stream, LaunchShape.linear(ELEMENTS - 1, 128), arguments);
            final ByteBuffer result = BufferUtil.allocateDirectAligned(ELEMENTS * Float.BYTES, 64)
                .order(ByteOrder.nativeOrder());
            stream.copy(BufferUtil.address(result), y.address(), ELEMENTS * Float.BYTES);
            stream.synchronize();

            for (int i = 0; i < ELEMENTS - 1; i++)
            {
                final float expected = 1.5f * host.getFloat(i * Float.BYTES) + (float)(3L << 33) + (float)0.1;
                assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(result.getFloat(i * 4)),
                    "element " + i + ": " + expected + " against " + result.getFloat(i * 4));
            }
            assertEquals(host.getFloat((ELEMENTS - 1) * 4), result.getFloat((ELEMENTS - 1) * 4), "beyond n");
        }
    }

    @Test
    public void shouldNameTheModuleAndTheKernelThatIsNotThere()
    {
        try (KernelModule module = runtime.loadModule(0, source()))
        {
            final DeviceException ex = assertThrows(DeviceException.class, () -> module.kernel("sc_test_missing"));
            assertTrue(ex.getMessage().contains("sc_test_missing"), ex.getMessage());
            assertTrue(ex.getMessage().contains("module-test") || ex.getMessage().contains("module module-test"),
                ex.getMessage());
        }
    }

    @Test
    public void shouldRefuseALaunchAfterTheModuleIsClosed()
    {
        final KernelModule module = runtime.loadModule(0, source());
        final Kernel kernel = module.kernel(KERNEL);
        module.close();

        final DeviceException ex = assertThrows(DeviceException.class,
            () -> kernel.launch(stream, LaunchShape.linear(1, 32), new KernelArguments()));
        assertTrue(ex.getMessage().contains("used after close"), ex.getMessage());
    }

    @Test
    public void shouldRefuseAStreamOfAnotherDevice()
    {
        Assumptions.assumeTrue(runtime.deviceCount() > 1, "one device only");
        try (KernelModule module = runtime.loadModule(1, source());
            DeviceStream other = runtime.createStream(0))
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> module.kernel(KERNEL).launch(other, LaunchShape.linear(1, 32), new KernelArguments()));
            assertEquals("kernel sc_test_axpb of device 1 launched in a stream of device 0", ex.getMessage());
        }
    }

    @Test
    public void shouldKeepTheKeptPtxCompiledFromItsSource() throws IOException, NoSuchAlgorithmException
    {
        final Path source = Path.of("src/test/cuda/module_test_kernels.cu");
        Assumptions.assumeTrue(Files.exists(source), "sources not present (running from a bundle)");
        try (InputStream in = KernelModuleContractTest.class.getResourceAsStream(PTX))
        {
            final String firstLine = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst()
                .orElseThrow();
            assertEquals("// source-sha256: " + HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(source))), firstLine,
                PTX + " is stale: refresh it as module_test_kernels.cu says");
        }
    }
}

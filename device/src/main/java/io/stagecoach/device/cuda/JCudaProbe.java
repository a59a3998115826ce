package io.stagecoach.device.cuda;

import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Loads JCuda's driver library the way the runtime does ({@link JCudaLibrary}) and calls {@code cuInit} and
 * {@code cuDeviceGetCount}: proves where the native library comes from. Exit status 0 when a GPU is usable, 1 when
 * the library loaded but no driver or device is there, 2 when the library itself did not load.
 */
public final class JCudaProbe
{
    private JCudaProbe()
    {
    }

    /**
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        System.out.println("java.library.path = " + System.getProperty("java.library.path"));
        final Throwable failure = JCudaLibrary.load();
        System.out.println("JCuda driver library from " + JCudaLibrary.origin());
        if (failure != null)
        {
            System.exit(reportFailure(failure));
        }
        JCudaDriver.setExceptionsEnabled(false);
        final int init = JCudaDriver.cuInit(0);
        System.out.println("JCuda driver library loaded; cuInit: " + CUresult.stringFor(init));
        if (init != CUresult.CUDA_SUCCESS)
        {
            System.exit(1);
        }
        final int[] count = new int[1];
        final int result = JCudaDriver.cuDeviceGetCount(count);
        System.out.println("cuDeviceGetCount: " + CUresult.stringFor(result) + ", " + count[0] + " device(s)");
        System.exit(result == CUresult.CUDA_SUCCESS && count[0] > 0 ? 0 : 1);
    }

    private static int reportFailure(final Throwable failure)
    {
        final String message = String.valueOf(failure.getMessage());
        final String firstAttempt = message.lines()
            .filter(line -> line.contains("UnsatisfiedLinkError") || line.contains(".so"))
            .findFirst().orElse(message);
        if (message.contains("libcuda.so"))
        {
            System.out.println("JCuda's library was found and opened; it needs the CUDA driver (libcuda.so.1), " +
                "which this machine lacks: " + firstAttempt.trim());
            return 1;
        }
        System.out.println("JCuda's library did not load: " + message);
        return 2;
    }
}

package io.stagecoach.device;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The other process of the IPC test: opens an exported range twice (one driver mapping), checks what the exporter
 * wrote, writes its own pattern back, closes and invalidates, and reports each step on standard output.
 */
public final class IpcChild
{
    private IpcChild()
    {
    }

    /**
     * @param args handle in hex, seed of the bytes to expect, seed of the bytes to write.
     */
    public static void main(final String[] args)
    {
        final IpcHandle handle = IpcHandle.fromBytes(HexFormat.of().parseHex(args[0]));
        final long expectedSeed = Long.parseLong(args[1]);
        final long writeSeed = Long.parseLong(args[2]);
        final int length = (int)handle.lengthBytes();
        try (DeviceRuntime runtime = DeviceRuntime.open(new DeviceContext().kind(handle.kind()));
            DeviceStream stream = runtime.createStream(0))
        {
            final IpcMapping first = runtime.openIpc(handle);
            final IpcMapping second = runtime.openIpc(handle);
            System.out.println("same mapping " + (first.address() == second.address()));
            System.out.println("open " + runtime.openIpcCount());
            final HostBuffer host = new HostBuffer(length);
            stream.copy(host.address(), first.address(), length);
            stream.synchronize();
            final byte[] expected = new byte[length];
            new RandomTypes(expectedSeed).nextBytes(expected);
            final int mismatch = Arrays.mismatch(expected, host.get(length));
            System.out.println(mismatch < 0 ? "read ok" : "read mismatch at " + mismatch);
            final byte[] written = new byte[length];
            new RandomTypes(writeSeed).nextBytes(written);
            host.put(written);
            stream.copy(second.address(), host.address(), length);
            stream.synchronize();
            first.close();
            second.close();
            System.out.println("invalidate another export " + runtime.invalidateIpc(handle.processId(),
                handle.allocationAddress(), handle.exportNumber() + 1));
            System.out.println("open " + runtime.openIpcCount());
            System.out.println("invalidate its export " + runtime.invalidateIpc(handle.processId(),
                handle.allocationAddress(), handle.exportNumber()));
            System.out.println("open after invalidate " + runtime.openIpcCount());
        }
        catch (final RuntimeException ex)
        {
            System.out.println("failed " + ex);
            ex.printStackTrace(System.out);
            System.exit(1);
        }
        System.exit(0);
    }

    /**
     * Run the child in a new JVM with this JVM's class path and configuration.
     *
     * @param runtime      whose configuration the child shares.
     * @param handle       to open.
     * @param expectedSeed of the bytes the exporter wrote.
     * @param writeSeed    of the bytes the child writes.
     * @return the child's output lines.
     * @throws IOException          when the child cannot start.
     * @throws InterruptedException when interrupted while waiting.
     */
    static List<String> run(final DeviceRuntime runtime, final IpcHandle handle, final long expectedSeed,
        final long writeSeed) throws IOException, InterruptedException
    {
        final String java = ProcessHandle.current().info().command()
            .orElse(System.getProperty("java.home") + "/bin/java");
        final DeviceContext context = runtime.context();
        final List<String> command = new ArrayList<>(List.of(java,
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-Dstagecoach.device.emulated.dir=" + context.emulatedDirectory(),
            "-Dstagecoach.device.emulated.devices=" + context.emulatedDeviceCount(),
            "-Dstagecoach.device.emulated.memoryBytes=" + context.emulatedMemoryBytes()));
        final String libraryPath = System.getProperty("java.library.path");
        if (libraryPath != null)
        {
            command.add("-Djava.library.path=" + libraryPath);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), IpcChild.class.getName(),
            HexFormat.of().formatHex(handle.toBytes()), String.valueOf(expectedSeed), String.valueOf(writeSeed)));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final List<String> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                lines.add(line);
            }
        }
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("IPC child did not exit within 60 s: " + lines);
        }
        if (process.exitValue() != 0)
        {
            throw new AssertionError("IPC child exited with " + process.exitValue() + ": " + lines);
        }
        return lines;
    }
}

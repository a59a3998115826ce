package io.stagecoach.node.jobs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.stagecoach.protocol.host.PrivateDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CUDA MPS control daemon of one job's ranks on a node that has fewer GPUs than ranks: without it, two processes
 * on one GPU take turns (about 150 us a hand-off on an H200), with it their work runs side by side (14-16 us). Its
 * pipe and log folders are private to the job ({@code CUDA_MPS_PIPE_DIRECTORY}, {@code CUDA_MPS_LOG_DIRECTORY}, also
 * given to the ranks); {@link #close()} quits it ({@code echo quit | nvidia-cuda-mps-control}) and removes them.
 */
final class MpsDaemon implements AutoCloseable
{
    /** How long starting or quitting the daemon may take. */
    static final long COMMAND_TIMEOUT_MS = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(MpsDaemon.class);

    private final String control;
    private final Path folder;
    private final Map<String, String> environment;

    private MpsDaemon(final String control, final Path folder)
    {
        this.control = control;
        this.folder = folder;
        this.environment = Map.of(
            "CUDA_MPS_PIPE_DIRECTORY", folder.resolve("pipe").toString(),
            "CUDA_MPS_LOG_DIRECTORY", folder.resolve("log").toString());
    }

    /**
     * Starts the daemon ({@code nvidia-cuda-mps-control -d}) with its folders in a new private folder under
     * {@code parent}.
     *
     * @param control the control command.
     * @param parent  a private folder of the agent.
     * @param jobId   the job.
     * @return the running daemon.
     * @throws IOException where the folders cannot be made or the command fails.
     */
    static MpsDaemon start(final String control, final Path parent, final String jobId) throws IOException
    {
        final Path folder = Files.createTempDirectory(parent, "mps-" + jobId + "-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final MpsDaemon daemon = new MpsDaemon(control, folder);
        try
        {
            for (final String name : List.of("pipe", "log"))
            {
                Files.createDirectory(folder.resolve(name),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            daemon.runControl(List.of("-d"), null);
            LOG.info("job {}: CUDA MPS control daemon started in {}", jobId, folder);
            return daemon;
        }
        catch (final IOException | RuntimeException ex)
        {
            PrivateDirectory.deleteTree(folder);
            throw ex;
        }
    }

    /**
     * @return what the job's ranks need to reach the daemon.
     */
    Map<String, String> environment()
    {
        return environment;
    }

    /**
     * Quits the daemon and removes its folders.
     */
    public void close()
    {
        try
        {
            runControl(List.of(), "quit\n");
        }
        catch (final IOException ex)
        {
            LOG.warn("quitting the CUDA MPS control daemon in {}: {}", folder, ex.getMessage());
        }
        finally
        {
            PrivateDirectory.deleteTree(folder);
        }
    }

    private void runControl(final List<String> arguments, final String input) throws IOException
    {
        final List<String> command = new java.util.ArrayList<>();
        command.add(control);
        command.addAll(arguments);
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(environment);
        final Process process = builder.start();
        try (OutputStream stdin = process.getOutputStream())
        {
            if (null != input)
            {
                stdin.write(input.getBytes(StandardCharsets.US_ASCII));
            }
        }
        try
        {
            if (!process.waitFor(COMMAND_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not end within " + COMMAND_TIMEOUT_MS + " ms");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while running " + String.join(" ", command), ex);
        }
        if (process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed with exit status " + process.exitValue());
        }
    }
}

package io.stagecoach.node.launch;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.stagecoach.pipeline.trace.ChromeTraceExport;
import io.stagecoach.pipeline.trace.StageTraceContext;
import io.stagecoach.pipeline.trace.StageTraceFile;
import io.stagecoach.protocol.host.PrivateDirectory;

/**
 * {@code stagecoach run --trace FILE}: the ranks get a trace folder inside the job's private folder
 * ({@value StageTraceContext#DIRECTORY_VARIABLE}), each drains its stage records into its own file there, and once
 * the job has ended their files are merged into FILE as a Chrome trace. FILE is written whole under a temporary name
 * in its folder (created exclusively, mode 0600) and renamed over FILE, so it is replaced at once, and a link at FILE
 * is replaced, never followed.
 */
final class TraceExport
{
    /** The trace folder's name in the job's folder. */
    static final String FOLDER = "trace";

    private static final int BUFFER_CHARS = 64 * 1024;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final LaunchContext context;
    private final Path folder;

    private TraceExport(final LaunchContext context, final Path folder)
    {
        this.context = context;
        this.folder = folder;
    }

    /**
     * @param context    of the job; gets the trace folder's variable when it asks for a trace.
     * @param jobFolder  the job's private folder.
     * @return the export, or null when the job asks for no trace.
     * @throws LaunchException when the trace folder cannot be created.
     */
    static TraceExport prepare(final LaunchContext context, final Path jobFolder)
    {
        if (null == context.traceFile())
        {
            return null;
        }
        final Path folder = JobSubfolder.create(jobFolder, FOLDER, "trace");
        context.environment(StageTraceContext.DIRECTORY_VARIABLE, folder.toString());
        return new TraceExport(context, folder);
    }

    /**
     * Merges the ranks' files into the trace file and says what it holds.
     *
     * @param status   the job's exit status.
     * @param reporter told of what was written, or why nothing was.
     * @return the job's status, or 1 when the job succeeded but the trace could not be written.
     */
    int export(final int status, final Consumer<String> reporter)
    {
        final Path file = context.traceFile();
        try
        {
            reporter.accept(describe(write(file), file));
            return status;
        }
        catch (final IOException | RuntimeException ex)
        {
            reporter.accept("could not write the trace " + file + ": " + ex.getMessage());
            return 0 == status ? 1 : status;
        }
    }

    /**
     * Takes the trace folder's variable out of the context again.
     */
    void release()
    {
        context.environment().remove(StageTraceContext.DIRECTORY_VARIABLE);
    }

    private ChromeTraceExport.Summary write(final Path file) throws IOException
    {
        final byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        final Path temporary = file.resolveSibling("." + file.getFileName() + "." + HexFormat.of().formatHex(random));
        try
        {
            final ChromeTraceExport.Summary summary = writeTo(temporary);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            return summary;
        }
        finally
        {
            Files.deleteIfExists(temporary);
        }
    }

    private ChromeTraceExport.Summary writeTo(final Path temporary) throws IOException
    {
        try (FileChannel channel = PrivateDirectory.createFile(temporary);
            Writer out = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8), BUFFER_CHARS))
        {
            final ChromeTraceExport.Summary summary = ChromeTraceExport.write(rankFiles(), out, otherData());
            out.flush();
            channel.force(true);
            return summary;
        }
    }

    private List<Path> rankFiles() throws IOException
    {
        final List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder))
        {
            for (final Path entry : entries)
            {
                if (StageTraceFile.isTraceFileName(entry) && Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS))
                {
                    files.add(entry);
                }
            }
        }
        return files;
    }

    private Map<String, String> otherData()
    {
        final Map<String, String> data = new LinkedHashMap<>();
        data.put("job", context.jobId());
        data.put("program", context.mainClass());
        data.put("size", Integer.toString(context.size()));
        return data;
    }

    private String describe(final ChromeTraceExport.Summary summary, final Path file)
    {
        final StringBuilder text = new StringBuilder("wrote ").append(summary.events()).append(" stage events of ")
            .append(summary.ranks()).append(summary.ranks() == 1 ? " rank" : " ranks").append(" to ").append(file);
        if (summary.droppedRecords() > 0)
        {
            text.append("; ").append(summary.droppedRecords()).append(" records found the ranks' rings full and ")
                .append("were dropped (raise ").append(StageTraceContext.RING_BYTES_PROPERTY).append(")");
        }
        if (summary.invalidRecords() > 0)
        {
            text.append("; ").append(summary.invalidRecords()).append(" records without a stage or ending before ")
                .append("they start were left out");
        }
        if (summary.partialRecords() > 0)
        {
            text.append("; ").append(summary.partialRecords()).append(" files ended in part of a record");
        }
        summary.unreadable().forEach(problem -> text.append("; left out ").append(problem));
        return text.toString();
    }
}

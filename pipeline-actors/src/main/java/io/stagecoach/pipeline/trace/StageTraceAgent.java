package io.stagecoach.pipeline.trace;

import java.io.IOException;

import org.agrona.concurrent.Agent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drain thread's duty cycle: moves records from the ring to the rank's file, its live file in shared memory and a
 * live handler (each if any),
 * and keeps the file's count of dropped records current. At close it drains what is left. A file that cannot be
 * written is given up with one warning; records go on to the handler.
 */
final class StageTraceAgent implements Agent, StageRecordHandler
{
    static final int BATCH_RECORDS = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(StageTraceAgent.class);

    private final StageRing ring;
    private final StageRecordHandler liveHandler;
    private StageTraceFileWriter writer;
    private LiveTraceWriter liveFile;

    StageTraceAgent(
        final StageRing ring,
        final StageTraceFileWriter writer,
        final LiveTraceWriter liveFile,
        final StageRecordHandler liveHandler)
    {
        this.ring = ring;
        this.writer = writer;
        this.liveFile = liveFile;
        this.liveHandler = liveHandler;
    }

    public int doWork()
    {
        final int records = ring.drain(this, BATCH_RECORDS);
        writeOut();
        return records;
    }

    public void onRecord(final StageRecord record)
    {
        if (null != writer)
        {
            try
            {
                writer.append(record);
            }
            catch (final IOException ex)
            {
                giveUpFile(ex);
            }
        }
        if (null != liveFile)
        {
            liveFile.onRecord(record);
        }
        if (null != liveHandler)
        {
            liveHandler.onRecord(record);
        }
    }

    public void onTransfer(final TransferRecord record)
    {
        if (null != liveFile)
        {
            liveFile.onTransfer(record);
        }
        if (null != liveHandler)
        {
            liveHandler.onTransfer(record);
        }
    }

    public void onClose()
    {
        final boolean interrupted = Thread.interrupted();
        try
        {
            drainRest();
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    public String roleName()
    {
        return "stagecoach-trace-" + ring.rank();
    }

    private void drainRest()
    {
        final int most = ring.capacityBytes() / StageRing.RECORD_SLOT_BYTES;
        int drained = 0;
        int records;
        while (drained < most && (records = ring.drain(this, BATCH_RECORDS)) > 0)
        {
            drained += records;
        }
        writeOut();
        closeFile();
        closeLiveFile();
    }

    private void closeLiveFile()
    {
        if (null != liveFile)
        {
            LOG.debug("rank {}: live trace {} closed, {} records dropped there", ring.rank(), liveFile.file(),
                liveFile.droppedRecords());
            liveFile.close();
            liveFile = null;
        }
    }

    private void writeOut()
    {
        if (null != writer)
        {
            try
            {
                writer.flush();
                writer.droppedRecords(ring.droppedRecords());
            }
            catch (final IOException ex)
            {
                giveUpFile(ex);
            }
        }
    }

    private void closeFile()
    {
        if (null != writer)
        {
            try
            {
                writer.close();
                LOG.debug("rank {}: {} stage records in {}, {} dropped", ring.rank(), writer.recordsWritten(),
                    writer.file(), ring.droppedRecords());
            }
            catch (final IOException ex)
            {
                LOG.warn("rank {}: could not close the stage trace file {}: {}", ring.rank(), writer.file(),
                    ex.toString());
            }
            writer = null;
        }
    }

    private void giveUpFile(final IOException ex)
    {
        LOG.warn("rank {}: could not write the stage trace file {}, tracing into it stops: {}", ring.rank(),
            writer.file(), ex.toString());
        try
        {
            writer.close();
        }
        catch (final IOException ignore)
        {
            // already failed: the first error was reported
        }
        writer = null;
    }
}

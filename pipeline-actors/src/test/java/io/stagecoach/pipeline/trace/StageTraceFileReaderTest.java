package io.stagecoach.pipeline.trace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.stagecoach.pipeline.trace.TraceFiles.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StageTraceFileReaderTest
{
    @TempDir
    Path folder;

    @Test
    void shouldReadTheHeaderAndRecordsAndIgnoreAPartialRecordAtTheEnd() throws IOException
    {
        final Path file = TraceFiles.write(folder, 5, 3, record(1, 0, Stage.D2H, 10, 20, 4096),
            record(1, 1, Stage.D2H, 20, 35, 4096));
        Files.write(file, new byte[]{ 1, 2, 3 }, StandardOpenOption.APPEND);

        try (StageTraceFileReader reader = StageTraceFileReader.open(file))
        {
            assertEquals(5, reader.rank());
            assertEquals(3, reader.droppedRecords());
            assertEquals(2, reader.recordCount());
            assertEquals(3, reader.partialBytes());
            assertEquals(35, reader.record(1).endNs());
            assertEquals(Stage.D2H, reader.record(0).stage());
            assertThrows(IndexOutOfBoundsException.class, () -> reader.record(2));
        }
    }

    @Test
    void shouldRefuseAFileThatIsNotATraceFileNamingIt() throws IOException
    {
        final Path file = Files.writeString(folder.resolve("rank-0.stagetrace"), "{\"traceEvents\": []} and more text");

        final String message = assertThrows(IOException.class, () -> StageTraceFileReader.open(file)).getMessage();

        assertEquals(file + " is not a stage trace file of version 1: it does not start with STAGETRC", message);
    }

    @Test
    void shouldRefuseAnotherVersionAndAShortFile() throws IOException
    {
        final Path file = TraceFiles.write(folder, 0, 0);
        final byte[] bytes = Files.readAllBytes(file);
        bytes[StageTraceFile.VERSION_OFFSET] = 2;
        Files.write(file, bytes);

        assertTrue(assertThrows(IOException.class, () -> StageTraceFileReader.open(file)).getMessage()
            .endsWith("its version is 2 with 48-byte records, not 1 with 48"));
        Files.write(file, Arrays.copyOf(bytes, 20));
        assertTrue(assertThrows(IOException.class, () -> StageTraceFileReader.open(file)).getMessage()
            .endsWith("it holds 20 bytes, less than the 48-byte header"));
        Files.write(file, new byte[0]);
        assertTrue(assertThrows(IOException.class, () -> StageTraceFileReader.open(file)).getMessage()
            .endsWith("it does not start with STAGETRC"));
    }

    @Test
    void shouldNotFollowALink() throws IOException
    {
        final Path file = TraceFiles.write(folder, 0, 0);
        final Path link = Files.createSymbolicLink(folder.resolve("link.stagetrace"), file);

        assertThrows(IOException.class, () -> StageTraceFileReader.open(link));
    }
}

package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program whose class file does not load ends its job with an error naming it, and never reaches the process that
 * launches it (an agent would otherwise stop: Pekko takes a LinkageError for fatal).
 */
class ProgramResolverTest
{
    @TempDir
    Path classes;

    @Test
    void shouldRefuseAClassOfANewerJavaNamingBothJavas() throws IOException
    {
        Files.write(classes.resolve("Newer.class"), header(99));

        final LaunchException refused =
            assertThrows(LaunchException.class, () -> new ProgramResolver(classes.toString()).resolve("Newer"));

        assertTrue(refused.getMessage().startsWith("program Newer was compiled for a newer Java than this one, Java " +
            Runtime.version().feature() + " ("), refused.getMessage());
        assertTrue(refused.getMessage().contains("class file version 99.0"), refused.getMessage());
    }

    @Test
    void shouldRefuseABrokenClassFile() throws IOException
    {
        Files.write(classes.resolve("Broken.class"), header(52));

        final LaunchException refused =
            assertThrows(LaunchException.class, () -> new ProgramResolver(classes.toString()).resolve("Broken"));

        assertTrue(refused.getMessage().startsWith("program Broken cannot be loaded: java.lang.ClassFormatError"),
            refused.getMessage());
    }

    /**
     * @return a class file's magic number and version, and nothing of a class after them.
     */
    private static byte[] header(final int major)
    {
        return ByteBuffer.allocate(10).putInt(0xCAFEBABE).putShort((short)0).putShort((short)major)
            .putShort((short)0).array();
    }
}

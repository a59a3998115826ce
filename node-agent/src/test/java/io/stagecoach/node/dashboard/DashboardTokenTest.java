package io.stagecoach.node.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DashboardTokenTest
{
    @TempDir
    Path folder;

    @Test
    void shouldReadOnlyAPrivateRegularFileOfThisUserHoldingALongEnoughToken() throws Exception
    {
        final Path file = write("token", "  0123456789abcdef0123\n", "rw-------");
        assertEquals("0123456789abcdef0123", DashboardToken.read(file, "dashboard.token-file"));

        refused(write("open", "0123456789abcdef0123", "rw-r--r--"), "may be read by others (mode rw-r--r--)");
        refused(write("short", "0123456789", "rw-------"), "holds 10 characters, fewer than the 16 a token needs");
        final Path link = Files.createSymbolicLink(folder.resolve("link"), file);
        refused(link, "is not a regular file");
        if ("root".equals(System.getProperty("user.name")))
        {
            final Path other = write("other", "0123456789abcdef0123", "rw-------");
            final UserPrincipal nobody = other.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName("nobody");
            Files.setOwner(other, nobody);
            refused(other, "belongs to nobody, not to root");
        }
        assertTrue(DashboardToken.random().matches("[0-9a-f]{48}"));
    }

    private Path write(final String name, final String text, final String mode) throws IOException
    {
        final Path file = Files.writeString(folder.resolve(name), text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    private static void refused(final Path file, final String part)
    {
        final IOException refused = assertThrows(IOException.class, () -> DashboardToken.read(file, "setting"));
        assertTrue(refused.getMessage().startsWith("setting=" + file) && refused.getMessage().contains(part),
            refused.getMessage());
    }
}

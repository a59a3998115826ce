package io.stagecoach.rank.memory;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import io.stagecoach.pipeline.PackedHostBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SharedArenaTest
{
    private static final long LENGTH = SharedArena.FIRST_OFFSET + 4 * HostBufferPool.MIN_CLASS_BYTES;

    @TempDir
    Path directory;

    @Test
    void shouldHandOutBuffersUntilFullAndReuseReleasedOnes()
    {
        try (SharedArena arena = SharedArena.create(directory.toString(), 3, 42, LENGTH))
        {
            final PackedHostBuffer first = arena.acquire(1000);
            final PackedHostBuffer second = arena.acquire(2 * HostBufferPool.MIN_CLASS_BYTES);
            assertEquals(SharedArena.FIRST_OFFSET, arena.offsetOf(first.address()));
            assertEquals(SharedArena.FIRST_OFFSET + HostBufferPool.MIN_CLASS_BYTES, arena.offsetOf(second.address()));
            final PackedHostBuffer third = arena.acquire(HostBufferPool.MIN_CLASS_BYTES);
            assertNull(arena.acquire(1), "the arena is full");
            first.release();
            final PackedHostBuffer again = arena.acquire(10);
            assertEquals(first.address(), again.address(), "a released buffer of the class is reused");
            assertNull(arena.acquire(LENGTH), "larger than the arena");
            assertEquals(-1, arena.offsetOf(third.address() + HostBufferPool.MIN_CLASS_BYTES));
        }
    }

    @Test
    void shouldLetAPeerSeeWhatWasPackedAndDeleteItsFileOnClose()
    {
        final File file = SharedArena.file(directory.toString(), 1, 77);
        try (PeerArenas peers = new PeerArenas(directory.toString(), 2))
        {
            final long offset;
            try (SharedArena arena = SharedArena.create(directory.toString(), 1, 77, LENGTH))
            {
                assertTrue(file.exists(), file + " exists while the arena is open");
                final PackedHostBuffer buffer = arena.acquire(256);
                offset = arena.offsetOf(buffer.address());
                new UnsafeBuffer(buffer.address(), 256).putLong(8, 0x5ca1ab1eL);
                final long seen = peers.address(1, 77, offset, 256);
                assertNotEquals(buffer.address(), seen, "a mapping of its own");
                assertEquals(0x5ca1ab1eL, new UnsafeBuffer(seen, 256).getLong(8));

                final IllegalStateException outside =
                    assertThrows(IllegalStateException.class, () -> peers.address(1, 77, LENGTH - 8, 16));
                assertTrue(outside.getMessage().contains("[" + (LENGTH - 8) + ", " + (LENGTH + 8) + ")") &&
                    outside.getMessage().contains(Long.toString(LENGTH)), outside.getMessage());
            }
            assertFalse(file.exists(), file + " deleted on close");
            final IllegalStateException gone =
                assertThrows(IllegalStateException.class, () -> peers.address(1, 78, offset, 256));
            assertTrue(gone.getMessage().contains(SharedArena.file(directory.toString(), 1, 78).getPath()),
                gone.getMessage());
        }
    }

    @Test
    void shouldCreateItsFileModeSixHundredAndNeverThroughALink() throws IOException
    {
        try (SharedArena arena = SharedArena.create(directory.toString(), 2, 42, LENGTH))
        {
            assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(SharedArena.file(directory.toString(), 2, 42).toPath())));
            assertTrue(arena.acquire(64) != null);
        }
        final Path target = directory.resolve("target");
        Files.createSymbolicLink(SharedArena.file(directory.toString(), 2, 43).toPath(), target);
        assertThrows(UncheckedIOException.class, () -> SharedArena.create(directory.toString(), 2, 43, LENGTH));
        assertFalse(Files.exists(target));
    }

    @Test
    void shouldMapAPeersArenaOrSlotRegionNeverThroughALinkAndRemoveWhatAnEndedProcessLeft() throws IOException
    {
        final Path real;
        try (SharedArena arena = SharedArena.create(directory.toString(), 1, 50, LENGTH))
        {
            real = SharedArena.file(directory.toString(), 1, 50).toPath();
            assertTrue(arena.acquire(64) != null);
            Files.createSymbolicLink(SharedArena.file(directory.toString(), 1, 51).toPath(), real);
            try (PeerArenas peers = new PeerArenas(directory.toString(), 2))
            {
                final IllegalStateException arenaLink = assertThrows(IllegalStateException.class,
                    () -> peers.address(1, 51, SharedArena.FIRST_OFFSET, 64));
                assertTrue(arenaLink.getMessage().contains("stagecoach-arena-1-51.shm"), arenaLink.getMessage());
                final IllegalStateException regionLink = assertThrows(IllegalStateException.class,
                    () -> peers.slotRegion(1, 51, 1, 4096, 4096));
                assertTrue(regionLink.getMessage().contains("stagecoach-arena-1-51.shm"), regionLink.getMessage());
                assertTrue(peers.address(1, 50, SharedArena.FIRST_OFFSET, 64) != 0, "the real file maps");
            }
            assertTrue(SharedArena.deleteLeftBy(directory.toString(), 1, 51), "the link is removed");
            assertTrue(Files.exists(real), "not what it pointed at");
        }
        assertFalse(SharedArena.deleteLeftBy(directory.toString(), 1, 50), "closed: nothing left");
    }

    @Test
    void shouldRefuseALengthOutsideItsLimitsNamingBoth()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> SharedArena.create(directory.toString(), 0, 1, 100));
        assertTrue(ex.getMessage().contains("100") && ex.getMessage().contains("4096"), ex.getMessage());
    }
}

package io.stagecoach.rank;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;

/**
 * A rank of {@link ForeignLauncherSystemTest}, started with Open MPI's variables and no launcher of ours: rank 0
 * sends a greeting to rank 1, which prints it; each prints the mode of the job's folder while the job runs, and
 * {@code ERROR <message>} with exit status 3 when it cannot join. With an argument, rank 1 waits that many milliseconds
 * before it closes, then prints whether the folder is still there ({@code STILL true}).
 */
public final class ForeignRankMain
{
    private ForeignRankMain()
    {
    }

    /**
     * @param args none, or how long rank 1 waits before it closes, in milliseconds.
     * @throws IOException when the folder cannot be read.
     */
    public static void main(final String[] args) throws IOException, InterruptedException
    {
        try (Communicator world = Stagecoach.init())
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
            if (world.rank() == 0)
            {
                buffer.put(0, "hello from 0".getBytes(StandardCharsets.US_ASCII));
                world.send(buffer, 12, Datatype.BYTE, 1, 7);
                world.recv(buffer, 0, Datatype.BYTE, 1, 8);
            }
            else
            {
                world.recv(buffer, 12, Datatype.BYTE, 0, 7);
                final byte[] greeting = new byte[12];
                buffer.get(0, greeting);
                System.out.println("GOT " + new String(greeting, StandardCharsets.US_ASCII));
            }
            final Path folder = Path.of(LaunchEnvironment.detect().aeronDirectory()).getParent();
            System.out.println("FOLDER " + folder + " " + PosixFilePermissions.toString(
                Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS)));
            if (world.rank() == 1)
            {
                world.send(buffer, 0, Datatype.BYTE, 0, 8);
                if (args.length > 0)
                {
                    // rank 0, which runs the node's media driver, closes meanwhile
                    Thread.sleep(Long.parseLong(args[0]));
                    System.out.println("STILL " + Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS));
                }
            }
        }
        catch (final RuntimeException ex)
        {
            System.out.println("ERROR " + ex.getMessage());
            System.exit(3);
        }
    }
}

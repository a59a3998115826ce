package io.stagecoach.node.launch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceKind;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.rank.Communicator;
import io.stagecoach.rank.Stagecoach;
import io.stagecoach.rank.StagecoachContext;
import io.stagecoach.rank.bootstrap.LaunchEnvironment;

/**
 * Two ranks on emulated devices: rank 0 sends {@code args[0]} to rank 1, which then, while rank 0 waits for it,
 * lists the job's folder ({@code ENTRY <mode> <path>}), names the files that hold the payload ({@code PAYLOAD IN
 * <path>}) and, when it runs as root, tries to read the first of them as user nobody ({@code NOBODY <exit status>
 * <first line of error>}).
 */
public final class FolderRank
{
    private static final long MAX_SEARCHED_BYTES = 64L << 20;

    private FolderRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final byte[] payload = args[0].getBytes(StandardCharsets.US_ASCII);
        try (DeviceRuntime device = DeviceRuntime.open(new DeviceContext().kind(DeviceKind.EMULATED)
            .emulatedDeviceCount(1).emulatedMemoryBytes(16L << 20));
            Communicator world = Stagecoach.init(new StagecoachContext().deviceRuntime(device)))
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(256);
            if (world.rank() == 0)
            {
                buffer.put(0, payload);
                world.send(buffer, payload.length, Datatype.BYTE, 1, 1);
                world.recv(buffer, 0, Datatype.BYTE, 1, 2);
                return;
            }
            world.recv(buffer, payload.length, Datatype.BYTE, 0, 1);
            report(Path.of(LaunchEnvironment.detect().aeronDirectory()).getParent(), payload);
            world.send(buffer, 0, Datatype.BYTE, 0, 2);
        }
    }

    private static void report(final Path folder, final byte[] payload) throws IOException, InterruptedException
    {
        System.out.println("FOLDER " + folder);
        final List<Path> entries;
        try (Stream<Path> walk = Files.walk(folder))
        {
            entries = walk.toList();
        }
        Path holder = null;
        for (final Path entry : entries)
        {
            System.out.println("ENTRY " + PosixFilePermissions.toString(
                Files.getPosixFilePermissions(entry, LinkOption.NOFOLLOW_LINKS)) + " " + entry);
            if (Files.isRegularFile(entry) && Files.size(entry) <= MAX_SEARCHED_BYTES &&
                contains(Files.readAllBytes(entry), payload))
            {
                System.out.println("PAYLOAD IN " + entry);
                holder = null == holder ? entry : holder;
            }
        }
        if (null != holder && "root".equals(System.getProperty("user.name")))
        {
            final Process nobody = new ProcessBuilder("runuser", "-u", "nobody", "--", "head", "-c", "1",
                holder.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            final String error = new String(nobody.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            nobody.waitFor(10, TimeUnit.SECONDS);
            System.out.println("NOBODY " + nobody.exitValue() + " " + error.lines().findFirst().orElse(""));
        }
        System.out.flush();
    }

    private static boolean contains(final byte[] bytes, final byte[] payload)
    {
        outer:
        for (int i = 0; i + payload.length <= bytes.length; i++)
        {
            for (int j = 0; j < payload.length; j++)
            {
                if (bytes[i + j] != payload[j])
                {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}

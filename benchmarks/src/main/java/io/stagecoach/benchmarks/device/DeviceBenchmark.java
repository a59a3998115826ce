package io.stagecoach.benchmarks.device;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.stagecoach.device.Allocation;
import io.stagecoach.device.DeviceContext;
import io.stagecoach.device.DeviceEvent;
import io.stagecoach.device.DevicePacker;
import io.stagecoach.device.DeviceRuntime;
import io.stagecoach.device.DeviceStream;
import io.stagecoach.device.DeviceTranscoder;
import io.stagecoach.device.PackBatch;
import io.stagecoach.device.PackJob;
import io.stagecoach.protocol.datatype.CompiledType;
import io.stagecoach.protocol.datatype.Datatype;
import org.agrona.BufferUtil;
import org.agrona.concurrent.BusySpinIdleStrategy;

/**
 * The device benchmarks the GPU suite runs: host overhead of one pack call, halo faces of 128^3 and 256^3 float arrays
 * packed end to end (launch to completion observed by polling the event), an 8-byte pack end to end as the floor of a
 * pack call, a 64 MB strided pack with blocks of 4 B, 64 B and 1 KB, copies between two scattered layouts (one fused
 * kernel against the pack into scratch memory and unpack it replaced), and pinned host to device copies. Every kernel's
 * output is checked against the host pack before it is timed, the end-to-end packs' again after. Prints a table of
 * medians; with {@code --out DIR} also writes it, row by row, to DIR/device-benchmark.txt.
 * <p>
 * Usage: {@code DeviceBenchmark [--out DIR] [--quick]}
 */
public final class DeviceBenchmark
{
    private static final long MB = 1L << 20;
    private static final long SPIN_LIMIT_NS = TimeUnit.SECONDS.toNanos(5);

    private final DeviceRuntime runtime;
    private final DeviceStream stream;
    private final boolean quick;
    private final PrintWriter file;
    private final SplittableRandom random = new SplittableRandom(20261130);

    private DeviceBenchmark(final DeviceRuntime runtime, final DeviceStream stream, final boolean quick,
        final PrintWriter file)
    {
        this.runtime = runtime;
        this.stream = stream;
        this.quick = quick;
        this.file = file;
    }

    /**
     * @param args {@code --out DIR}, {@code --quick}.
     * @throws IOException when the report cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        Path out = null;
        boolean quick = false;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i] +
                    "; usage: DeviceBenchmark [--out DIR] [--quick]");
            }
        }
        PrintWriter file = null;
        if (out != null)
        {
            Files.createDirectories(out);
            file = new PrintWriter(Files.newBufferedWriter(out.resolve("device-benchmark.txt"), StandardCharsets.UTF_8),
                true);
        }
        final DeviceContext context = new DeviceContext().completionIdleStrategy(new BusySpinIdleStrategy());
        try (DeviceRuntime runtime = DeviceRuntime.open(context); DeviceStream stream = runtime.createStream())
        {
            final DeviceBenchmark benchmark = new DeviceBenchmark(runtime, stream, quick, file);
            benchmark.row(String.format("# device benchmark: %s, device %d of %d, %s, java %s", runtime.kind(),
                runtime.defaultDevice(), runtime.deviceCount(), runtime.deviceName(),
                System.getProperty("java.version")));
            benchmark.packOverhead();
            benchmark.eventRoundTrip();
            benchmark.faces();
            benchmark.exchanges();
            benchmark.smallPack();
            benchmark.stridedPacks();
            benchmark.layoutCopies();
            benchmark.pinnedCopies();
        }
        finally
        {
            if (file != null)
            {
                file.close();
            }
        }
    }

    private void packOverhead()
    {
        row("");
        row("## host overhead of one pack call (time spent in the call, the work runs asynchronously)");
        row(String.format("%-44s %10s %10s %10s %8s", "case", "median us", "p90 us", "p99 us", "calls"));
        final int n = 128;
        for (final Face face : new Face[] {Face.X, Face.Y})
        {
            final CompiledType type = face.type(n).commit().compiled();
            try (Allocation array = runtime.allocate(4L * n * n * n);
                Allocation packed = runtime.allocate(type.size()))
            {
                final DevicePacker packer = runtime.packer(type);
                final int calls = quick ? 2_000 : 20_000;
                final Samples cached = new Samples(calls);
                for (int i = 0; i < 100; i++)
                {
                    packer.pack(stream, array.address(), 1, 0, type.size(), packed.address());
                }
                stream.synchronize();
                for (int i = 0; i < calls; i++)
                {
                    final long start = System.nanoTime();
                    packer.pack(stream, array.address(), 1, 0, type.size(), packed.address());
                    cached.add(System.nanoTime() - start);
                    if ((i & 255) == 255)
                    {
                        stream.synchronize();
                    }
                }
                stream.synchronize();
                report(face.label(n) + " repeated call (cached graph)", cached);
                final int distinct = quick ? 500 : 2_000;
                final Samples first = new Samples(distinct);
                for (int i = 0; i < distinct; i++)
                {
                    final long offset = 4L * (i + 1);
                    final long start = System.nanoTime();
                    packer.pack(stream, array.address(), 1, offset, type.size() - offset, packed.address());
                    first.add(System.nanoTime() - start);
                    if ((i & 255) == 255)
                    {
                        stream.synchronize();
                    }
                }
                stream.synchronize();
                report(face.label(n) + " first sight (plain launch)", first);
            }
        }
    }

    private void faces()
    {
        row("");
        row("## halo faces packed end to end: launch to completion observed by polling the event (float, x fastest)");
        row("## 'fused': pack(..., event), the kernel signals the event; 'separate': pack, then stream.record(event)");
        row(String.format("%-44s %10s %10s %10s %8s", "face", "median us", "p90 us", "p99 us", "runs"));
        for (final int n : new int[] {128, 256})
        {
            try (Allocation array = runtime.allocate(4L * n * n * n);
                Allocation packed = runtime.allocate(4L * n * n);
                Allocation pinned = runtime.allocatePinned(4L * n * n);
                DeviceEvent done = runtime.createEvent())
            {
                final byte[] values = randomBytes((int)(4L * n * n * n));
                upload(array.address(), values);
                for (final Face face : Face.values())
                {
                    final CompiledType type = face.type(n).commit().compiled();
                    final DevicePacker packer = runtime.packer(type);
                    verify(packer, type, array.address(), values, packed.address());
                    report(face.label(n) + " to device memory", endToEnd(packer, type, array, packed.address(), done,
                        true));
                    check(type, values, packed.address());
                    report(face.label(n) + " separate record", endToEnd(packer, type, array, packed.address(), done,
                        false));
                    report(face.label(n) + " to pinned host memory", endToEnd(packer, type, array, pinned.address(),
                        done, true));
                    check(type, values, pinned.address());
                }
            }
        }
    }

    /**
     * The six faces one rank of a halo exchange sends (planes 1 and n-2 of each axis) packed as one batch: one launch
     * and one event for all six, launch to completion observed.
     */
    private void exchanges()
    {
        row("");
        row("## halo exchange: the six faces of planes 1 and n-2 packed as one batch (one launch, one event)");
        row(String.format("%-44s %10s %10s %10s %8s", "exchange", "median us", "p90 us", "p99 us", "runs"));
        for (final int n : new int[] {128, 256})
        {
            final long faceBytes = 4L * n * n;
            try (Allocation array = runtime.allocate(4L * n * n * n);
                Allocation packed = runtime.allocate(6 * faceBytes);
                Allocation single = runtime.allocate(faceBytes);
                DeviceEvent done = runtime.createEvent())
            {
                upload(array.address(), randomBytes((int)(4L * n * n * n)));
                final PackJob[] jobs = new PackJob[6];
                for (final Face face : Face.values())
                {
                    final CompiledType type = face.type(n).commit().compiled();
                    final DevicePacker packer = runtime.packer(type);
                    for (int side = 0; side < 2; side++)
                    {
                        final int j = face.ordinal() * 2 + side;
                        jobs[j] = PackJob.pack(packer, array.address() + face.planeOffsetBytes(n, side == 0 ? 1 : n - 2),
                            1, 0, type.size(), packed.address() + j * faceBytes);
                    }
                }
                try (PackBatch batch = runtime.packBatch(jobs))
                {
                    batch.launch(stream, done);
                    done.synchronize();
                    for (int j = 0; j < jobs.length; j++)
                    {
                        jobs[j].packer().pack(stream, jobs[j].typedAddress(), 1, 0, jobs[j].lengthBytes(),
                            single.address());
                        stream.synchronize();
                        if (!Arrays.equals(download(single.address(), (int)faceBytes),
                            download(packed.address() + j * faceBytes, (int)faceBytes)))
                        {
                            throw new IllegalStateException("batched face " + j + " of " + n + "^3 differs from " +
                                "the same face packed alone");
                        }
                    }
                    final int runs = quick ? 300 : 3_000;
                    final Samples samples = new Samples(runs);
                    for (int i = -100; i < runs; i++)
                    {
                        final long start = System.nanoTime();
                        batch.launch(stream, done);
                        spin(done, start);
                        if (i >= 0)
                        {
                            samples.add(System.nanoTime() - start);
                        }
                    }
                    report(n + "^3 exchange, 6 faces in one batch", samples);
                }
            }
        }
    }

    /**
     * The floor of a pack call: 8 bytes packed with an event, launch to completion observed.
     */
    private void smallPack()
    {
        final CompiledType type = Datatype.vector(2, 1, 2, Datatype.FLOAT).commit().compiled();
        try (Allocation array = runtime.allocate(64);
            Allocation packed = runtime.allocate(64);
            DeviceEvent done = runtime.createEvent())
        {
            final byte[] values = randomBytes(64);
            upload(array.address(), values);
            final DevicePacker packer = runtime.packer(type);
            verify(packer, type, array.address(), values, packed.address());
            report("8 B pack end to end", endToEnd(packer, type, array, packed.address(), done, true));
            check(type, values, packed.address());
        }
    }

    private Samples endToEnd(final DevicePacker packer, final CompiledType type, final Allocation array,
        final long packedAddress, final DeviceEvent done, final boolean fused)
    {
        final int runs = quick ? 300 : 3_000;
        final Samples samples = new Samples(runs);
        for (int i = -100; i < runs; i++)
        {
            final long start = System.nanoTime();
            if (fused)
            {
                packer.pack(stream, array.address(), 1, 0, type.size(), packedAddress, done);
            }
            else
            {
                packer.pack(stream, array.address(), 1, 0, type.size(), packedAddress);
                stream.record(done);
            }
            spin(done, start);
            if (i >= 0)
            {
                samples.add(System.nanoTime() - start);
            }
        }
        return samples;
    }

    private static void spin(final DeviceEvent event, final long startNs)
    {
        while (!event.isComplete())
        {
            if (System.nanoTime() - startNs > SPIN_LIMIT_NS)
            {
                throw new IllegalStateException("event not complete " + SPIN_LIMIT_NS / 1_000_000 + " ms after the " +
                    "call");
            }
            Thread.onSpinWait();
        }
    }

    private void eventRoundTrip()
    {
        row("");
        row("## event round trip on an idle stream: record, poll until complete");
        row(String.format("%-44s %10s %10s %10s %8s", "case", "median us", "p90 us", "p99 us", "runs"));
        try (DeviceEvent event = runtime.createEvent())
        {
            final int runs = quick ? 300 : 3_000;
            final Samples samples = new Samples(runs);
            for (int i = -100; i < runs; i++)
            {
                final long start = System.nanoTime();
                stream.record(event);
                spin(event, start);
                if (i >= 0)
                {
                    samples.add(System.nanoTime() - start);
                }
            }
            report("record + poll", samples);
        }
    }

    private void stridedPacks()
    {
        row("");
        row("## 64 MB strided pack, stride twice the block (bytes read + written per second, back-to-back packs)");
        row(String.format("%-44s %10s %10s %8s", "block", "TB/s", "us/pack", "packs"));
        final long packedBytes = 64 * MB;
        try (Allocation source = runtime.allocate(2 * packedBytes);
            Allocation packed = runtime.allocate(packedBytes))
        {
            final byte[] values = randomBytes((int)(2 * packedBytes));
            upload(source.address(), values);
            for (final int block : new int[] {4, 64, 1024})
            {
                final CompiledType type = Datatype.hvector((int)(packedBytes / block), block, 2L * block,
                    Datatype.BYTE).commit().compiled();
                final DevicePacker packer = runtime.packer(type);
                verify(packer, type, source.address(), values, packed.address());
                for (int i = 0; i < 3; i++)
                {
                    packer.pack(stream, source.address(), 1, 0, packedBytes, packed.address());
                }
                stream.synchronize();
                final int packs = quick ? 5 : 50;
                final long start = System.nanoTime();
                for (int i = 0; i < packs; i++)
                {
                    packer.pack(stream, source.address(), 1, 0, packedBytes, packed.address());
                }
                stream.synchronize();
                final double seconds = (System.nanoTime() - start) / 1e9;
                row(String.format(Locale.ROOT, "%-44s %10.2f %10.1f %8d", block + " B blocks",
                    2.0 * packedBytes * packs / seconds / 1e12, seconds / packs * 1e6, packs));
            }
        }
    }

    /**
     * Copies between two scattered layouts of one packed size, launch to completion observed: one fused kernel that
     * reads the source's layout and writes the destination's, against a pack into device scratch memory and an unpack
     * out of it (the two launches the fused kernel replaced in one-sided gets). Both results are checked against the
     * host's pack then unpack first.
     */
    private void layoutCopies()
    {
        row("");
        row("## copy between two scattered layouts, launch to completion observed: 'fused' one kernel (transcode with");
        row("## an event), 'pack + unpack' a pack into device scratch memory then an unpack with an event");
        row(String.format("%-44s %10s %10s %10s %8s %8s", "case", "median us", "p90 us", "p99 us", "runs",
            "GB/s r+w"));
        for (final int n : new int[] {128, 256})
        {
            layoutCopy("X to Y face " + n + "^3 (" + 4 * n * n / 1024 + " KiB)",
                Datatype.vector(n * n, 1, n, Datatype.FLOAT), 1, 4L * n * n * n,
                Datatype.vector(n, n, n * n, Datatype.FLOAT), 1, 4L * n * n * n);
        }
        layoutCopy("4 MiB 4 B to 256 B blocks", Datatype.vector(MB, 1, 2, Datatype.FLOAT), 1, 8 * MB,
            Datatype.vector(MB / 64, 64, 96, Datatype.FLOAT), 1, 6 * MB);
        final Datatype indexed = Datatype.indexed(new int[] {1, 3}, new int[] {0, 2}, Datatype.FLOAT).commit();
        layoutCopy("4 MiB tree 4+12 B to 4 B blocks", indexed, MB / 4, 6 * MB,
            Datatype.vector(MB, 1, 3, Datatype.FLOAT), 1, 12 * MB);
        layoutCopy("4 MiB tree 4+12 B to tree 12+4 B", indexed, MB / 4, 6 * MB,
            Datatype.indexed(new int[] {3, 1}, new int[] {0, 4}, Datatype.FLOAT).commit(), MB / 4, 6 * MB);
        layoutCopy("64 MiB 4 B to 256 B blocks", Datatype.vector(16 * MB, 1, 2, Datatype.FLOAT), 1, 128 * MB,
            Datatype.vector(MB / 4, 64, 96, Datatype.FLOAT), 1, 96 * MB);
    }

    private void layoutCopy(final String label, final Datatype from, final long count, final long fromBytes,
        final Datatype to, final long toCount, final long toBytes)
    {
        final CompiledType source = from.commit().compiled();
        final CompiledType destination = to.commit().compiled();
        final long packedBytes = count * source.size();
        try (Allocation typed = runtime.allocate(fromBytes);
            Allocation fused = runtime.allocate(toBytes);
            Allocation separate = runtime.allocate(toBytes);
            Allocation scratch = runtime.allocate(packedBytes);
            DeviceEvent done = runtime.createEvent())
        {
            final byte[] values = randomBytes((int)fromBytes);
            upload(typed.address(), values);
            final DeviceTranscoder transcoder = runtime.transcoder(source, destination);
            final DevicePacker pack = runtime.packer(source);
            final DevicePacker unpack = runtime.packer(destination);
            final Runnable oneKernel = () -> transcoder.transcode(stream, typed.address(), count, fused.address(),
                toCount, 0, packedBytes, done);
            final Runnable twoKernels = () ->
            {
                pack.pack(stream, typed.address(), count, 0, packedBytes, scratch.address());
                unpack.unpack(stream, scratch.address(), toCount, 0, packedBytes, separate.address(), done);
            };
            oneKernel.run();
            twoKernels.run();
            done.synchronize();
            checkCopy(source, count, destination, toCount, values, fused.address(), toBytes);
            checkCopy(source, count, destination, toCount, values, separate.address(), toBytes);
            final int runs = packedBytes > 16 * MB ? (quick ? 30 : 300) : (quick ? 300 : 3_000);
            reportCopy(label + " fused", endToEnd(oneKernel, done, runs), packedBytes);
            reportCopy(label + " pack+unpack", endToEnd(twoKernels, done, runs), packedBytes);
        }
    }

    private Samples endToEnd(final Runnable call, final DeviceEvent done, final int runs)
    {
        final Samples samples = new Samples(runs);
        for (int i = -Math.min(100, runs); i < runs; i++)
        {
            final long start = System.nanoTime();
            call.run();
            spin(done, start);
            if (i >= 0)
            {
                samples.add(System.nanoTime() - start);
            }
        }
        return samples;
    }

    private void checkCopy(final CompiledType source, final long count, final CompiledType destination,
        final long toCount, final byte[] values, final long address, final long toBytes)
    {
        final long packedBytes = count * source.size();
        final ByteBuffer host = BufferUtil.allocateDirectAligned(values.length, 64);
        host.put(values).clear();
        final ByteBuffer packed = BufferUtil.allocateDirectAligned((int)packedBytes, 64);
        source.pack(BufferUtil.address(host), count, 0, packedBytes, BufferUtil.address(packed));
        final ByteBuffer expected = BufferUtil.allocateDirectAligned((int)packedBytes, 64);
        final ByteBuffer arrived = BufferUtil.allocateDirectAligned((int)toBytes, 64);
        arrived.put(download(address, (int)toBytes)).clear();
        destination.pack(BufferUtil.address(arrived), toCount, 0, packedBytes, BufferUtil.address(expected));
        final int mismatch = packed.mismatch(expected);
        if (mismatch >= 0)
        {
            throw new IllegalStateException("copy from " + source + " to " + destination + " differs from the host's " +
                "pack then unpack at packed byte " + mismatch + " of " + packedBytes);
        }
    }

    private void reportCopy(final String label, final Samples samples, final long packedBytes)
    {
        row(String.format(Locale.ROOT, "%-44s %10.2f %10.2f %10.2f %8d %8.1f", label, samples.medianMicros(),
            samples.percentileMicros(90), samples.percentileMicros(99), samples.count(),
            2.0 * packedBytes / samples.medianMicros() / 1e3));
    }

    private void pinnedCopies()
    {
        row("");
        row("## copies between pinned host memory and the device (back-to-back, one stream)");
        row(String.format("%-44s %10s %10s %8s", "size and direction", "GB/s", "us/copy", "copies"));
        final long largest = 16 * MB;
        try (Allocation pinned = runtime.allocatePinned(largest); Allocation device = runtime.allocate(largest))
        {
            for (final long size : new long[] {256 * 1024, MB, 4 * MB, 16 * MB})
            {
                copies(size + " B host to device", device.address(), pinned.address(), size);
                copies(size + " B device to host", pinned.address(), device.address(), size);
            }
        }
    }

    private void copies(final String label, final long dst, final long src, final long size)
    {
        for (int i = 0; i < 5; i++)
        {
            stream.copy(dst, src, size);
        }
        stream.synchronize();
        final int copies = quick ? 10 : (int)Math.max(50, (1L << 30) / size);
        final long start = System.nanoTime();
        for (int i = 0; i < copies; i++)
        {
            stream.copy(dst, src, size);
        }
        stream.synchronize();
        final double seconds = (System.nanoTime() - start) / 1e9;
        row(String.format(Locale.ROOT, "%-44s %10.1f %10.2f %8d", label, (double)size * copies / seconds / 1e9,
            seconds / copies * 1e6, copies));
    }

    private void verify(final DevicePacker packer, final CompiledType type, final long typedAddress,
        final byte[] values, final long packedAddress)
    {
        packer.pack(stream, typedAddress, 1, 0, type.size(), packedAddress);
        stream.synchronize();
        check(type, values, packedAddress);
    }

    private void check(final CompiledType type, final byte[] values, final long packedAddress)
    {
        final int size = (int)type.size();
        final byte[] actual = download(packedAddress, size);
        final ByteBuffer host = BufferUtil.allocateDirectAligned(values.length, 64);
        host.put(values).clear();
        final ByteBuffer expected = BufferUtil.allocateDirectAligned(size, 64);
        type.pack(BufferUtil.address(host), 1, 0, size, BufferUtil.address(expected));
        final byte[] expectedBytes = new byte[size];
        expected.get(expectedBytes);
        final int mismatch = Arrays.mismatch(expectedBytes, actual);
        if (mismatch >= 0)
        {
            throw new IllegalStateException("device pack of " + type + " differs from the host pack at byte " +
                mismatch + " of " + size);
        }
    }

    private void upload(final long address, final byte[] bytes)
    {
        final ByteBuffer host = BufferUtil.allocateDirectAligned(bytes.length, 4096);
        host.put(bytes).clear();
        stream.copy(address, BufferUtil.address(host), bytes.length);
        stream.synchronize();
    }

    private byte[] download(final long address, final int length)
    {
        final ByteBuffer host = BufferUtil.allocateDirectAligned(length, 4096);
        stream.copy(BufferUtil.address(host), address, length);
        stream.synchronize();
        final byte[] bytes = new byte[length];
        host.get(bytes);
        return bytes;
    }

    private byte[] randomBytes(final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i += 8)
        {
            long value = random.nextLong();
            for (int j = 0; j < 8 && i + j < length; j++)
            {
                bytes[i + j] = (byte)value;
                value >>>= 8;
            }
        }
        return bytes;
    }

    private void report(final String label, final Samples samples)
    {
        row(String.format(Locale.ROOT, "%-44s %10.2f %10.2f %10.2f %8d", label, samples.medianMicros(),
            samples.percentileMicros(90), samples.percentileMicros(99), samples.count()));
    }

    private void row(final String line)
    {
        if (file != null)
        {
            file.println(line);
        }
        final PrintStream out = System.out;
        out.println(line);
        out.flush();
    }

    /**
     * The halo faces of an n^3 float array with x fastest, as in the paper's LBM and in cupy_faces.py.
     */
    enum Face
    {
        X, Y, Z;

        Datatype type(final int n)
        {
            return switch (this)
            {
                case X -> Datatype.vector(n * n, 1, n, Datatype.FLOAT);
                case Y -> Datatype.vector(n, n, n * n, Datatype.FLOAT);
                case Z -> Datatype.contiguous(n * n, Datatype.FLOAT);
            };
        }

        long planeOffsetBytes(final int n, final int plane)
        {
            return switch (this)
            {
                case X -> 4L * plane;
                case Y -> 4L * n * plane;
                case Z -> 4L * n * n * plane;
            };
        }

        String label(final int n)
        {
            return n + "^3 " + name() + " face (" + (4 * n * n / 1024) + " KiB)";
        }
    }
}

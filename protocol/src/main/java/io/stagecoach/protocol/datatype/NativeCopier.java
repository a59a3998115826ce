package io.stagecoach.protocol.datatype;

import java.util.Locale;

import io.stagecoach.protocol.host.NativeLibrary;

/**
 * The native host packer: strided copies done by the C library's {@code memcpy} through one JNI call per strided
 * run, in the native host library ({@link NativeLibrary}, from {@code src/main/c/host_pack.c}).
 * On Java 17 a row of 0.5 to 1 KiB copies faster there than through {@code Unsafe.copyMemory} (see the host pack
 * section of docs/benchmarks.md).
 * <p>
 * The system property {@value #PATH_PROPERTY} chooses where host packs copy: {@code auto} (the default: the
 * native packer for runs of rows longer than {@link #MIN_ROW_BYTES} between off-heap buffers, when it loaded),
 * {@code java} (never) or {@code native} (every copy of a non-contiguous type, on and off heap; fails at first
 * use when the library cannot be loaded).
 */
final class NativeCopier
{
    static final String PATH_PROPERTY = "stagecoach.datatype.hostPack";
    static final long MIN_ROW_BYTES = 64;
    static final String LOAD_FAILURE;
    static final boolean ALWAYS;
    static final boolean FOR_ROWS;

    static
    {
        final String path = System.getProperty(PATH_PROPERTY, "auto").toLowerCase(Locale.ROOT);
        if (!path.equals("auto") && !path.equals("java") && !path.equals("native"))
        {
            throw new IllegalArgumentException(
                PATH_PROPERTY + " must be auto, java or native, was " + System.getProperty(PATH_PROPERTY));
        }
        LOAD_FAILURE = path.equals("java") ? "disabled by " + PATH_PROPERTY + "=java" : NativeLibrary.loadFailure();
        if (path.equals("native") && LOAD_FAILURE != null)
        {
            throw new IllegalStateException(PATH_PROPERTY + "=native but " + LOAD_FAILURE);
        }
        ALWAYS = path.equals("native");
        FOR_ROWS = path.equals("auto") && LOAD_FAILURE == null;
    }

    private NativeCopier()
    {
    }

    /**
     * Whether a run of {@code n} blocks of {@code lengthBytes} between these bases copies natively.
     */
    static boolean takes(final Object srcBase, final Object dstBase, final long lengthBytes, final long n)
    {
        return ALWAYS || (FOR_ROWS && lengthBytes > MIN_ROW_BYTES && n > 1 && srcBase == null && dstBase == null);
    }

    /**
     * Copies n blocks of lengthBytes from src + e * srcStride to dst + e * dstStride; a base is null (the offset
     * is an address) or a byte[] (the offset counts from {@link Memory#BYTE_ARRAY_BASE_OFFSET}).
     */
    static void gather(final Object srcBase, final long src, final long srcStride, final Object dstBase,
        final long dst, final long dstStride, final long lengthBytes, final long n)
    {
        if (srcBase == null && dstBase == null)
        {
            gatherAddresses0(src, srcStride, dst, dstStride, lengthBytes, n);
        }
        else
        {
            gather0((byte[])srcBase, arrayIndex(srcBase, src), srcStride, (byte[])dstBase, arrayIndex(dstBase, dst),
                dstStride, lengthBytes, n);
        }
    }

    private static long arrayIndex(final Object base, final long offset)
    {
        return base == null ? offset : offset - Memory.BYTE_ARRAY_BASE_OFFSET;
    }

    private static native void gather0(byte[] srcArray, long src, long srcStride, byte[] dstArray, long dst,
        long dstStride, long lengthBytes, long n);

    private static native void gatherAddresses0(long src, long srcStride, long dst, long dstStride,
        long lengthBytes, long n);
}

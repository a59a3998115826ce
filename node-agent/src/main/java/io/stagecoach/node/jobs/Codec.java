package io.stagecoach.node.jobs;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Strings, lists and maps of the jobs' messages, length-prefixed, with bounds on every length read.
 */
final class Codec
{
    /** The longest string: a class path or a line of output. */
    static final int MAX_STRING_BYTES = 1 << 20;
    /** The most entries of a list or map. */
    static final int MAX_ENTRIES = 65536;

    private Codec()
    {
    }

    static void writeString(final DataOutputStream out, final String value) throws IOException
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING_BYTES)
        {
            throw new IllegalArgumentException("a string of " + bytes.length + " bytes is longer than " +
                MAX_STRING_BYTES);
        }
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readString(final DataInputStream in) throws IOException
    {
        final int length = in.readInt();
        if (length < 0 || length > MAX_STRING_BYTES)
        {
            throw new IOException("string length " + length + " is not from 0 to " + MAX_STRING_BYTES);
        }
        final byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static void writeStrings(final DataOutputStream out, final List<String> values) throws IOException
    {
        out.writeInt(values.size());
        for (final String value : values)
        {
            writeString(out, value);
        }
    }

    static List<String> readStrings(final DataInputStream in) throws IOException
    {
        final int count = count(in.readInt());
        final List<String> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            values.add(readString(in));
        }
        return values;
    }

    static void writeMap(final DataOutputStream out, final Map<String, String> values) throws IOException
    {
        final Map<String, String> sorted = new TreeMap<>(values);
        out.writeInt(sorted.size());
        for (final Map.Entry<String, String> entry : sorted.entrySet())
        {
            writeString(out, entry.getKey());
            writeString(out, entry.getValue());
        }
    }

    static Map<String, String> readMap(final DataInputStream in) throws IOException
    {
        final int count = count(in.readInt());
        final Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < count; i++)
        {
            values.put(readString(in), readString(in));
        }
        return values;
    }

    static void writeRanks(final DataOutputStream out, final int[] ranks) throws IOException
    {
        out.writeInt(ranks.length);
        for (final int rank : ranks)
        {
            out.writeInt(rank);
        }
    }

    static int[] readRanks(final DataInputStream in) throws IOException
    {
        final int[] ranks = new int[count(in.readInt())];
        for (int i = 0; i < ranks.length; i++)
        {
            ranks[i] = in.readInt();
        }
        return ranks;
    }

    static int count(final int count) throws IOException
    {
        if (count < 0 || count > MAX_ENTRIES)
        {
            throw new IOException("count " + count + " is not from 0 to " + MAX_ENTRIES);
        }
        return count;
    }
}

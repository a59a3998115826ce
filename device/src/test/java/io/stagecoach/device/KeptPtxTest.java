package io.stagecoach.device;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PTX kept in src/main/resources (used by builds without nvcc) must come from the current CUDA C source:
 * its first line records the source's SHA-256. Refresh it with {@code device/src/main/cuda/build-ptx.sh --update}.
 */
class KeptPtxTest
{
    private static final Path SOURCE = Path.of("src/main/cuda/stagecoach_kernels.cu");
    private static final Path KEPT = Path.of("src/main/resources/io/stagecoach/device/cuda/stagecoach_kernels.ptx");

    @Test
    void shouldKeepPtxCompiledFromTheCurrentSource() throws IOException, NoSuchAlgorithmException
    {
        Assumptions.assumeTrue(Files.exists(SOURCE), "sources not present (running from a bundle)");
        final List<String> lines = Files.readAllLines(KEPT, StandardCharsets.UTF_8);
        final String prefix = "// source-sha256: ";
        assertTrue(lines.get(0).startsWith(prefix), "first line of " + KEPT + " records no source hash");
        final String recorded = lines.get(0).substring(prefix.length()).trim();
        final String actual = HexFormat.of().formatHex(
            MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(SOURCE)));
        assertEquals(actual, recorded, KEPT + " is stale against " + SOURCE +
            ": run device/src/main/cuda/build-ptx.sh --update");
    }

    @Test
    void shouldKeepEveryKernelTheHostCanChoose() throws IOException
    {
        Assumptions.assumeTrue(Files.exists(KEPT), "sources not present (running from a bundle)");
        final String ptx = Files.readString(KEPT, StandardCharsets.UTF_8);
        for (final String direction : new String[] {"pack", "unpack"})
        {
            for (final int unit : new int[] {1, 2, 4, 8, 16})
            {
                assertTrue(ptx.contains(".entry sc_" + direction + "_tree_u" + unit + "("));
                for (int dims = 1; dims <= 3; dims++)
                {
                    assertTrue(ptx.contains(".entry sc_" + direction + "_nd" + dims + "_u" + unit + "("));
                    assertTrue(ptx.contains(".entry sc_" + direction + "_nd" + dims + "w_u" + unit + "("));
                }
            }
        }
        assertTrue(ptx.contains(".target sm_90"), "PTX must target compute capability 9.0");
    }
}

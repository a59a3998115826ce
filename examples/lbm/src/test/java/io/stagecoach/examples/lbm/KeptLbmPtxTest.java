package io.stagecoach.examples.lbm;

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
 * The PTX kept in src/main/resources (used by builds without nvcc) must come from the current CUDA C source: its first
 * line records the source's SHA-256. Refresh it with {@code examples/lbm/src/main/cuda/build-ptx.sh --update}.
 */
class KeptLbmPtxTest
{
    private static final Path SOURCE = Path.of("src/main/cuda/lbm_kernels.cu");
    private static final Path KEPT = Path.of("src/main/resources/io/stagecoach/examples/lbm/lbm_kernels.ptx");

    @Test
    void shouldKeepPtxCompiledFromTheCurrentSource() throws IOException, NoSuchAlgorithmException
    {
        Assumptions.assumeTrue(Files.exists(SOURCE), "sources not present (running from a bundle)");
        final List<String> lines = Files.readAllLines(KEPT, StandardCharsets.UTF_8);
        final String prefix = "// source-sha256: ";
        assertTrue(lines.get(0).startsWith(prefix), "first line of " + KEPT + " records no source hash");
        final String actual = HexFormat.of().formatHex(
            MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(SOURCE)));
        assertEquals(actual, lines.get(0).substring(prefix.length()).trim(), KEPT + " is stale against " + SOURCE +
            ": run examples/lbm/src/main/cuda/build-ptx.sh --update");
    }

    @Test
    void shouldKeepEveryKernelTheJavaTwinsMirror() throws IOException
    {
        Assumptions.assumeTrue(Files.exists(KEPT), "sources not present (running from a bundle)");
        final String ptx = Files.readString(KEPT, StandardCharsets.UTF_8);
        for (final String kernel : LbmKernels.source().emulatedKernels())
        {
            assertTrue(ptx.contains(".entry " + kernel + "("), kernel + " missing from " + KEPT);
        }
        assertTrue(ptx.contains(".target sm_90"), "PTX must target compute capability 9.0");
        assertTrue(!ptx.contains("fma.rn.f32"), "the kernels must be compiled without FMA contraction (-fmad=false)");
    }
}

package io.stagecoach.node.agent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's configuration file: what a valid one gives, and refusals that name the key, the value and the limit.
 */
class AgentSettingsTest
{
    private static final String VALID = "stagecoach.agent {\n" +
        "  node-name = node-a\n" +
        "  bind { host = \"10.0.0.1\", port = 25520 }\n" +
        "  seeds = [\"10.0.0.1:25520\", \"node-b:25520\", \"[fd00::2]:25521\"]\n" +
        "  state-dir = \"/var/lib/stagecoach\"\n" +
        "  gpus = 4\n" +
        "}\n";

    @Test
    void shouldReadEveryKeyOfAValidFile(@TempDir final Path folder) throws Exception
    {
        final Path file = Files.writeString(folder.resolve("agent.conf"), VALID);

        final AgentSettings settings = AgentSettings.load(file, () -> 99);

        assertEquals("node-a", settings.nodeName());
        assertEquals("10.0.0.1", settings.host());
        assertEquals(25520, settings.port());
        assertEquals(List.of(new SeedAddress("10.0.0.1", 25520), new SeedAddress("node-b", 25520),
            new SeedAddress("fd00::2", 25521)), settings.seeds());
        assertEquals(Path.of("/var/lib/stagecoach"), settings.stateFolder());
        assertEquals(4, settings.gpus());
        assertFalse(settings.groupAccess());
        assertEquals("pekko://stagecoach@[fd00::2]:25521", settings.seeds().get(2).pekkoAddress("stagecoach"));
    }

    @Test
    void shouldCountTheGpusTheDeviceLayerSeesWhereAutoOrMissing()
    {
        assertEquals(3, parse(VALID.replace("gpus = 4", "gpus = auto"), 3).gpus());
        assertEquals(0, parse(VALID.replace("gpus = 4", ""), 0).gpus());
        assertTrue(parse(VALID.replace("gpus = 4", "control.group-access = true"), 0).groupAccess());
    }

    @Test
    void shouldReadTheClusterKeyOnlyFromFilesNoOtherUserCanRead(@TempDir final Path folder) throws Exception
    {
        final Path store = Files.writeString(folder.resolve("cluster.p12"), "key store bytes");
        final Path password = Files.writeString(folder.resolve("cluster.password"), "the password\nignored\n");
        Files.setPosixFilePermissions(store, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(password, java.nio.file.attribute.PosixFilePermissions.fromString("r--------"));
        final String tls = VALID.replace("gpus = 4", "gpus = 4\n  tls { key-store = \"" + store +
            "\", password-file = \"" + password + "\" }");

        final ClusterKey key = parse(tls, 0).clusterKey();
        assertEquals(store, key.keyStore());
        assertEquals("the password", key.password());
        assertFalse(key.toString().contains("the password"), key.toString());
        assertEquals(null, parse(VALID, 0).clusterKey());
        assertTrue(parse(tls, 0).runsJobs(), "with the key on a network address");
        assertFalse(parse(VALID, 0).runsJobs(), "without the key on a network address");
        assertTrue(parse(VALID.replace("host = \"10.0.0.1\"", "host = \"127.0.0.1\""), 0).runsJobs(),
            "without the key on the loopback network");
        assertEquals(new JobSettings(40100, "nvidia-cuda-mps-control", "keep-majority", 2000, DashboardSettings.NONE),
            parse(VALID, 0).jobs());
        assertEquals(new JobSettings(45000, "off", "keep-oldest", 5000,
            new DashboardSettings(8080, "127.0.0.1", null, 5_000)), parse(VALID.replace("gpus = 4",
            "gpus = 4\n  ranks.udp-port-base = 45000\n  mps.control = off\n  downing { strategy = keep-oldest, " +
            "stable-after-ms = 5000 }\n  dashboard.port = 8080"), 0).jobs());
        assertRefused(VALID.replace("gpus = 4", "gpus = 4\n  downing.strategy = auto-down"),
            "stagecoach.agent.downing.strategy = auto-down is refused: it must be keep-majority or keep-oldest");

        Files.setPosixFilePermissions(store, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        assertRefused(tls, "stagecoach.agent.tls.key-store = " + store + " is refused: it must be a file only its " +
            "owner may read or write (0600 or 0400), not rw-r--r--");
        assertRefused(VALID.replace("gpus = 4", "gpus = 4\n  tls.key-store = \"" + store + "\""),
            "stagecoach.agent.tls.password-file is missing: it must be given together with " +
            "stagecoach.agent.tls.key-store");
    }

    @Test
    void shouldAskForATokenFileWhereTheDashboardListensOffLoopback()
    {
        assertEquals(new DashboardSettings(8080, "10.0.0.1", Path.of("/etc/stagecoach/dashboard.token"), 5_000),
            parse(VALID.replace("gpus = 4", "gpus = 4\n  dashboard { port = 8080, address = \"10.0.0.1\", " +
                "token-file = \"/etc/stagecoach/dashboard.token\" }"), 0).jobs().dashboard());
        assertRefused(VALID.replace("gpus = 4", "gpus = 4\n  dashboard { port = 8080, address = \"10.0.0.1\" }"),
            "stagecoach.agent.dashboard.token-file is missing: it must be given where dashboard.address (10.0.0.1) " +
                "is not a loopback address");
        assertRefused(VALID.replace("gpus = 4", "gpus = 4\n  dashboard { port = 8080, address = \"10.0.0.1\", " +
            "token-file = \"dashboard.token\" }"),
            "stagecoach.agent.dashboard.token-file = dashboard.token is refused: it must be an absolute path");
        assertEquals(200, parse(VALID.replace("gpus = 4", "gpus = 4\n  dashboard { port = 8080, " +
            "bars-per-second = 200 }"), 0).jobs().dashboard().barsPerSecond());
        assertRefused(VALID.replace("gpus = 4", "gpus = 4\n  dashboard { port = 8080, bars-per-second = 4 }"),
            "stagecoach.agent.dashboard.bars-per-second = 4 is refused: it must be");
        assertRefused(VALID.replace("gpus = 4", "gpus = 4\n  dashboard { port = 8080, address = \"no-such-host.invalid\" }"),
            "stagecoach.agent.dashboard.address = no-such-host.invalid is refused: it must be an address that resolves");
    }

    @Test
    void shouldNameTheKeyTheValueAndTheLimitOfARefusedValue()
    {
        assertRefused(VALID.replace("port = 25520", "port = 70000"),
            "stagecoach.agent.bind.port = 70000 is refused: it must be a whole number in [1, 65535]");
        assertRefused(VALID.replace("gpus = 4", "gpus = 65"),
            "stagecoach.agent.gpus = 65 is refused: it must be auto or a whole number in [0, 64]");
        assertRefused(VALID.replace("gpus = 4", "gpus = many"),
            "stagecoach.agent.gpus = \"many\" is refused: it must be auto or a whole number in [0, 64]");
        assertRefused(VALID.replace("\"node-b:25520\"", "\"node-b\""),
            "stagecoach.agent.seeds[1] = node-b is refused: it must be host:port with a port in [1, 65535]");
        assertRefused(VALID.replace("\"node-b:25520\"", "\"node-b:0\""),
            "stagecoach.agent.seeds[1] = node-b:0 is refused: it must be host:port with a port in [1, 65535]");
        assertRefused(VALID.replace("\"node-b:25520\"", "\"10.0.0.1:25520\""),
            "stagecoach.agent.seeds[1] = 10.0.0.1:25520 is refused: it must be listed once");
        assertRefused(VALID.replace("seeds = [\"10.0.0.1:25520\", \"node-b:25520\", \"[fd00::2]:25521\"]",
            "seeds = []"), "stagecoach.agent.seeds = [] is refused: it must be a list of 1 to 64 host:port entries");
        assertRefused(VALID.replace("node-name = node-a", "node-name = \"a b\""),
            "stagecoach.agent.node-name = a b is refused: it must be a name of 1 to 63 letters");
        assertRefused(VALID.replace("\"/var/lib/stagecoach\"", "\"var/lib\""),
            "stagecoach.agent.state-dir = var/lib is refused: it must be an absolute path");
        assertRefused(VALID.replace("node-name = node-a", ""),
            "stagecoach.agent.node-name is missing: it must be a name of 1 to 63 letters");
        assertRefused(VALID.replace("gpus = 4", "control.group-access = maybe"),
            "stagecoach.agent.control.group-access = \"maybe\" is refused: it must be true or false");
    }

    @Test
    void shouldNameAFileThatCannotBeParsed(@TempDir final Path folder) throws Exception
    {
        final Path file = Files.writeString(folder.resolve("agent.conf"), "stagecoach.agent { node-name = ");

        final AgentConfigException ex = assertThrows(AgentConfigException.class, () -> AgentSettings.load(file));

        assertTrue(ex.getMessage().startsWith("configuration file " + file + " cannot be read"), ex.getMessage());
        assertThrows(AgentConfigException.class, () -> AgentSettings.load(folder.resolve("missing.conf")));
    }

    private static AgentSettings parse(final String text, final int detected)
    {
        return AgentSettings.from(ConfigFactory.parseString(text), () -> detected);
    }

    private static void assertRefused(final String text, final String messageStart)
    {
        final AgentConfigException ex = assertThrows(AgentConfigException.class, () -> parse(text, 0));
        assertTrue(ex.getMessage().startsWith(messageStart), ex.getMessage());
    }
}

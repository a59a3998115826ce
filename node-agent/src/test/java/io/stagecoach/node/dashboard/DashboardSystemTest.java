package io.stagecoach.node.dashboard;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.json.Json;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code stagecoach run --dashboard} in a real browser: Debian's Chromium, driven through its chromedriver by
 * Selenium (both installed by {@code bin/install-browser}, nothing downloaded at run time), watching two ranks run the
 * bandwidth benchmark with 4 MiB device-to-device messages on the emulated device, forced through the stage pipeline
 * so that its stages show (a contiguous message: the sender's pack is its copy to host memory, D2H, and the chunk's
 * WIRE; the receiver's copy to the device, H2D, read in place out of the sender's arena). What it checks is read from
 * the page itself: a lane for every rank and stage the job records, bars that move as chunks complete, the link's
 * rate over its last 2 s while the job runs reaching the benchmark's own figure, the link's average rate within 20%
 * of that figure (the benchmark times all of the job's traffic: no JIT warm-up, no skipped windows), and a download
 * that parses as a Chrome trace with the job's stage events. It leaves a screenshot in target/, and in the
 * file that {@code -Dstagecoach.dashboard.screenshot} names.
 */
@Tag("system")
@Timeout(600)
class DashboardSystemTest
{
    private static final long SIZE_BYTES = 4L * 1024 * 1024;
    private static final Pattern URL = Pattern.compile("stagecoach: dashboard at (http://\\S+)");
    private static final Pattern RESULT = Pattern.compile("^" + SIZE_BYTES + "\\s+([0-9.]+)\\s*$");
    private static final Duration WAIT = Duration.ofSeconds(180);
    /** Below the run's rate of stage events, so that the page samples and says so. */
    private static final int BARS_PER_SECOND = 500;

    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> transcript = Collections.synchronizedList(new ArrayList<>());
    private Process job;
    private WebDriver browser;

    @TempDir
    Path folder;

    @AfterEach
    void stop() throws InterruptedException
    {
        if (null != browser)
        {
            browser.quit();
        }
        if (null != job && job.isAlive())
        {
            job.destroy();
            if (!job.waitFor(30, TimeUnit.SECONDS))
            {
                job.destroyForcibly();
            }
        }
    }

    @Test
    void shouldShowTheStagesAndRateOfA4MiBDeviceBandwidthRunLiveAndExportThem() throws Exception
    {
        final Map<String, String> installed = installBrowser();
        job = startJob();
        final String url = awaitUrl();
        browser = openBrowser(installed, folder.resolve("downloads"));
        browser.get(url);

        final WebDriverWait wait = new WebDriverWait(browser, WAIT, Duration.ofMillis(200));
        final Set<String> lanes = Set.of("0:D2H", "0:WIRE", "1:H2D");
        wait.withMessage(() -> "lanes " + lanes + " on the page; it shows " + lanesOnPage() + "; job: " + transcript)
            .until(page -> lanesOnPage().containsAll(lanes));

        final double firstEnd = lastBarEnd(wait);
        final int drawn = Integer.parseInt(browser.findElement(By.id("bars-drawn")).getText());
        wait.withMessage(() -> "the newest bar to end after " + firstEnd + " us")
            .until(page -> lastBarEnd(wait) > firstEnd);
        assertTrue(drawn > 0, "bars drawn: " + drawn);

        final List<Double> rates = new ArrayList<>();
        final double benchmark = sampleRatesUntilResult(rates);
        assertTrue(rates.size() >= 3 && Collections.max(rates) >= 0.8 * benchmark, "the page's rate of link 0 -> 1 " +
            "over its last 2 s, read while the benchmark ran, " + rates + " MB/s, reached 80% of the benchmark's " +
            benchmark + " MB/s");

        awaitEnd(wait);
        final double average = linkFigure(0, 1, "average");
        System.out.println("DashboardSystemTest: link 0 -> 1 on the page " + average + " MB/s on average, " + rates +
            " MB/s over 2 s while running; the benchmark " + benchmark + " MB/s");
        assertTrue(Math.abs(average - benchmark) <= 0.2 * benchmark, "the page's average rate of link 0 -> 1, " +
            average + " MB/s, within 20% of the benchmark's " + benchmark + " MB/s");

        checkTables();
        checkSamplingNotice();
        checkZoomAndPan(wait);

        final Map<String, Object> trace = download(wait, folder.resolve("downloads"));
        checkTrace(trace);
    }

    /**
     * The tables once the job ended: every transfer of the run ended on the staged path, and the stages' rows with
     * their shares of the time (summing to all of it) and 99th percentiles.
     */
    @SuppressWarnings("unchecked")
    private void checkTables()
    {
        final Map<String, Object> tables = (Map<String, Object>)((JavascriptExecutor)browser).executeScript(
            "const cells = (tr) => Array.from(tr.children, (cell) => cell.textContent);" +
            "const rows = (id) => Array.from(document.querySelectorAll('#' + id + ' tbody tr'), cells);" +
            "return { paths: rows('paths'), stages: rows('stages') };");
        final List<List<String>> paths = (List<List<String>>)tables.get("paths");
        final List<String> staged = paths.stream().filter(cells -> "STAGED".equals(cells.get(0))).findFirst()
            .orElseThrow(() -> new AssertionError("a row for the staged path: " + paths));
        assertEquals("0", staged.get(1), "no staged transfer in flight after the job: " + paths);
        assertTrue(Long.parseLong(staged.get(2).replaceAll("[^0-9]", "")) > 0, "staged transfers ended: " + paths);
        final List<List<String>> stages = (List<List<String>>)tables.get("stages");
        final Set<String> names = new HashSet<>();
        double shares = 0;
        for (final List<String> cells : stages)
        {
            names.add(cells.get(0));
            shares += Double.parseDouble(cells.get(2).replace("%", "").trim());
            assertTrue(Long.parseLong(cells.get(1).replaceAll("[^0-9]", "")) > 0, "chunks of " + cells);
            assertTrue(cells.get(4).matches("[0-9.]+ (µs|ms|s)"), "a 99th percentile in " + cells);
        }
        assertTrue(names.containsAll(Set.of("D2H", "WIRE", "H2D")), "rows of the stages: " + stages);
        assertTrue(Math.abs(shares - 100) <= 0.5, "the stages' shares sum to all the time: " + stages);
    }

    /**
     * The run made more stage events a second than the page was told to draw: the notice says so.
     */
    private void checkSamplingNotice()
    {
        final WebElement notice = browser.findElement(By.id("sampling"));
        assertTrue(notice.isDisplayed(), "the sampling notice is shown");
        assertTrue(notice.getText().startsWith("Stage events arrive faster than this page can draw them (at most " +
            BARS_PER_SECOND + " bars a second)"), notice.getText());
        // read in one script: the counters are made anew at every update
        final long sampledOut = Long.parseLong(String.valueOf(((JavascriptExecutor)browser).executeScript(
            "return document.getElementById('counter-sampledOut').textContent;")).replaceAll("[^0-9]", ""));
        assertTrue(sampledOut > 0, "events sampled out of the timeline: " + sampledOut);
    }

    /**
     * Zoom halves the window, panning stops following live, and Show all spans the bars (the first may start a
     * little before the job's first event, its origin).
     */
    private void checkZoomAndPan(final WebDriverWait wait)
    {
        final double span = windowUs();
        browser.findElement(By.id("zoom-in")).click();
        wait.withMessage(() -> "the window " + span + " us halved by Zoom in; it is " + windowUs())
            .until(page -> Math.abs(windowUs() - span / 2) < 1e-6 * span);
        assertEquals("true", browser.findElement(By.id("follow")).getAttribute("aria-pressed"));
        browser.findElement(By.id("pan-left")).click();
        wait.withMessage(() -> "Follow live off after a pan")
            .until(page -> "false".equals(browser.findElement(By.id("follow")).getAttribute("aria-pressed")));
        browser.findElement(By.id("fit")).click();
        wait.withMessage(() -> "Show all spans the bars: window " + windowUs() + " us, newest bar ends at " +
            lastBarEnd(wait) + " us, since the job's first event").until(page -> windowUs() >= 0.9 * lastBarEnd(wait));
    }

    private double windowUs()
    {
        final String us = browser.findElement(By.id("window")).getAttribute("data-us");
        return null == us || us.isEmpty() ? -1 : Double.parseDouble(us);
    }

    private Map<String, String> installBrowser() throws IOException, InterruptedException
    {
        final Path script = repository().resolve("bin/install-browser");
        // apt-get's output goes to standard error: into a file, so that neither pipe fills while the other is read
        final Path errFile = folder.resolve("install-browser.err");
        final Process install = new ProcessBuilder("bash", script.toString())
            .redirectError(ProcessBuilder.Redirect.to(errFile.toFile())).start();
        final String out = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(install.waitFor(10, TimeUnit.MINUTES), "bin/install-browser ended within 10 minutes");
        final String err = Files.readString(errFile);
        assertEquals(0, install.exitValue(), "bin/install-browser: " + out + err);
        final Map<String, String> paths = new HashMap<>();
        for (final String line : out.split("\n"))
        {
            final int equals = line.indexOf('=');
            if (equals > 0)
            {
                paths.put(line.substring(0, equals), line.substring(equals + 1).trim());
            }
        }
        assertTrue(paths.containsKey("CHROMIUM") && paths.containsKey("CHROMEDRIVER"), out);
        return paths;
    }

    private Process startJob() throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            "io.stagecoach.node.cli.StagecoachCommand", "run", "-n", "2", "--oversubscribe",
            "--dashboard", "--dashboard-linger", "120", "--dashboard-bars", Integer.toString(BARS_PER_SECOND),
            "-J-Dstagecoach.device.path=staged",
            "-x", "STAGECOACH_DEVICE=emulated",
            "bw", "D", "D", "--min-size", Long.toString(SIZE_BYTES), "--max-size", Long.toString(SIZE_BYTES),
            "--iterations", "60", "--skip", "0", "--warm-up", "0"));
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("STAGECOACH_LOG_LEVEL", "warn");
        final Process process = builder.start();
        follow(process.getInputStream(), "out");
        follow(process.getErrorStream(), "err");
        return process;
    }

    private void follow(final InputStream stream, final String name)
    {
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8)))
            {
                String line;
                while (null != (line = in.readLine()))
                {
                    transcript.add(name + ": " + line);
                    lines.add(line);
                }
            }
            catch (final IOException ignore)
            {
                // the job ended
            }
        }, "job-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    private String awaitUrl() throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - deadlineNs < 0)
        {
            final String line = lines.poll(1, TimeUnit.SECONDS);
            final Matcher matcher = null == line ? null : URL.matcher(line);
            if (null != matcher && matcher.find())
            {
                return matcher.group(1);
            }
        }
        throw new AssertionError("the job printed no dashboard address within " + WAIT + ": " + transcript);
    }

    private static WebDriver openBrowser(final Map<String, String> installed, final Path downloads)
        throws IOException
    {
        Files.createDirectories(downloads);
        final ChromeDriverService service = new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(installed.get("CHROMEDRIVER"))).usingAnyFreePort().build();
        final ChromeOptions options = new ChromeOptions().setBinary(installed.get("CHROMIUM"))
            .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,2000", "--user-data-dir=" + downloads.resolveSibling("profile"));
        options.setExperimentalOption("prefs", Map.of("download.default_directory", downloads.toString(),
            "download.prompt_for_download", false));
        return new ChromeDriver(service, options);
    }

    private Set<String> lanesOnPage()
    {
        final String lanes = browser.findElement(By.id("lanes")).getAttribute("data-lanes");
        return null == lanes || lanes.isBlank() ? Set.of() : new HashSet<>(List.of(lanes.split(" ")));
    }

    private double lastBarEnd(final WebDriverWait wait)
    {
        final String us = browser.findElement(By.id("last-bar-end")).getAttribute("data-us");
        return null == us || us.isEmpty() ? -1 : Double.parseDouble(us);
    }

    private double sampleRatesUntilResult(final List<Double> rates) throws Exception
    {
        final long deadlineNs = System.nanoTime() + WAIT.toNanos();
        int nonZero = 0;
        boolean shot = false;
        while (System.nanoTime() - deadlineNs < 0)
        {
            final String line = lines.poll(500, TimeUnit.MILLISECONDS);
            final Matcher result = null == line ? null : RESULT.matcher(line);
            if (null != result && result.find())
            {
                if (!shot)
                {
                    screenshot();
                }
                return Double.parseDouble(result.group(1));
            }
            final double rate = linkRate(0, 1);
            if (rate > 0 && "running".equals(jobState()))
            {
                nonZero++;
                if (nonZero > 4)
                {
                    rates.add(rate);
                }
                if (nonZero == 10 && !shot)
                {
                    screenshot();
                    shot = true;
                }
            }
        }
        throw new AssertionError("no result of the benchmark within " + WAIT + ": " + transcript);
    }

    private double linkRate(final int from, final int to)
    {
        return linkFigure(from, to, "rate");
    }

    private double linkFigure(final int from, final int to, final String column)
    {
        final Object figure = ((JavascriptExecutor)browser).executeScript("const row = document.querySelector(" +
            "'#links tbody tr[data-from=\"' + arguments[0] + '\"][data-to=\"' + arguments[1] + '\"]');" +
            "return row ? row.querySelector('.' + arguments[2]).textContent : null;", from, to, column);
        return null == figure ? 0 : Double.parseDouble(figure.toString());
    }

    private void awaitEnd(final WebDriverWait wait)
    {
        wait.withMessage(() -> "the job's end on the page; job: " + transcript)
            .until(page -> "ended".equals(jobState()));
    }

    private String jobState()
    {
        final String status = browser.findElement(By.id("status")).getText();
        return status.contains("running") ? "running" : status.contains("ended") ? "ended" : status;
    }

    private void screenshot() throws IOException
    {
        final Path shot = ((TakesScreenshot)browser).getScreenshotAs(OutputType.FILE).toPath();
        final Path target = Path.of("target", "dashboard-bw-dd-4mib.png");
        Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
        final String wanted = System.getProperty("stagecoach.dashboard.screenshot");
        if (null != wanted && !wanted.isBlank())
        {
            Files.copy(shot, Path.of(wanted), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> download(final WebDriverWait wait, final Path downloads) throws IOException
    {
        browser.findElement(By.id("export")).click();
        final Path[] file = new Path[1];
        wait.withMessage(() -> "a .json file in " + downloads).until(page ->
        {
            try (Stream<Path> entries = Files.list(downloads))
            {
                file[0] = entries.filter(entry -> entry.toString().endsWith(".json")).findFirst().orElse(null);
                return null != file[0];
            }
            catch (final IOException ex)
            {
                return false;
            }
        });
        return (Map<String, Object>)new Json().toType(Files.readString(file[0]), Map.class);
    }

    @SuppressWarnings("unchecked")
    private static void checkTrace(final Map<String, Object> trace)
    {
        assertEquals("ns", trace.get("displayTimeUnit"));
        final List<Map<String, Object>> events = (List<Map<String, Object>>)trace.get("traceEvents");
        final Set<String> processes = new HashSet<>();
        final Map<String, Integer> slices = new HashMap<>();
        for (final Map<String, Object> event : events)
        {
            if ("process_name".equals(event.get("name")))
            {
                processes.add((String)((Map<String, Object>)event.get("args")).get("name"));
            }
            if ("X".equals(event.get("ph")))
            {
                final String key = ((Number)event.get("pid")).intValue() - 1 + ":" + event.get("name");
                slices.merge(key, 1, Integer::sum);
                assertTrue(((Number)event.get("dur")).doubleValue() >= 0, event.toString());
                assertTrue(((Map<String, Object>)event.get("args")).containsKey("chunk"), event.toString());
            }
        }
        assertTrue(processes.containsAll(Set.of("rank 0", "rank 1")), processes.toString());
        for (final String lane : List.of("0:D2H", "0:WIRE", "1:H2D"))
        {
            assertTrue(slices.getOrDefault(lane, 0) > 0, lane + " events in " + slices);
        }
        final Map<String, Object> other = (Map<String, Object>)trace.get("otherData");
        assertEquals("io.stagecoach.benchmarks.omb.Bandwidth", other.get("program"));
        assertEquals("dashboard", other.get("source"));
    }

    private static Path repository()
    {
        Path dir = Path.of("").toAbsolutePath();
        while (null != dir && !Files.exists(dir.resolve("bin/install-browser")))
        {
            dir = dir.getParent();
        }
        assertTrue(null != dir, "bin/install-browser above " + Path.of("").toAbsolutePath());
        return dir;
    }
}

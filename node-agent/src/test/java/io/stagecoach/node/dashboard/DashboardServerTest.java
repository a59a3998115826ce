package io.stagecoach.node.dashboard;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.stagecoach.pipeline.trace.Stage;
import io.stagecoach.pipeline.trace.StageRing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class DashboardServerTest
{
    private static final String TOKEN = "0123456789abcdef0123";
    private static final String EVENT = "\"name\":\"D2H\",\"cat\":\"stage\"";

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .followRedirects(HttpClient.Redirect.NEVER).build();
    private DashboardServer server;
    private String cookie;
    private String base = "";

    @AfterEach
    void close()
    {
        if (null != server)
        {
            server.close();
        }
    }

    @Test
    void shouldServeThePageItsScriptAndAJobsUpdatesAndTraceOnLoopback() throws Exception
    {
        final DashboardJobs jobs = new DashboardJobs();
        final JobTrace trace = new JobTrace("job-1", "bw", 2, new DashboardContext());
        final StageRing ring = new StageRing(0, StageRing.MIN_CAPACITY_BYTES);
        ring.record(3, 0, Stage.PACK, 1_000, 2_000, 4096, 0);
        ring.drain(trace, 10);
        jobs.add(trace);
        server = DashboardServer.start(new DashboardContext().framePeriodNs(50_000_000L), jobs);
        assertTrue(server.url().startsWith("http://127.0.0.1:"), server.url());
        assertEquals(401, get("api/jobs", null).statusCode(), "a token even on loopback");
        final String token = server.loginUrl().substring(server.loginUrl().indexOf("token=") + 6);
        assertTrue(token.matches("[0-9a-f]{48}"), server.loginUrl());
        final HttpResponse<String> login = client.send(HttpRequest.newBuilder(URI.create(server.loginUrl())).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, login.statusCode(), "the link logs in");
        final java.util.regex.Matcher moveOn =
            java.util.regex.Pattern.compile("content=\"0;url=/([0-9a-f]{32})/\"").matcher(login.body());
        assertTrue(moveOn.find(), login.body());
        base = moveOn.group(1) + "/";
        final String setCookie = login.headers().firstValue("Set-Cookie").orElse("");
        assertTrue(setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/" + base), setCookie);
        assertEquals(401, client.send(HttpRequest.newBuilder(URI.create(server.url() + "login?token=" +
            "0".repeat(48))).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        cookie = "stagecoach-dashboard=" + token;

        final HttpResponse<String> page = get("", null);
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("<script src=\"dashboard.js\" defer></script>"), page.body());
        assertTrue(page.headers().firstValue("Content-Security-Policy").orElse("").contains("script-src 'self'"));
        assertEquals("nosniff", page.headers().firstValue("X-Content-Type-Options").orElse(""));
        assertEquals(200, get("dashboard.js", null).statusCode());
        assertEquals("{\"jobs\":[\"job-1\"],\"viewers\":0}", get("api/jobs", null).body());

        final HttpResponse<String> export = get("api/jobs/job-1/trace.json", null);
        assertEquals(200, export.statusCode());
        assertTrue(export.headers().firstValue("Content-Disposition").orElse("").contains("stagecoach-job-1.json"));
        assertTrue(export.body().contains("\"name\":\"PACK\",\"cat\":\"stage\",\"ph\":\"X\""), export.body());

        final HttpResponse<Stream<String>> events = client.send(request("api/jobs/job-1/events", null)
            .build(), HttpResponse.BodyHandlers.ofLines());
        assertEquals("text/event-stream", events.headers().firstValue("Content-Type").orElse(""));
        final List<String> frames = events.body().filter(line -> line.startsWith("data:")).limit(2)
            .collect(Collectors.toList());
        assertEquals("{\"jobs\":[\"job-1\"],\"viewers\":1}", get("api/jobs", null).body(), "a viewer now");
        assertTrue(frames.get(0).contains("\"bars\":[[0,0,0,3,0.000,1.000,4096]]"), frames.get(0));
        assertTrue(frames.get(1).contains("\"bars\":[]"), "a second frame has no bar twice: " + frames.get(1));
        assertEquals(404, get("api/jobs/nope/events", null).statusCode());

        assertEquals(List.of("id:1", "\"bars\":[]"), resumedAt("1"), "a browser that reconnects after bar 1");
        assertEquals(List.of("id:1", "\"bars\":[[0,0,0,3,0.000,1.000,4096]]"), resumedAt("7"),
            "an id the job has not reached (another server's) starts again");
        assertEquals(List.of("id:1", "\"bars\":[[0,0,0,3,0.000,1.000,4096]]"), resumedAt("x1"));
    }

    @Test
    void shouldStreamADownloadAndFreeItForTheNextWhenTheBrowserGoesAway() throws Exception
    {
        final int records = 60_000;
        final DashboardJobs jobs = new DashboardJobs();
        final JobTrace trace = new JobTrace("job-1", "bw", 2, new DashboardContext());
        final StageRing ring = new StageRing(0, StageRing.MIN_CAPACITY_BYTES);
        for (int chunk = 0; chunk < records; chunk++)
        {
            ring.record(1, chunk, Stage.D2H, 1_000L * chunk, 1_000L * chunk + 500, 65_536, 0);
            if (chunk % 1_000 == 999)
            {
                TraceFrames.drain(ring, trace);
            }
        }
        jobs.add(trace);
        server = DashboardServer.start(new DashboardContext().token(TOKEN)
            .downloadStallNs(Duration.ofSeconds(2).toNanos()), jobs);

        // a browser that reads a little of the download and goes away: its connection closes
        final URI url = URI.create(server.url());
        try (Socket browser = new Socket(url.getHost(), url.getPort()))
        {
            browser.getOutputStream().write(("GET /api/jobs/job-1/trace.json HTTP/1.1\r\nHost: " + url.getHost() +
                ":" + url.getPort() + "\r\nAuthorization: Bearer " + TOKEN + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            final String head = new String(browser.getInputStream().readNBytes(1024), StandardCharsets.US_ASCII);
            assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
        }

        // the next download is served once the first's writing has noticed (at once, or after the stall time)
        HttpResponse<String> export = null;
        final long deadlineNs = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (null == export || 503 == export.statusCode() && System.nanoTime() - deadlineNs < 0)
        {
            if (null != export)
            {
                Thread.sleep(100);
            }
            export = client.send(request("api/jobs/job-1/trace.json", null)
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        }
        assertEquals(200, export.statusCode(), export.body());
        final String json = export.body();
        assertTrue(json.endsWith("}") || json.endsWith("}\n"), json.substring(Math.max(0, json.length() - 200)));
        int events = 0;
        for (int at = json.indexOf(EVENT); at >= 0; at = json.indexOf(EVENT, at + 1))
        {
            events++;
        }
        assertEquals(records, events, "every record kept is in the download, " + json.length() + " bytes");
    }

    @Test
    void shouldRefuseAHostNameThatIsNotLoopback() throws Exception
    {
        server = DashboardServer.start(new DashboardContext(), new DashboardJobs());
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().getPort()))
        {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            final String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 421 "), answer);
        }
    }

    @Test
    void shouldAskForTheTokenAndAcceptItAsACookieOrABearer() throws Exception
    {
        server = DashboardServer.start(new DashboardContext().token(TOKEN), new DashboardJobs());
        final HttpResponse<String> without = get("", null);
        assertEquals(401, without.statusCode());
        assertTrue(without.body().contains("<form method=\"post\" action=\"/login\">"), without.body());
        assertEquals(401, login("wrong-token-wrong-token").statusCode());

        final HttpResponse<String> login = login(TOKEN);
        assertEquals(303, login.statusCode());
        final String page = login.headers().firstValue("Location").orElse("");
        assertTrue(page.matches("/[0-9a-f]{32}/"), page);
        final String cookie = login.headers().firstValue("Set-Cookie").orElse("");
        assertTrue(cookie.startsWith("stagecoach-dashboard=" + TOKEN) && cookie.contains("HttpOnly") &&
            cookie.contains("SameSite=Strict") && cookie.contains("Path=" + page), cookie);
        assertEquals(401, get("api/jobs", "stagecoach-dashboard=" + TOKEN).statusCode(),
            "the cookie holds under the session's path only");
        assertEquals(200, client.send(request("api/jobs", null).header("Authorization", "Bearer " + TOKEN).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode(), "a bearer token opens the API at the root");
        base = page.substring(1);
        assertEquals(200, get("api/jobs", "stagecoach-dashboard=" + TOKEN).statusCode());
        assertEquals(200, get("", "stagecoach-dashboard=" + TOKEN).statusCode());
        assertEquals(401, get("api/jobs", "stagecoach-dashboard=" + TOKEN + "x").statusCode());
        assertEquals(200, client.send(request("api/jobs", "stagecoach-dashboard=stale").header("Authorization",
            "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString()).statusCode(),
            "a stale cookie does not hide a good bearer token");
    }

    @Test
    void shouldRefuseToListenBeyondLoopbackWithoutAToken()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new DashboardContext().address("192.0.2.1").conclude());
        assertTrue(refused.getMessage().contains("192.0.2.1") && refused.getMessage().contains("token"),
            refused.getMessage());
    }

    private HttpResponse<String> login(final String token) throws IOException, InterruptedException
    {
        return client.send(request("login", null).header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString("token=" + token, StandardCharsets.UTF_8)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @return the first update's id line and its bars, for a connection that names the last update it had.
     */
    private List<String> resumedAt(final String lastEventId) throws IOException, InterruptedException
    {
        final HttpResponse<Stream<String>> events = client.send(request("api/jobs/job-1/events", null)
            .header("Last-Event-ID", lastEventId).build(), HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = events.body())
        {
            final List<String> first = lines.filter(line -> line.startsWith("id:") || line.startsWith("data:"))
                .limit(2).collect(Collectors.toList());
            final String data = first.stream().filter(line -> line.startsWith("data:")).findFirst().orElse("");
            final int bars = data.indexOf("\"bars\":");
            return List.of(first.stream().filter(line -> line.startsWith("id:")).findFirst().orElse("no id"),
                bars < 0 ? data : data.substring(bars, data.indexOf(",\"barSeq\"", bars)));
        }
    }

    private HttpResponse<String> get(final String path, final String cookie) throws IOException, InterruptedException
    {
        return client.send(request(path, cookie).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(final String path, final String cookie)
    {
        final HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(server.url() + base + path))
            .timeout(Duration.ofSeconds(10));
        final String sent = null != cookie ? cookie : this.cookie;
        return null == sent ? builder : builder.header("Cookie", sent);
    }
}

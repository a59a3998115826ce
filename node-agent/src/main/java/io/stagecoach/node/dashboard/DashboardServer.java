package io.stagecoach.node.dashboard;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.marshalling.sse.EventStreamMarshalling;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.ContentDispositionTypes;
import org.apache.pekko.http.javadsl.model.headers.ContentDisposition;
import org.apache.pekko.http.javadsl.model.headers.HttpCookie;
import org.apache.pekko.http.javadsl.model.headers.Location;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.model.headers.SameSite;
import org.apache.pekko.http.javadsl.model.headers.SetCookie;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamConverters;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stage-tracing dashboard over HTTP (Pekko HTTP): the page and its script and style from the jar, the list of
 * jobs, each job's updates as Server-Sent Events, and each job's Chrome trace for download. It serves whatever
 * {@link DashboardJobs} holds, so that the launcher ({@code stagecoach run --dashboard}, one job) and a node agent
 * (its jobs) host the same page.
 * <p>
 * Every request must carry the token, on loopback too (any local user can reach a loopback port): as the cookie that
 * the login sets (HttpOnly, SameSite=Strict; {@code /login?token=...}, the link {@link #loginUrl()} gives, or the
 * page's form), which holds only under a random path made at each start where the page then lives (a cookie knows no
 * port, so another server of this host must not be able to get it sent), or as {@code Authorization: Bearer}, which
 * also opens the API at the root; a page without either gets the form. A server started without a token makes a
 * random one. On a loopback address (the default) it also answers only requests whose Host is a loopback
 * name, so that no other site can reach it through a browser by renaming itself (DNS rebinding). One download is made at a time (each is built in memory, up to the job's
 * {@link DashboardContext#exportRecords()} events); another meanwhile gets 503. Every answer forbids framing, sniffing, referrers and caching, and the page's
 * policy allows only its own script and style.
 * <pre>{@code
 * final DashboardServer server = DashboardServer.start(new DashboardContext().port(0), jobs);
 * System.err.println("dashboard at " + server.url());
 * ...
 * server.close();
 * }</pre>
 */
public final class DashboardServer implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    private static final String COOKIE = "stagecoach-dashboard";
    private static final String RESOURCES = "/io/stagecoach/node/dashboard/";
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(10);

    private final DashboardContext context;
    private final DashboardJobs jobs;
    private final ActorSystem<Void> system;
    private final ServerBinding binding;

    private DashboardServer(
        final DashboardContext context, final DashboardJobs jobs, final ActorSystem<Void> system,
        final ServerBinding binding)
    {
        this.context = context;
        this.jobs = jobs;
        this.system = system;
        this.binding = binding;
    }

    /**
     * Binds the server and starts serving.
     *
     * @param context where to listen and the bounds; concluded here.
     * @param jobs    the jobs to show.
     * @return the server, to be closed.
     * @throws IllegalArgumentException naming a bad setting.
     * @throws IllegalStateException    naming the address when it cannot be bound.
     */
    public static DashboardServer start(final DashboardContext context, final DashboardJobs jobs)
    {
        if (null == context.token())
        {
            context.token(DashboardToken.random());
        }
        context.conclude();
        final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "stagecoach-dashboard", config());
        try
        {
            final Routes routes = new Routes(context, jobs, system);
            final ServerBinding binding = Http.get(system).newServerAt(context.address(), context.port())
                .bind(routes.all()).toCompletableFuture().get(BIND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("dashboard listening on {}", binding.localAddress());
            return new DashboardServer(context, jobs, system, binding);
        }
        catch (final Exception ex)
        {
            system.terminate();
            throw new IllegalStateException("could not serve the dashboard on " + context.address() + ":" +
                context.port() + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the address and port it listens on.
     */
    public InetSocketAddress localAddress()
    {
        return binding.localAddress();
    }

    /**
     * @return the page's address, with the host as given (brackets around an IPv6 address).
     */
    public String url()
    {
        final String host = context.address().contains(":") ? "[" + context.address() + "]" : context.address();
        return "http://" + host + ":" + binding.localAddress().getPort() + "/";
    }

    /**
     * @return the page's address with the token, which logs a browser in and sends it on to the page; as secret as
     * the token (print it to the user, never put it on a command line).
     */
    public String loginUrl()
    {
        return url() + "login?token=" + URLEncoder.encode(context.token(), StandardCharsets.UTF_8);
    }

    /**
     * @return the jobs it shows.
     */
    public DashboardJobs jobs()
    {
        return jobs;
    }

    /**
     * Stops listening, ends the open update streams and stops the server's threads (within a few seconds).
     */
    public void close()
    {
        try
        {
            binding.terminate(Duration.ofSeconds(1)).toCompletableFuture().get(3, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            LOG.debug("dashboard unbind: {}", ex.toString());
        }
        system.terminate();
        try
        {
            system.getWhenTerminated().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            LOG.debug("dashboard stop: {}", ex.toString());
        }
    }

    private static Config config()
    {
        return ConfigFactory.parseString(String.join("\n",
            "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]",
            "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"",
            "pekko.loglevel = WARNING",
            "pekko.stdout-loglevel = OFF",
            "pekko.log-dead-letters = off",
            "pekko.actor.provider = local",
            "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
            "pekko.http.server.server-header = \"\"",
            "pekko.http.server.idle-timeout = 120 s",
            "pekko.http.server.max-connections = 64",
            "pekko.http.server.parsing.max-content-length = 4k"))
            .withFallback(ConfigFactory.defaultReference());
    }

    /**
     * The routes, with the checks every request passes first.
     */
    static final class Routes extends AllDirectives
    {
        private final DashboardContext context;
        private final DashboardJobs jobs;
        private final byte[] token;
        private final String session = DashboardToken.random().substring(0, 32);
        private final AtomicBoolean exporting = new AtomicBoolean();
        /** Event streams open now: how a script sees that a browser is watching. */
        private final AtomicInteger viewers = new AtomicInteger();
        private final Executor exportWriter;
        private final Materializer materializer;

        Routes(final DashboardContext context, final DashboardJobs jobs, final ActorSystem<?> system)
        {
            this.exportWriter = system.dispatchers().lookup(DispatcherSelector.blocking());
            this.materializer = Materializer.matFromSystem(system);
            this.context = context;
            this.jobs = jobs;
            this.token = context.token().getBytes(StandardCharsets.UTF_8);
        }

        /**
         * The page and its API under a random path made at each start, where the login's cookie is confined (a
         * cookie knows no port: another server of this host could otherwise be sent it); the API also at the root,
         * for a bearer token only; the login and the style at the root, free.
         */
        Route all()
        {
            return respondWithHeaders(securityHeaders(), () -> checkHost(() -> concat(
                path("login", () -> concat(post(() -> formField("token", given -> login(given, false))),
                    get(() -> parameter("token", given -> login(given, true))))),
                path("dashboard.css", () -> get(() -> resource("dashboard.css",
                    ContentTypes.create(MediaTypes.TEXT_CSS, HttpCharsets.UTF_8)))),
                pathPrefix(session, () -> authorized(true, this::pages)),
                authorized(false, this::pages))));
        }

        private Route pages()
        {
            return concat(
                pathSingleSlash(() -> get(() -> resource("index.html", ContentTypes.TEXT_HTML_UTF8))),
                path("dashboard.js", () -> get(() -> resource("dashboard.js",
                    ContentTypes.create(MediaTypes.APPLICATION_JAVASCRIPT, HttpCharsets.UTF_8)))),
                path(PathMatchers.segment("api").slash("jobs"), () -> get(this::jobList)),
                path(PathMatchers.segment("api").slash("jobs").slash(PathMatchers.segment()).slash("events"),
                    jobId -> get(() -> optionalHeaderValueByName("Last-Event-ID",
                        lastEventId -> events(jobId, lastEventId)))),
                path(PathMatchers.segment("api").slash("jobs").slash(PathMatchers.segment()).slash("trace.json"),
                    jobId -> get(() -> export(jobId))));
        }

        private Route checkHost(final Supplier<Route> inner)
        {
            return extractRequest(request ->
            {
                final String host = request.getUri().host().address();
                if (context.isLoopbackOnly() && !isLoopbackName(host))
                {
                    return complete(StatusCodes.MISDIRECTED_REQUEST, "this dashboard answers on a loopback " +
                        "address only");
                }
                return inner.get();
            });
        }

        /**
         * @param cookies whether the login's cookie counts (under the session's path) besides a bearer token.
         */
        private Route authorized(final boolean cookies, final Supplier<Route> inner)
        {
            return optionalCookie(COOKIE, cookie -> optionalHeaderValueByName("Authorization", header ->
            {
                final boolean byHeader = header.filter(value -> value.startsWith("Bearer "))
                    .map(value -> matches(value.substring(7))).orElse(false);
                final boolean byCookie = cookies && cookie.map(pair -> matches(pair.value())).orElse(false);
                if (byHeader || byCookie)
                {
                    return inner.get();
                }
                return complete(HttpResponse.create().withStatus(StatusCodes.UNAUTHORIZED)
                    .withEntity(HttpEntities.create(ContentTypes.TEXT_HTML_UTF8, read("login.html"))));
            }));
        }

        /**
         * The login: the cookie, valid under the session's path only; then, for the form, a redirect there, and for
         * the printed link a page that moves on there by itself, so that the move is the page's own (same-site) and
         * the SameSite=Strict cookie goes with it, also where the link was opened from another site or a file.
         */
        private Route login(final String given, final boolean link)
        {
            if (!matches(given))
            {
                return complete(HttpResponse.create().withStatus(StatusCodes.UNAUTHORIZED)
                    .withEntity(HttpEntities.create(ContentTypes.TEXT_HTML_UTF8, read("login.html"))));
            }
            final String page = "/" + session + "/";
            final HttpHeader cookie = SetCookie.create(HttpCookie.create(COOKIE, given).withPath(page)
                .withHttpOnly(true).withSameSite(SameSite.Strict));
            if (!link)
            {
                return respondWithHeaders(List.of(cookie, Location.create(page)),
                    () -> complete(StatusCodes.SEE_OTHER));
            }
            return respondWithHeaders(List.of(cookie), () -> complete(HttpEntities.create(
                ContentTypes.TEXT_HTML_UTF8, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
                    "<meta http-equiv=\"refresh\" content=\"0;url=" + page + "\"><title>Stagecoach dashboard" +
                    "</title></head><body><p><a href=\"" + page + "\">To the dashboard</a></p></body></html>")));
        }

        private boolean matches(final String given)
        {
            return MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
        }

        private Route resource(final String name, final ContentType type)
        {
            return complete(HttpEntities.create(type, read(name)));
        }

        private Route jobList()
        {
            final StringBuilder json = new StringBuilder("{\"jobs\":[");
            final List<JobTrace> list = jobs.list();
            for (int i = 0; i < list.size(); i++)
            {
                json.append(i == 0 ? "" : ",");
                Json.appendString(json, list.get(i).jobId());
            }
            json.append("],\"viewers\":").append(viewers.get()).append('}');
            return complete(HttpEntities.create(ContentTypes.APPLICATION_JSON, json.toString()));
        }

        private Route events(final String jobId, final Optional<String> lastEventId)
        {
            final JobTrace trace = jobs.get(jobId);
            if (null == trace)
            {
                return complete(StatusCodes.NOT_FOUND, "no job " + jobId);
            }
            // a browser that reconnects names the last update it had (its id is the bar sequence it reached):
            // it is sent the bars after that, not all of them again
            final long resumeAt = lastBarOf(lastEventId.orElse(""), trace.barSequence());
            final Duration period = Duration.ofNanos(context.framePeriodNs());
            final Source<ServerSentEvent, NotUsed> frames = Source.tick(Duration.ZERO, period, Boolean.TRUE)
                .statefulMapConcat(() ->
                {
                    final long[] lastBar = { resumeAt };
                    return tick ->
                    {
                        final String frame;
                        synchronized (trace)
                        {
                            frame = trace.frame(lastBar[0], System.nanoTime());
                            lastBar[0] = trace.barSequence();
                        }
                        return List.of(ServerSentEvent.create(frame, Optional.empty(),
                            Optional.of(Long.toString(lastBar[0])), OptionalInt.empty()));
                    };
                })
                .watchTermination((cancellable, done) ->
                {
                    viewers.incrementAndGet();
                    done.whenComplete((ignored, failure) -> viewers.decrementAndGet());
                    return NotUsed.getInstance();
                });
            return completeOK(frames, EventStreamMarshalling.toEventStream());
        }

        /**
         * @param lastEventId the Last-Event-ID a reconnecting browser sent, empty for a first connection.
         * @param newest      the job's newest bar.
         * @return the bar to send updates after: 0 for anything but a sequence the job has reached.
         */
        static long lastBarOf(final String lastEventId, final long newest)
        {
            if (lastEventId.isEmpty() || lastEventId.length() > 18 || !lastEventId.chars().allMatch(Character::isDigit))
            {
                return 0;
            }
            final long bar = Long.parseLong(lastEventId);
            return bar <= newest ? bar : 0;
        }

        private Route export(final String jobId)
        {
            final JobTrace trace = jobs.get(jobId);
            if (null == trace)
            {
                return complete(StatusCodes.NOT_FOUND, "no job " + jobId);
            }
            if (!exporting.compareAndSet(false, true))
            {
                return complete(StatusCodes.SERVICE_UNAVAILABLE, "another download is being made; try again");
            }
            // written as the browser reads it, on a thread of the blocking dispatcher, rather than whole into memory
            // first (tens of MB for the records kept); the stream is made here, so that a response never sent (the
            // browser gone) or a browser that stops reading ends the writing, and frees the download, after the
            // context's download stall
            final Source<ByteString, NotUsed> body;
            try
            {
                final Pair<OutputStream, Source<ByteString, NotUsed>> stream = StreamConverters.asOutputStream(
                    Duration.ofNanos(context.downloadStallNs())).preMaterialize(materializer);
                exportWriter.execute(() -> writeExport(jobId, trace, stream.first()));
                body = stream.second();
            }
            catch (final RuntimeException ex)
            {
                exporting.set(false);
                throw ex;
            }
            return respondWithHeader(ContentDisposition.create(ContentDispositionTypes.ATTACHMENT,
                Map.of("filename", "stagecoach-" + jobId.replaceAll("[^A-Za-z0-9._-]", "_") + ".json")),
                () -> complete(HttpEntities.create(ContentTypes.APPLICATION_JSON, body)));
        }

        private void writeExport(final String jobId, final JobTrace trace, final OutputStream stream)
        {
            final Writer out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 1 << 16);
            try
            {
                trace.export(out);
                out.close();
            }
            catch (final IOException | RuntimeException ex)
            {
                // the rest of the buffer is not flushed: each write would wait for the stall time again
                LOG.info("the download of job {} ended early: {}", jobId, ex.toString());
                closeQuietly(stream);
            }
            finally
            {
                exporting.set(false);
            }
        }

        private static void closeQuietly(final OutputStream stream)
        {
            try
            {
                stream.close();
            }
            catch (final IOException ex)
            {
                LOG.debug("closing a download that ended early: {}", ex.toString());
            }
        }

        private static List<HttpHeader> securityHeaders()
        {
            return List.of(
                RawHeader.create("Content-Security-Policy", "default-src 'none'; script-src 'self'; " +
                    "style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; " +
                    "frame-ancestors 'none'; base-uri 'none'"),
                RawHeader.create("X-Content-Type-Options", "nosniff"),
                RawHeader.create("X-Frame-Options", "DENY"),
                RawHeader.create("Referrer-Policy", "no-referrer"),
                RawHeader.create("Cache-Control", "no-store"));
        }

        private static boolean isLoopbackName(final String host)
        {
            return "localhost".equalsIgnoreCase(host) || host.startsWith("127.") || "[::1]".equals(host) ||
                "::1".equals(host);
        }

        private static byte[] read(final String name)
        {
            try (InputStream in = DashboardServer.class.getResourceAsStream(RESOURCES + name))
            {
                if (null == in)
                {
                    throw new IllegalStateException("the dashboard's " + name + " is missing from the jar");
                }
                return in.readAllBytes();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
    }
}

package io.stagecoach.node.jobs;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Reads a dashboard from inside a node's network namespace, for a test in another: {@code DashboardProbe URL
 * TOKEN_FILE|-} prints {@code STATUS <code>}, then the body, or for an update stream ({@code .../events}) the first
 * update's data. The token goes as {@code Authorization: Bearer}, read from the file (never from the command line).
 */
public final class DashboardProbe
{
    private DashboardProbe()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(args[0])).timeout(Duration.ofSeconds(10));
        if (!"-".equals(args[1]))
        {
            request.header("Authorization", "Bearer " + Files.readString(Path.of(args[1]), StandardCharsets.UTF_8)
                .strip());
        }
        final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        if (args[0].endsWith("/events"))
        {
            final HttpResponse<Stream<String>> response = client.send(request.build(),
                HttpResponse.BodyHandlers.ofLines());
            System.out.println("STATUS " + response.statusCode());
            try (Stream<String> lines = response.body())
            {
                lines.filter(line -> line.startsWith("data:")).findFirst()
                    .ifPresent(line -> System.out.println(line.substring(5).strip()));
            }
        }
        else
        {
            final HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            System.out.println("STATUS " + response.statusCode());
            System.out.println(response.body());
        }
        System.exit(0);
    }
}

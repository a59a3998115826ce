package io.stagecoach.benchmarks.trace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import io.stagecoach.pipeline.trace.ChromeTraceExport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code scripts/trace-svg.py} on the modelled trace of {@link SyntheticTrace}: the SVG is well-formed XML with a
 * bar per event, lanes named after ranks and tracks, a legend; filters keep one transfer or a window.
 */
@Timeout(120)
class TraceSvgScriptTest
{
    private static final Path SCRIPT = Path.of("scripts", "trace-svg.py");
    private static final int EVENTS_PER_TRANSFER = 16 * 6;

    @TempDir
    static Path folder;

    private static Path trace;

    @BeforeAll
    static void writeTrace() throws IOException, InterruptedException
    {
        assumeTrue(run(List.of("python3", "--version")).status == 0, "python3 is needed to run the script");
        trace = folder.resolve("synthetic.json");
        final ChromeTraceExport.Summary summary = SyntheticTrace.write(trace, 4L << 20, 256L << 10);
        assertEquals(SyntheticTrace.TRANSFERS * EVENTS_PER_TRANSFER, summary.events());
    }

    @Test
    void shouldDrawABarPerEventInLanesNamedByRankAndTrackWithALegend() throws Exception
    {
        final Document svg = draw("all.svg");

        assertEquals(SyntheticTrace.TRANSFERS * EVENTS_PER_TRANSFER, bars(svg).size());
        final Set<String> texts = texts(svg);
        assertTrue(texts.containsAll(List.of("rank 0", "rank 1", "PACK", "D2H", "WIRE", "WIRE 2", "H2D", "UNPACK",
            "time (us)", "synthetic.json")), texts.toString());
        assertTrue(bars(svg).get(0).getElementsByTagName("title").item(0).getTextContent()
            .matches("rank [01] [A-Z0-9]+ chunk \\d+ \\(transfer [12]\\): start [0-9.]+ us, [0-9.]+ us, 262144 " +
                "bytes, device 0"));
    }

    @Test
    void shouldKeepOneTransferOrAWindow() throws Exception
    {
        assertEquals(EVENTS_PER_TRANSFER, bars(draw("one.svg", "--transfer", "2", "--title", "a <title> & more"))
            .size());
        assertTrue(texts(draw("one.svg", "--transfer", "2", "--title", "a <title> & more"))
            .contains("a <title> & more"));
        final int inWindow = bars(draw("window.svg", "--from", "20", "--to", "40")).size();
        assertTrue(inWindow > 0 && inWindow < EVENTS_PER_TRANSFER, "bars in the window: " + inWindow);
    }

    @Test
    void shouldFailSayingSoWhenNothingIsLeftToDraw() throws IOException, InterruptedException
    {
        final Result result = run(List.of("python3", SCRIPT.toString(), trace.toString(), "-o",
            folder.resolve("none.svg").toString(), "--transfer", "99"));

        assertEquals(1, result.status);
        assertTrue(result.output.contains("no stage events in " + trace + " after the filters"), result.output);
    }

    private static Document draw(final String name, final String... options)
        throws IOException, InterruptedException, ParserConfigurationException, SAXException
    {
        final List<String> command = new ArrayList<>(List.of("python3", SCRIPT.toString(), trace.toString(), "-o",
            folder.resolve(name).toString()));
        command.addAll(List.of(options));
        final Result result = run(command);
        assertEquals(0, result.status, result.output);
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(folder.resolve(name).toFile());
    }

    private static List<Element> bars(final Document svg)
    {
        final List<Element> bars = new ArrayList<>();
        final NodeList rects = svg.getElementsByTagName("rect");
        for (int i = 0; i < rects.getLength(); i++)
        {
            final Element rect = (Element)rects.item(i);
            if ("bar".equals(rect.getAttribute("class")))
            {
                bars.add(rect);
            }
        }
        return bars;
    }

    private static Set<String> texts(final Document svg)
    {
        final Set<String> texts = new HashSet<>();
        final NodeList nodes = svg.getElementsByTagName("text");
        for (int i = 0; i < nodes.getLength(); i++)
        {
            texts.add(nodes.item(i).getTextContent());
        }
        return texts;
    }

    private static Result run(final List<String> command) throws IOException, InterruptedException
    {
        final Path output = Files.createTempFile(folder, "output-", ".txt");
        final Process process;
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        }
        catch (final IOException ex)
        {
            return new Result(-1, ex.toString());
        }
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException(command + " did not end within 60 s");
        }
        return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    private record Result(int status, String output)
    {
    }
}

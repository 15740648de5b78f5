package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTML report's timeline for a run with partitions, read as the SVG document it is: every partition
 * draws its band over the whole chart, and the lane of each client on its cut-off side gets an outline
 * (dashed for a two-way partition, dotted for a one-way one) exactly under the band, on that client's lane
 * and no other, naming the sides. Partitions that cut off no client (the leader's), and faults that are
 * not partitions, outline no lane.
 */
class HtmlReportTest {
    private static final long T0 = 1_700_000_000_000_000L;
    private static final int TOP = 34;
    private static final int LANE = 30;
    private final List<Event> events = new ArrayList<>();

    private void round(int client, long token, long fromMs, long toMs, long read) {
        add(fromMs - 1, client, Event.OP_ACQUIRE, Event.INVOKE, 0, 0);
        add(fromMs, client, Event.OP_ACQUIRE, Event.OK, token, 0);
        add(fromMs + 1, client, Event.OP_CLAIM, Event.OK, token, 0);
        for (Register.Kind k : Register.Kind.ALL) {
            add(fromMs + 2, client, k.readOp(), Event.OK, token, read);
            add(toMs - 2, client, k.writeOp(), Event.INVOKE, token, read + 1);
            add(toMs - 1, client, k.writeOp(), Event.OK, token, read + 1);
        }
        add(toMs, client, Event.OP_RELEASE, Event.INVOKE, token, 0);
        add(toMs + 1, client, Event.OP_RELEASE, Event.OK, token, 0);
    }

    private void add(long ms, int client, String op, String type, long token, long value) {
        events.add(new Event(T0 + ms * 1_000, client, 1, op, type, token, value, ""));
    }

    private static FaultWindow window(Fault f, long fromMs, long toMs, String target, String sides) {
        return new FaultWindow(f, T0 + fromMs * 1_000, T0 + toMs * 1_000, target, 0, f.label() + " for the test", null, sides);
    }

    @Test
    void partitionsOutlineTheLanesOfTheClientsOnTheirCutOffSideUnderTheirBand() throws Exception {
        long token = 10;
        long value = 0;
        for (long ms = 100; ms < 19_000; ms += 500) { // clients 1, 2, 3 take turns, half a second each
            int client = (int) (ms / 500 % 3) + 1;
            round(client, token++, ms, ms + 400, value++);
        }
        events.sort(java.util.Comparator.comparingLong(Event::micros));
        List<FaultWindow> faults = List.of(
                window(Fault.PAUSE, 1_000, 3_000, "client 1", ""),
                window(Fault.FOLLOWER_PARTITION, 4_000, 8_000, "client 2", "c2,s1 | c1,c3,s2,s3"),
                window(Fault.LEADER_PARTITION, 9_000, 11_000, "server s1 (leader)", "s1 | c1,c2,c3,s2,s3"),
                window(Fault.ONE_WAY_PARTITION, 12_000, 14_000, "client 3", "s1,s2,s3 -> c3"),
                window(Fault.ONE_WAY_PARTITION, 15_000, 17_000, "client 1", "c1 -> s1,s2,s3"));
        TortureSettings settings = TortureSettings.builder("zk3").clients(3).duration(Duration.ofSeconds(20)).lease(Duration.ofSeconds(2))
                .reportDir(Path.of("unused")).build();
        Checker.Analysis a = Checker.check("test store", settings, T0, T0 + 20_000_000, events, List.of(), faults, new long[] {value, value, value});

        Element timeline = timeline(HtmlReport.render(a));

        List<Element> bands = elements(timeline, "rect", "fault");
        assertThat(bands).extracting(e -> e.getAttribute("class")).containsExactly("fault fault-pause", "fault fault-follower-partition",
                "fault fault-leader-partition", "fault fault-one-way-partition", "fault fault-one-way-partition");
        assertThat(title(bands.get(1))).contains("sides c2,s1 | c1,c3,s2,s3");
        assertThat(title(bands.get(3))).contains("sides s1,s2,s3 -> c3");

        List<Element> outlines = elements(timeline, "rect", "cut-off");
        assertThat(outlines).as("lane outlines: client 2 for the follower partition, clients 3 and 1 for the one-way ones").hasSize(3);

        Element follower = outlines.get(0);
        assertThat(follower.getAttribute("class")).isEqualTo("cut-off");
        assertThat(follower.getAttribute("data-client")).isEqualTo("2");
        assertThat(follower.getAttribute("stroke-dasharray")).isEqualTo("6 3");
        assertUnderBandOnLane(follower, bands.get(1), 2);
        assertThat(title(follower)).isEqualTo("client 2 on the cut-off side: c2,s1 | c1,c3,s2,s3");

        Element deaf = outlines.get(1);
        assertThat(deaf.getAttribute("class")).isEqualTo("cut-off one-way");
        assertThat(deaf.getAttribute("data-client")).isEqualTo("3");
        assertThat(deaf.getAttribute("stroke-dasharray")).isEqualTo("2 3");
        assertUnderBandOnLane(deaf, bands.get(3), 3);
        assertThat(title(deaf)).isEqualTo("client 3 cut off one way (packets dropped from the left side to the right): s1,s2,s3 -> c3");

        Element mute = outlines.get(2);
        assertThat(mute.getAttribute("class")).isEqualTo("cut-off one-way");
        assertThat(mute.getAttribute("data-client")).isEqualTo("1");
        assertUnderBandOnLane(mute, bands.get(4), 1);
        assertThat(title(mute)).endsWith(": c1 -> s1,s2,s3");
    }

    private static void assertUnderBandOnLane(Element outline, Element band, int client) {
        assertThat(Double.parseDouble(outline.getAttribute("x"))).as("outline starts with its band").isEqualTo(Double.parseDouble(band.getAttribute("x")));
        assertThat(Double.parseDouble(outline.getAttribute("width"))).as("outline as wide as its band")
                .isEqualTo(Double.parseDouble(band.getAttribute("width")));
        int y = Integer.parseInt(outline.getAttribute("y"));
        int height = Integer.parseInt(outline.getAttribute("height"));
        assertThat(y).as("outline on client %d's lane", client).isGreaterThan(TOP + (client - 1) * LANE).isLessThan(TOP + client * LANE);
        assertThat(y + height).as("outline within client %d's lane", client).isLessThanOrEqualTo(TOP + client * LANE);
        assertThat(outline.getAttribute("fill")).isEqualTo("none");
        assertThat(outline.getAttribute("stroke")).isEqualTo(band.getAttribute("fill"));
    }

    /** The timeline's {@code <svg>}, parsed as XML: the report writes it well-formed. */
    private static Element timeline(String html) throws Exception {
        int from = html.indexOf("<svg id=\"timeline\"");
        int to = html.indexOf("</svg>", from) + "</svg>".length();
        assertThat(from).as("the timeline's svg element").isNotNegative();
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(html.substring(from, to).getBytes(StandardCharsets.UTF_8)));
        return doc.getDocumentElement();
    }

    /** The {@code tag} elements whose first class is {@code cls}, in document order. */
    private static List<Element> elements(Element root, String tag, String cls) {
        List<Element> found = new ArrayList<>();
        NodeList all = root.getElementsByTagName(tag);
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if (e.getAttribute("class").split(" ")[0].equals(cls)) {
                found.add(e);
            }
        }
        return found;
    }

    private static String title(Element e) {
        NodeList t = e.getElementsByTagName("title");
        return t.getLength() == 0 ? "" : t.item(0).getTextContent();
    }
}

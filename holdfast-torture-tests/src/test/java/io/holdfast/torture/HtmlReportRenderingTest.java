package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.TortureResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTML report of a real (short) run, opened in headless Chromium as a person would open it: the DOM
 * Chromium builds holds the timeline with one bar per hold and one band per fault, and the screenshot
 * shows the chart (hold bars and fault bands are drawn in their colours, not a blank page).
 */
class HtmlReportRenderingTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final int HOLD_GREEN = 0x43a047;
    private static final int LOST_AMBER = 0xfbc02d;
    @TempDir
    Path dir;

    @Test
    void theReportOfARunRendersWithItsTimelineInHeadlessChromium() throws Exception {
        if (!Files.isExecutable(CHROMIUM)) {
            throw new IllegalStateException(CHROMIUM + " is missing: run scripts/services (it installs the chromium package)");
        }
        TortureResult r = TortureRuns.run(TortureRuns.settings("render", "sqlite:" + dir.resolve("locks.db"),
                Fault.parseList("pause,kill")).clients(3).duration(Duration.ofSeconds(15)).build(), null);
        assertThat(r.injected()).as("faults injected").isNotEmpty();
        String url = r.htmlReport().toUri().toString();

        String dom = chromium(List.of("--dump-dom", url)).stdout;
        assertThat(dom).contains("<svg id=\"timeline\"").contains("<svg id=\"availability\"");
        assertThat(count(dom, "<rect class=\"hold hold-")).as("hold bars in the DOM").isEqualTo(r.acquisitions());
        assertThat(count(dom, "<rect class=\"fault fault-")).as("fault bands in the timeline").isEqualTo(r.injected().size());
        assertThat(count(dom, "<rect class=\"bar\"")).as("availability bars, one per second").isEqualTo(r.acquisitionsPerSecond().length);
        assertThat(dom).contains("with the fencing guard, 0 lost updates");

        Path png = dir.resolve("report.png");
        chromium(List.of("--screenshot=" + png, "--window-size=1400,900", url));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1400);
        // Hold bars: the run had hundreds of holds, so their green covers thousands of pixels, in the chart's rows.
        int[] green = pixels(image, HOLD_GREEN);
        assertThat(green[0]).as("pixels of hold green in the screenshot").isGreaterThan(1_000);
        int[] rows = rowsWith(image, HOLD_GREEN);
        assertThat(rows[1] - rows[0]).as("rows spanned by hold bars (lanes of %d clients)", r.settings().clients())
                .isBetween(40, 200);
        // Inside the chart's rows, the plot is far from blank: hold bars, fault bands, grid.
        long nonWhite = 0;
        long total = 0;
        for (int y = rows[0]; y <= rows[1]; y++) {
            for (int x = 130; x < 1290; x++) {
                total++;
                if ((image.getRGB(x, y) & 0xffffff) != 0xffffff && (image.getRGB(x, y) & 0xffffff) != 0xfcfcfc) {
                    nonWhite++;
                }
            }
        }
        assertThat((double) nonWhite / total).as("share of drawn pixels in the chart region").isGreaterThan(0.05);
        if (r.holdsReportedLost() > 0) {
            assertThat(pixels(image, LOST_AMBER)[0]).as("pixels of lost-hold amber").isGreaterThan(20);
        }
        Files.copy(png, Path.of("target", "torture", "render", "report.png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private record Output(String stdout, String stderr) {
    }

    private Output chromium(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + dir.resolve("chromium-profile")));
        cmd.addAll(args);
        Path out = dir.resolve("chromium.out");
        Path err = dir.resolve("chromium.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 120s: " + cmd);
        }
        Output o = new Output(Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        assertThat(p.exitValue()).as("chromium exit status; stderr:\n%s", o.stderr).isZero();
        return o;
    }

    private static int count(String text, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** {pixels within a small distance of {@code rgb}}. */
    private static int[] pixels(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if (close(image.getRGB(x, y), rgb)) {
                    n++;
                }
            }
        }
        return new int[] {n};
    }

    /** {first row, last row} with at least 30 pixels close to {@code rgb} (so the legend's small swatch does not count). */
    private static int[] rowsWith(BufferedImage image, int rgb) {
        int first = -1;
        int last = -1;
        for (int y = 0; y < image.getHeight(); y++) {
            int n = 0;
            for (int x = 0; x < image.getWidth(); x++) {
                if (close(image.getRGB(x, y), rgb)) {
                    n++;
                }
            }
            if (n >= 30) {
                if (first < 0) {
                    first = y;
                }
                last = y;
            }
        }
        assertThat(first).as("a row with hold green").isNotNegative();
        return new int[] {first, last};
    }

    private static boolean close(int argb, int rgb) {
        int dr = Math.abs(((argb >> 16) & 0xff) - ((rgb >> 16) & 0xff));
        int dg = Math.abs(((argb >> 8) & 0xff) - ((rgb >> 8) & 0xff));
        int db = Math.abs((argb & 0xff) - (rgb & 0xff));
        return dr + dg + db <= 24;
    }
}

package io.holdfast.testkit.torture;

import io.holdfast.Durations;
import io.holdfast.Uris;
import io.holdfast.testkit.torture.TortureResult.FaultOutcome;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.TortureResult.HoldOverlap;
import io.holdfast.testkit.torture.TortureResult.RegisterOutcome;
import io.holdfast.testkit.torture.TortureResult.StaleWrite;
import io.holdfast.testkit.torture.TortureResult.TokenViolation;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The HTML report: one self-contained page (inline CSS and SVG, no script, no external asset) with the
 * verdicts, a timeline of every hold per client with the fault windows and the anomalies drawn on it, the
 * acquisitions per second, and the tables of the text report. Elements carry classes and ids
 * ({@code svg#timeline}, {@code rect.hold}, {@code rect.fault}, {@code rect.cut-off} (with {@code data-client}), {@code rect.violation},
 * {@code path.stale-write}, {@code svg#availability}, {@code rect.bar}) so a test can find them.
 */
final class HtmlReport {
    static final int WIDTH = 1300;
    private static final int LEFT = 110;
    private static final int RIGHT = 20;
    private static final int TOP = 34;
    private static final int LANE = 30;
    private static final int BOTTOM = 36;
    private static final int LISTED = 200;
    private static final Map<Fault, String> FAULT_COLORS = Map.ofEntries(Map.entry(Fault.KILL, "#e53935"), Map.entry(Fault.PAUSE, "#8e24aa"),
            Map.entry(Fault.RESTART, "#1e88e5"), Map.entry(Fault.PARTITION, "#fb8c00"), Map.entry(Fault.LEADER_PARTITION, "#f4511e"),
            Map.entry(Fault.FOLLOWER_PARTITION, "#c62828"), Map.entry(Fault.MINORITY_PARTITION, "#ef6c00"),
            Map.entry(Fault.ONE_WAY_PARTITION, "#d81b60"), Map.entry(Fault.LEADER_KILL, "#3949ab"), Map.entry(Fault.LEADER_PAUSE, "#00897b"),
            Map.entry(Fault.SLOW_LINK, "#6d4c41"), Map.entry(Fault.LEADER_CLOCK_STEP, "#558b2f"));

    private HtmlReport() {
    }

    static String render(Checker.Analysis a) {
        StringBuilder b = new StringBuilder(64 * 1024 + a.holds().size() * 200);
        TortureSettings s = a.settings();
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Holdfast torture report: ")
                .append(esc(a.store())).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:16px 24px;color:#212121;background:#fff}\n")
                .append("h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:22px 0 6px}\n")
                .append(".meta{color:#555;font-size:13px;margin:2px 0}\n")
                .append("table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}")
                .append("th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:tabular-nums}\n")
                .append(".ok{color:#1b5e20;font-weight:600}.bad{color:#b71c1c;font-weight:600}.seen{color:#e65100;font-weight:600}\n")
                .append(".legend span{display:inline-block;margin-right:14px;font-size:12px}.sw{display:inline-block;width:12px;height:12px;")
                .append("vertical-align:-2px;margin-right:4px;border:1px solid #0003}\n")
                .append("pre{background:#fafafa;border:1px solid #eee;padding:8px;font-size:12px;overflow-x:auto}\n")
                .append("</style></head><body>\n");
        b.append("<h1>Holdfast torture report</h1>\n");
        meta(b, "store: " + a.store() + " (" + Uris.redact(s.uri()) + ")");
        meta(b, s.clients() + " client processes, " + Durations.format(s.duration()) + ", lease " + Durations.format(s.lease())
                + ", pause between read and write up to " + Durations.format(s.think()) + ", faults "
                + (s.faults().isEmpty() ? "none" : s.faults().stream().map(Fault::label).collect(Collectors.joining(","))) + ", seed " + s.seed());

        if (!s.clockSkews().isEmpty()) {
            meta(b, "clocks: " + TextReport.clocks(s));
        }
        verdicts(b, a);
        b.append("<h2>Timeline</h2>\n");
        legend(b);
        Scale x = scale(a);
        timeline(b, a, x);
        b.append("<h2>Successful acquisitions per second</h2>\n");
        availability(b, a, x);
        tables(b, a);
        b.append("</body></html>\n");
        return b.toString();
    }

    private static void verdicts(StringBuilder b, Checker.Analysis a) {
        RegisterOutcome fenced = a.registers().get(0);
        boolean fencedOk = fenced.lostUpdates() == 0 && fenced.staleWrites().isEmpty() && fenced.unexplained() == 0;
        b.append("<h2>Verdict</h2>\n<ul id=\"verdict\">\n");
        item(b, fencedOk ? "ok" : "bad", (fencedOk ? "OK" : "VIOLATED") + ": with the fencing guard, " + fenced.lostUpdates()
                + " lost updates (" + fenced.writesOk() + " applied, " + fenced.writesRejected() + " rejected by the fence)");
        item(b, a.violations().isEmpty() ? "ok" : "bad", (a.violations().isEmpty() ? "OK" : "VIOLATED") + ": " + TextReport.exclusion(a.settings()) + ", "
                + a.violations().size() + " overlaps of holds never reported lost (" + a.holds().size() + " holds)");
        item(b, a.unreportedLosses().isEmpty() ? "ok" : "bad", (a.unreportedLosses().isEmpty() ? "OK" : "VIOLATED")
                + ": lost-hold reporting, " + a.unreportedLosses().size() + " overlaps in which a holder frozen or cut off past its lease "
                + "was never told of its loss");
        item(b, a.tokenViolations().isEmpty() ? "ok" : "bad", (a.tokenViolations().isEmpty() ? "OK" : "VIOLATED")
                + ": fencing tokens, " + a.tokenViolations().size() + " violations of real-time order or uniqueness");
        for (RegisterOutcome r : a.registers().subList(1, a.registers().size())) {
            boolean none = r.lostUpdates() == 0 && r.staleWrites().isEmpty();
            item(b, none ? "ok" : "seen", (none ? "none seen" : "SEEN") + ": " + r.label() + " counter, " + r.lostUpdates()
                    + " lost updates, " + r.staleWrites().size() + " stale writes");
        }
        item(b, "", a.staleOverlaps().size() + " overlaps with holds later reported lost (allowed by the contract; "
                + a.holdsReportedLost() + " holds reported lost in all)");
        b.append("</ul>\n");
    }

    private static void legend(StringBuilder b) {
        b.append("<div class=\"legend\">");
        swatch(b, "#43a047", "hold, released");
        swatch(b, "#fbc02d", "hold, reported lost");
        swatch(b, "#9e9e9e", "hold, ended by a kill");
        for (Fault f : Fault.values()) {
            swatch(b, FAULT_COLORS.get(f), f.label() + " window");
        }
        swatch(b, "#ffffff", "dashed lane outline: client on the cut-off side of a partition (dotted: cut off one way)");
        swatch(b, "#d50000", "mutual-exclusion violation (dashed: a holder never told of its loss)");
        swatch(b, "#6a1b9a", "stale write, unguarded");
        swatch(b, "#ff1744", "stale write, write-fenced");
        swatch(b, "#000000", "write rejected by a fence");
        b.append("</div>\n");
    }

    /** One time scale for both charts, so a second of the availability chart sits under the same second of the timeline. */
    private static Scale scale(Checker.Analysis a) {
        long from = Math.min(a.originMicros(), a.startMicros());
        long to = a.startMicros() + a.acquisitionsPerSecond().length * 1_000_000L;
        for (Checker.Span h : a.holds()) {
            to = Math.max(to, h.endMicros);
        }
        return new Scale(from, Math.max(to, from + 1_000_000));
    }

    private static void timeline(StringBuilder b, Checker.Analysis a, Scale x) {
        int lanes = a.settings().clients();
        int height = TOP + lanes * LANE + BOTTOM;
        b.append("<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height).append("\" font-family=\"sans-serif\" font-size=\"11\">\n");
        b.append("<rect class=\"plot\" x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(WIDTH - LEFT - RIGHT)
                .append("\" height=\"").append(lanes * LANE).append("\" fill=\"#fcfcfc\" stroke=\"#bdbdbd\"/>\n");
        for (int c = 1; c <= lanes; c++) {
            int y = laneY(c);
            b.append("<text x=\"8\" y=\"").append(y + LANE / 2 + 4).append("\">client ").append(c).append("</text>");
            b.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT).append("\" y1=\"").append(y + LANE)
                    .append("\" y2=\"").append(y + LANE).append("\" stroke=\"#eeeeee\"/>\n");
        }
        // Axis: seconds from the start of the run.
        long spanS = Math.max(1, (x.to - x.from) / 1_000_000);
        long step = spanS <= 20 ? 1 : spanS <= 60 ? 5 : spanS <= 180 ? 15 : spanS <= 600 ? 30 : spanS <= 1800 ? 120 : 600;
        b.append("<g id=\"axis\">");
        long firstTick = (long) Math.ceil((x.from - a.startMicros()) / 1e6 / step) * step;
        for (long t = firstTick; a.startMicros() + t * 1_000_000 <= x.to; t += step) {
            double px = x.at(a.startMicros() + t * 1_000_000);
            b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#e0e0e0\"/>", px, px, TOP, TOP + lanes * LANE));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#616161\">%ds</text>", px, TOP + lanes * LANE + 14, t));
        }
        b.append("</g>\n<g id=\"faults\">\n");
        double labelsEnd = 0; // labels that would overlap the previous one are left out (the tooltip stays)
        for (FaultWindow f : a.faults()) {
            if (f.skipReason() != null) {
                continue;
            }
            double x1 = x.at(f.startMicros());
            double w = Math.max(2, x.at(f.endMicros()) - x1);
            String color = FAULT_COLORS.get(f.fault());
            String title = f.fault().label() + " " + f.target() + (f.heldToken() != 0 ? " (holding token " + f.heldToken() + ")" : "")
                    + " at " + TextReport.seconds(f.startMicros() - a.startMicros()) + ": " + f.detail()
                    + (f.sides().isEmpty() ? "" : "; sides " + f.sides());
            b.append(String.format(Locale.ROOT, "<rect class=\"fault fault-%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.14\">",
                    f.fault().label(), x1, TOP, w, lanes * LANE, color)).append("<title>").append(esc(title)).append("</title></rect>");
            int lane = clientOf(f.target());
            if (lane > 0) {
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.35\"/>",
                        x1, laneY(lane), w, LANE, color));
            }
            for (int cut : f.cutOffClients()) { // the clients on the partition's cut-off side: a dashed lane outline
                b.append(String.format(Locale.ROOT, "<rect class=\"cut-off%s\" data-client=\"%d\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                        + "fill=\"none\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"><title>%s</title></rect>", f.oneWay() ? " one-way" : "",
                        cut, x1, laneY(cut) + 1, w, LANE - 2, color, f.oneWay() ? "2 3" : "6 3",
                        esc("client " + cut + (f.oneWay() ? " cut off one way (packets dropped from the left side to the right): "
                                : " on the cut-off side: ") + f.sides())));
            }
            String label = f.fault().label() + (lane > 0 ? " c" + lane : "");
            if (x1 >= labelsEnd) {
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">%s</text>\n", x1 + 2, TOP - 6, color,
                        esc(label)));
                labelsEnd = x1 + 8 + label.length() * 7;
            }
        }
        b.append("</g>\n<g id=\"holds\">\n");
        for (Checker.Span h : a.holds()) {
            double x1 = x.at(h.okMicros);
            double w = Math.max(1, x.at(h.endMicros) - x1);
            String kind = h.reportedLost() ? "lost" : h.endedByDeath ? "killed" : "released";
            String color = h.reportedLost() ? "#fbc02d" : h.endedByDeath ? "#9e9e9e" : "#43a047";
            b.append(String.format(Locale.ROOT, "<rect class=\"hold hold-%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">",
                    kind, x1, laneY(h.client) + 6, w, LANE - 12, color));
            b.append("<title>").append(esc("client " + h.name() + " token " + h.token + ", from "
                    + TextReport.seconds(h.okMicros - a.startMicros()) + " to " + TextReport.seconds(h.endMicros - a.startMicros())
                    + (h.reportedLost() ? ", reported lost: " + h.lostReason : h.endedByDeath ? ", ended by the death of its process" : "")))
                    .append("</title></rect>\n");
            if (h.lostMicros != 0) {
                double lx = x.at(h.lostMicros);
                int y = laneY(h.client) + 4;
                b.append(String.format(Locale.ROOT, "<path class=\"lost-mark\" d=\"M%.1f %d l-4 -4 h8 z\" fill=\"#f57f17\"/>", lx, y));
            }
        }
        for (ClientLife life : a.lives()) {
            if (life.killed() && life.endMicros() != 0 && life.endMicros() < a.endMicros()) {
                double kx = x.at(life.endMicros());
                int y = laneY(life.client()) + LANE / 2;
                b.append(String.format(Locale.ROOT, "<path class=\"death\" d=\"M%.1f %d l6 6 m0 -6 l-6 6\" stroke=\"#b71c1c\" stroke-width=\"2\"/>",
                        kx - 3, y - 3));
            }
        }
        b.append("</g>\n<g id=\"anomalies\">\n");
        for (RegisterOutcome r : a.registers()) {
            String color = r.label().equals("unguarded") ? "#6a1b9a" : r.label().equals("write-fenced") ? "#ff1744" : "#d50000";
            for (StaleWrite w : r.staleWrites()) {
                int lane = clientOf("client " + w.client());
                double sx = x.at(w.micros());
                int y = laneY(lane) + (r.label().equals("unguarded") ? 2 : LANE - 10);
                b.append(String.format(Locale.ROOT, "<path class=\"stale-write stale-%s\" d=\"M%.1f %d l-4 8 h8 z\" fill=\"%s\">", r.label(), sx, y, color))
                        .append("<title>").append(esc(r.label() + " stale write by client " + w.client() + " (token " + w.token() + "): wrote "
                                + w.value() + " after " + w.highestBefore())).append("</title></path>\n");
            }
        }
        for (Event e : a.rejectedWrites()) {
            String what = e.op().equals(Event.OP_CLAIM) ? "fenced claim" : e.op().substring(6) + " write of " + e.value();
            b.append(String.format(Locale.ROOT, "<circle class=\"rejected\" cx=\"%.1f\" cy=\"%d\" r=\"2.5\" fill=\"#000\"><title>%s</title></circle>\n",
                    x.at(e.micros()), laneY(e.client()) + LANE - 4, esc(what + " by client "
                            + e.client() + "." + e.incarnation() + " (token " + e.token() + ") rejected by the fence")));
        }
        for (HoldOverlap o : a.unreportedLosses()) {
            double x1 = x.at(o.startMicros());
            double w = Math.max(3, x.at(o.endMicros()) - x1);
            for (String client : List.of(o.clientA(), o.clientB())) {
                int lane = clientOf("client " + client);
                b.append(String.format(Locale.ROOT, "<rect class=\"unreported-loss\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"none\" "
                        + "stroke=\"#d50000\" stroke-width=\"2\" stroke-dasharray=\"4 2\"><title>%s</title></rect>\n", x1, laneY(lane) + 2, w, LANE - 4,
                        esc("unreported loss: " + TextReport.overlap(o, a.startMicros()))));
            }
        }
        for (HoldOverlap o : a.violations()) {
            double x1 = x.at(o.startMicros());
            double w = Math.max(3, x.at(o.endMicros()) - x1);
            for (String client : List.of(o.clientA(), o.clientB())) {
                int lane = clientOf("client " + client);
                b.append(String.format(Locale.ROOT, "<rect class=\"violation\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"none\" "
                        + "stroke=\"#d50000\" stroke-width=\"3\"><title>%s</title></rect>\n", x1, laneY(lane) + 2, w, LANE - 4,
                        esc("mutual-exclusion violation: " + TextReport.overlap(o, a.startMicros()))));
            }
        }
        b.append("</g>\n");
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#616161\">time since the start of the run</text>",
                WIDTH - RIGHT - 190, height - 6));
        b.append("</svg>\n");
    }

    private static void availability(StringBuilder b, Checker.Analysis a, Scale x) {
        int[] perSecond = a.acquisitionsPerSecond();
        int height = 150;
        int top = 10;
        int plotH = height - top - 28;
        int max = 1;
        for (int v : perSecond) {
            max = Math.max(max, v);
        }
        double bw = x.at(a.startMicros() + 1_000_000) - x.at(a.startMicros());
        double zero = x.at(a.startMicros());
        b.append("<svg id=\"availability\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height).append("\" font-family=\"sans-serif\" font-size=\"11\">\n");
        b.append(String.format(Locale.ROOT, "<text x=\"8\" y=\"%d\">%d/s</text><text x=\"8\" y=\"%d\">0</text>", top + 10, max, top + plotH));
        for (FaultWindow f : a.faults()) {
            if (f.skipReason() == null) {
                double x1 = x.at(f.startMicros());
                double w = Math.max(2, (f.endMicros() - f.startMicros()) / 1e6 * bw);
                b.append(String.format(Locale.ROOT, "<rect class=\"fault\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.14\"/>",
                        x1, top, w, plotH, FAULT_COLORS.get(f.fault())));
            }
        }
        for (int i = 0; i < perSecond.length; i++) {
            double h = (double) perSecond[i] / max * plotH;
            b.append(String.format(Locale.ROOT, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%ds: %d</title></rect>",
                    zero + i * bw + 0.5, top + plotH - h, Math.max(1, bw - 1), h, perSecond[i] == 0 ? "#e53935" : "#3949ab", i, perSecond[i]));
            if (perSecond[i] == 0) {
                b.append(String.format(Locale.ROOT, "<rect class=\"bar-zero\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"3\" fill=\"#e53935\"/>",
                        zero + i * bw + 0.5, top + plotH - 3, Math.max(1, bw - 1)));
            }
        }
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#9e9e9e\"/>", LEFT, WIDTH - RIGHT, top + plotH, top + plotH));
        int step = perSecond.length <= 20 ? 1 : perSecond.length <= 60 ? 5 : perSecond.length <= 300 ? 30 : 120;
        for (int i = 0; i <= perSecond.length; i += step) {
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#616161\">%ds</text>",
                    zero + i * bw, top + plotH + 14, i));
        }
        b.append("</svg>\n");
    }

    private static void tables(StringBuilder b, Checker.Analysis a) {
        b.append("<h2>Counters</h2>\n<p class=\"meta\">Every write is the value read plus one: without lost updates, the final value "
                + "equals the applied writes.</p>\n<table id=\"counters\"><tr><th>counter</th><th>guard</th><th>applied</th><th>rejected</th>"
                + "<th>unknown</th><th>final</th><th>lost updates</th><th>stale writes</th></tr>\n");
        for (RegisterOutcome r : a.registers()) {
            b.append("<tr><td>").append(esc(r.label())).append("</td><td>").append(esc(r.guard())).append("</td>");
            num(b, r.writesOk());
            num(b, r.writesRejected());
            num(b, r.writesIndeterminate());
            num(b, r.finalValue());
            num(b, r.lostUpdates());
            num(b, r.staleWrites().size());
            b.append("</tr>\n");
        }
        b.append("</table>\n");

        b.append("<h2>Faults</h2>\n<table id=\"fault-table\"><tr><th>at</th><th>fault</th><th>target</th><th>held token</th><th>lasted</th>"
                + "<th>what</th><th>holds lost</th><th>violations</th><th>unreported losses</th><th>stale overlaps</th><th>token violations</th>"
                + "<th>rejected writes (fenced / write-fenced)</th><th>stale writes (fenced / write-fenced / unguarded)</th></tr>\n");
        for (FaultOutcome o : a.perFault()) {
            FaultWindow f = o.window();
            b.append("<tr><td>").append(TextReport.seconds(f.startMicros() - a.startMicros())).append("</td><td>").append(f.fault().label())
                    .append("</td><td>").append(esc(f.target())).append("</td><td>").append(f.heldToken() == 0 ? "-" : f.heldToken())
                    .append("</td><td>").append(TextReport.seconds(f.endMicros() - f.startMicros())).append("</td><td>").append(esc(f.detail()))
                    .append("</td>");
            num(b, o.holdsLost());
            num(b, o.violations());
            num(b, o.unreportedLosses());
            num(b, o.staleOverlaps());
            num(b, o.tokenViolations());
            b.append("<td>").append(o.rejectedWrites().get("fenced")).append(" / ").append(o.rejectedWrites().get("write-fenced")).append("</td>");
            b.append("<td>").append(o.staleWrites().get("fenced")).append(" / ").append(o.staleWrites().get("write-fenced")).append(" / ")
                    .append(o.staleWrites().get("unguarded")).append("</td></tr>\n");
        }
        for (FaultWindow f : a.faults()) {
            if (f.skipReason() != null) {
                b.append("<tr><td></td><td>").append(f.fault().label()).append("</td><td colspan=\"11\">not injected: ")
                        .append(esc(f.skipReason())).append("</td></tr>\n");
            }
        }
        b.append("</table>\n");

        if (!a.violations().isEmpty()) {
            b.append("<h2>Mutual-exclusion violations</h2>\n<ul>");
            for (HoldOverlap o : a.violations().subList(0, Math.min(LISTED, a.violations().size()))) {
                b.append("<li>").append(esc(TextReport.overlap(o, a.startMicros()))).append("</li>");
            }
            b.append("</ul>\n");
        }
        if (!a.unreportedLosses().isEmpty()) {
            b.append("<h2>Holders never told of their loss</h2>\n<ul>");
            for (HoldOverlap o : a.unreportedLosses().subList(0, Math.min(LISTED, a.unreportedLosses().size()))) {
                b.append("<li>").append(esc(TextReport.overlap(o, a.startMicros()))).append("</li>");
            }
            b.append("</ul>\n");
        }
        if (!a.tokenViolations().isEmpty()) {
            b.append("<h2>Token violations</h2>\n<ul>");
            for (TokenViolation t : a.tokenViolations().subList(0, Math.min(LISTED, a.tokenViolations().size()))) {
                b.append("<li>").append(esc(TextReport.seconds(t.micros() - a.startMicros()) + " client " + t.client() + ": " + t.what()
                        + " (client " + t.earlierClient() + ")")).append("</li>");
            }
            b.append("</ul>\n");
        }
    }

    private static int clientOf(String target) {
        if (!target.startsWith("client ")) {
            return 0;
        }
        String rest = target.substring(7);
        int dot = rest.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? rest : rest.substring(0, dot));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int laneY(int client) {
        return TOP + (client - 1) * LANE;
    }

    private static void meta(StringBuilder b, String text) {
        b.append("<p class=\"meta\">").append(esc(text)).append("</p>\n");
    }

    private static void item(StringBuilder b, String cls, String text) {
        b.append("<li").append(cls.isEmpty() ? "" : " class=\"" + cls + "\"").append('>').append(esc(text)).append("</li>\n");
    }

    private static void swatch(StringBuilder b, String color, String label) {
        b.append("<span><i class=\"sw\" style=\"background:").append(color).append("\"></i>").append(esc(label)).append("</span>");
    }

    private static void num(StringBuilder b, long n) {
        b.append("<td class=\"n\">").append(n).append("</td>");
    }

    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** Maps times (microseconds) to x pixels of the plot. */
    private static final class Scale {
        final long from;
        final long to;

        Scale(long from, long to) {
            this.from = from;
            this.to = to;
        }

        double at(long micros) {
            return LEFT + (double) (micros - from) / (to - from) * (WIDTH - LEFT - RIGHT);
        }
    }
}

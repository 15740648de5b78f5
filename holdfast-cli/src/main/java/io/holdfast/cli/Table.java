package io.holdfast.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table for human output: a header row, columns padded to their widest cell and
 * separated by two spaces, numeric columns right-aligned, no trailing spaces.
 */
final class Table {
    private final String[] headers;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = headers.clone();
        this.rightAligned = new boolean[headers.length];
    }

    /** Right-aligns the given columns (for numbers). */
    Table alignRight(int... columns) {
        for (int c : columns) {
            rightAligned[c] = true;
        }
        return this;
    }

    Table row(Object... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + headers.length + " columns");
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = printable(cells[i] == null ? "-" : cells[i].toString());
        }
        rows.add(row);
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    /** The table, one line per row, each ending with a newline. */
    String render() {
        int[] widths = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            widths[i] = headers[i].length();
        }
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, widths);
        for (String[] row : rows) {
            line(out, row, widths);
        }
        return out.toString();
    }

    private void line(StringBuilder out, String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                line.append("  ");
            }
            String pad = " ".repeat(widths[i] - cells[i].length());
            line.append(rightAligned[i] ? pad + cells[i] : cells[i] + pad);
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    /** Replaces control characters so a stored value cannot break the layout or drive the terminal. */
    private static String printable(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return out.toString();
    }
}

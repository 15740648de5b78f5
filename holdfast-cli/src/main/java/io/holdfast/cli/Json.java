package io.holdfast.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes JSON (RFC 8259) for the {@code --json} outputs: objects keep insertion order, strings are
 * escaped (quote, backslash, every control character), numbers are written as Java writes longs and
 * finite doubles. Values may be null, String, Boolean, Number, Map, List or {@link Json.Obj}.
 */
final class Json {
    private Json() {
    }

    /** A JSON object under construction. */
    static final class Obj {
        private final Map<String, Object> fields = new LinkedHashMap<>();

        Obj put(String key, Object value) {
            fields.put(key, value);
            return this;
        }

        @Override
        public String toString() {
            return write(this);
        }
    }

    static Obj object() {
        return new Obj();
    }

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        append(out, value);
        return out.toString();
    }

    private static void append(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Obj obj) {
            append(out, obj.fields);
        } else if (value instanceof String s) {
            quote(out, s);
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue());
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                out.append("null"); // JSON has no NaN or infinity
            } else {
                out.append(d);
            }
        } else if (value instanceof Number n) {
            out.append(n.longValue());
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                quote(out, String.valueOf(e.getKey()));
                out.append(':');
                append(out, e.getValue());
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                append(out, list.get(i));
            }
            out.append(']');
        } else {
            quote(out, value.toString());
        }
    }

    static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    // Control characters must be escaped; U+2028/U+2029 too, for JavaScript consumers.
                    if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}

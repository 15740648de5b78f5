package io.holdfast.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** Versions of the benchmarked libraries: filled in by the build, or read from a jar's Maven metadata. */
final class Versions {
    private Versions() {
    }

    /** The version of {@code library} in this package's {@code versions.properties}, or "?". */
    static String of(String library) {
        return load("versions.properties").getProperty(library, "?");
    }

    /** The version in a jar's {@code META-INF/maven} metadata (kept in the shaded jar), or "?". */
    static String ofArtifact(String group, String artifact) {
        return load("/META-INF/maven/" + group + "/" + artifact + "/pom.properties").getProperty("version", "?");
    }

    private static Properties load(String resource) {
        try (InputStream in = Versions.class.getResourceAsStream(resource)) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

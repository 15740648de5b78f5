package io.holdfast.jdbc;

/** The conformance suite on the server of {@link PostgresConformanceTest} in session-lock mode ({@code mode=native}), in tables of its own. */
class PostgresNativeConformanceTest extends PostgresConformanceTest {
    @Override
    String mode() {
        return "native";
    }
}

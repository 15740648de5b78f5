package io.holdfast.jdbc;

/** The conformance suite on the server of {@link PostgresConformanceTest} in row-lock mode ({@code mode=row}), in tables of its own. */
class PostgresRowConformanceTest extends PostgresConformanceTest {
    @Override
    String mode() {
        return "row";
    }
}

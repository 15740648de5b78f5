package io.holdfast.jdbc;

/** The conformance suite on the server of {@link MariaDbConformanceTest} in row-lock mode ({@code mode=row}), in tables of its own. */
class MariaDbRowConformanceTest extends MariaDbConformanceTest {
    @Override
    String mode() {
        return "row";
    }
}

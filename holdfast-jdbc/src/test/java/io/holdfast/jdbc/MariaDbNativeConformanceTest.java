package io.holdfast.jdbc;

/** The conformance suite on the server of {@link MariaDbConformanceTest} in session-lock mode ({@code mode=native}), in tables of its own. */
class MariaDbNativeConformanceTest extends MariaDbConformanceTest {
    @Override
    String mode() {
        return "native";
    }
}

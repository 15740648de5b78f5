package io.holdfast.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Prints a {@link HoldfastConfigurationException} at startup as a description and an action. */
final class HoldfastFailureAnalyzer extends AbstractFailureAnalyzer<HoldfastConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, HoldfastConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}

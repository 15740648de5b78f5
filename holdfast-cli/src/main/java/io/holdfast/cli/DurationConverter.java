package io.holdfast.cli;

import io.holdfast.Durations;
import picocli.CommandLine;

import java.time.Duration;

/** Reads option values such as {@code 500ms}, {@code 10s}, {@code 5m} or {@code PT10S}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}

package io.holdfast.cli;

import picocli.CommandLine;

/** Reads an exit status chosen on the command line, such as {@code run -E N}: an integer from 0 to 255. */
final class ExitStatusConverter implements CommandLine.ITypeConverter<Integer> {
    private static final String ALLOWED = "allowed: an integer from 0 to 255";

    @Override
    public Integer convert(String value) {
        int status;
        try {
            status = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not an exit status; " + ALLOWED);
        }
        if (status < 0 || status > 255) {
            throw new CommandLine.TypeConversionException(status + " is not an exit status; " + ALLOWED);
        }
        return status;
    }
}

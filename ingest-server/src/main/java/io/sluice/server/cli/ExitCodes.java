package io.sluice.server.cli;

/** The exit codes of every command. */
public final class ExitCodes {
    public static final int OK = 0;
    /** A failure at run time (a WAL that cannot be opened); or, for {@code wal inspect}, damage found. */
    public static final int FAILURE = 1;
    /** A usage or configuration error: one line on stderr says which and why. */
    public static final int CONFIG = 2;

    private ExitCodes() {
    }
}

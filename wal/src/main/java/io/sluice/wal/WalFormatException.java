package io.sluice.wal;

import java.io.IOException;

/**
 * A segment is intact but in a format this build cannot read (written by a newer version). Not
 * damage: the WAL refuses to open rather than "repair" good data away.
 */
public final class WalFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public WalFormatException(String message) {
        super(message);
    }
}

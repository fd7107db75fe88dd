package io.sluice.wal;

/**
 * What {@link Wal#open(WalOptions)} found and did.
 *
 * @param segments          segment files that make up the log after open
 * @param records           valid records found in them
 * @param endPosition       where the next record goes: the end of the valid log
 * @param corruption        the first damage found (the log was cut there), or null if clean
 * @param unfinishedRemoved files of interrupted segment creations that were removed: temporary
 *                          files and an all-zero last segment (not damage: they held nothing)
 */
public record WalOpenReport(int segments, long records, long endPosition, WalCorruption corruption,
                            int unfinishedRemoved) {

    public boolean isClean() {
        return corruption == null;
    }

    @Override
    public String toString() {
        String state = corruption == null ? "clean" : "repaired: " + corruption;
        return state + "; " + segments + " segment(s), " + records + " record(s), end at "
                + WalPosition.toString(endPosition) + (unfinishedRemoved > 0 ? ", " + unfinishedRemoved
                + " unfinished segment file(s) removed" : "");
    }
}

package io.sluice.core.index;

import io.sluice.core.labels.SymbolTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.roaringbitmap.FastAggregation;
import org.roaringbitmap.RoaringBitmap;

/**
 * Selection by label matchers over one shard's {@link Postings} and {@link SymbolTable}, with
 * Prometheus' semantics ({@code tsdb/querier.go PostingsForMatchers}):
 * <ul>
 *   <li>a matcher that does not match {@code ""} selects the series whose value passes
 *       (intersected over all such matchers);</li>
 *   <li>a matcher that matches {@code ""} also passes series without the label, so it only
 *       subtracts the series whose value fails it ({@code {foo=""}}, {@code {foo!="bar"}},
 *       {@code {foo=~".*"}}, {@code {foo=~"|x"}});</li>
 *   <li>if every matcher matches {@code ""}, selection starts from all series; with no matchers
 *       the result is empty (PromQL rejects such selectors before they get here).</li>
 * </ul>
 * This is equivalent to Prometheus' case analysis: where another matcher requires the label, every
 * selected series has it, and subtracting the failing values equals intersecting the passing ones.
 *
 * <p><b>Threads.</b> Any thread; results are fresh bitmaps the caller owns. Work is split so that
 * regexes never run under the postings lock, which would stall the shard thread's series creation:
 * <ol>
 *   <li>under the read lock: copy all series, look up each matcher's name and literal values in the
 *       symbol table, and copy the value ids of each name a regex must scan;</li>
 *   <li>without the lock: run each such regex once per value (strings from the lock-free symbol
 *       table);</li>
 *   <li>under the read lock again: union and intersect postings, then keep only series of step 1
 *       (all their values were judged in step 2) that are still indexed (evicted ones drop out).</li>
 * </ol>
 * Without a regex to scan (equality, literal alternations, {@code .*}, {@code .+}), steps 1 and 3
 * run under one lock hold and the snapshot of step 1 is not needed.
 * So a select sees the series that existed when it began and were not evicted before it ended;
 * series created meanwhile are left out. Series ids must not be reused for another label set while
 * a select that began before the eviction may still run (the registry must not reuse them at once).
 */
public final class Selector {
    private final SymbolTable symbols;
    private final Postings postings;

    public Selector(SymbolTable symbols, Postings postings) {
        this.symbols = symbols;
        this.postings = postings;
    }

    /** The ids of the series that match every matcher. */
    public RoaringBitmap select(Matcher... matchers) {
        if (matchers.length == 0) {
            return new RoaringBitmap();
        }
        Plan[] plans = new Plan[matchers.length];
        boolean scans = false;
        for (int i = 0; i < matchers.length; i++) {
            plans[i] = new Plan(matchers[i]);
            scans |= matchers[i].shape().scansValues();
        }
        if (!scans) {
            return selectUnderOneLock(plans);
        }
        RoaringBitmap before = resolve(plans);
        for (Plan plan : plans) {
            plan.judgeScannedValues(symbols);
        }
        long stamp = postings.readLock();
        try {
            return combine(plans, before);
        } finally {
            postings.unlockRead(stamp);
        }
    }

    /** Without regexes to scan, steps 1 and 3 take one short lock hold and need no snapshot. */
    private RoaringBitmap selectUnderOneLock(Plan[] plans) {
        long stamp = postings.readLock();
        try {
            for (Plan plan : plans) {
                plan.resolve(symbols, postings);
            }
            return combine(plans, null);
        } finally {
            postings.unlockRead(stamp);
        }
    }

    /** Label names in use, in byte order (Go string order, as Prometheus returns them). */
    public List<String> labelNames() {
        return sortedStrings(postings.nameIds());
    }

    /** Values in use for {@code name}, in byte order; empty if no series has the label. */
    public List<String> labelValues(String name) {
        int nameId = symbols.find(name);
        return nameId < 0 ? List.of() : sortedStrings(postings.valueIds(nameId));
    }

    /**
     * Step 1: all series; each matcher's name and literal values as symbol ids; for each regex to
     * scan, the value ids of its name. Symbols are looked up under the lock so that every symbol of
     * a series in the returned snapshot is found (the writer interns before it indexes).
     */
    private RoaringBitmap resolve(Plan[] plans) {
        long stamp = postings.readLock();
        try {
            for (Plan plan : plans) {
                plan.resolve(symbols, postings);
            }
            return postings.allLocked().clone();
        } finally {
            postings.unlockRead(stamp);
        }
    }

    /** Step 3, under the read lock; {@code before} is step 1's snapshot of all series, or null. */
    private RoaringBitmap combine(Plan[] plans, RoaringBitmap before) {
        RoaringBitmap result = intersectPassing(plans);
        if (result != null && result.isEmpty()) {
            return result;
        }
        if (result == null) {
            result = postings.allLocked().clone();
        }
        if (before != null) {
            result.and(before);
        }
        for (Plan plan : plans) {
            if (plan.matcher.matchesEmpty()) {
                result.andNot(plan.seriesWithValues(postings, false));
            }
        }
        return result;
    }

    /**
     * The series passing every matcher that does not match {@code ""}; null if there is none. The
     * sets are intersected smallest first, and a single-value equality's postings list is read in
     * place: a selective query ({@code {__name__="x", instance="y"}}) allocates about its result, not
     * a copy of a name's postings that may cover every series. Under the read lock.
     */
    private RoaringBitmap intersectPassing(Plan[] plans) {
        RoaringBitmap[] sets = new RoaringBitmap[plans.length];
        int n = 0;
        for (Plan plan : plans) {
            if (!plan.matcher.matchesEmpty()) {
                RoaringBitmap passing = plan.passingReadOnly(postings);
                if (passing.isEmpty()) {
                    return new RoaringBitmap();
                }
                sets[n++] = passing;
            }
        }
        if (n == 0) {
            return null;
        }
        Arrays.sort(sets, 0, n, Comparator.comparingLong(RoaringBitmap::getLongCardinality));
        RoaringBitmap result = n == 1 ? sets[0].clone() : RoaringBitmap.and(sets[0], sets[1]);
        for (int i = 2; i < n && !result.isEmpty(); i++) {
            result.and(sets[i]);
        }
        return result;
    }

    private List<String> sortedStrings(RoaringBitmap ids) {
        List<Integer> sorted = new ArrayList<>(ids.getCardinality());
        ids.forEach((int id) -> sorted.add(id));
        sorted.sort(symbols::compare);
        List<String> strings = new ArrayList<>(sorted.size());
        for (int id : sorted) {
            strings.add(symbols.string(id));
        }
        return strings;
    }

    /** One matcher's resolution against this shard during one select. */
    private static final class Plan {
        final Matcher matcher;
        int nameId = -1; // step 1; -1: no series has ever had the name
        int[] literalIds; // step 1, LITERALS shape: value ids of the literals, -1 where unknown
        RoaringBitmap candidates; // step 1, REGEX shape: value ids to judge
        RoaringBitmap positiveValues; // step 2: the candidates the positive form accepts

        Plan(Matcher matcher) {
            this.matcher = matcher;
        }

        /** Step 1, under the read lock. */
        void resolve(SymbolTable symbols, Postings postings) {
            byte[] name = matcher.nameBytes();
            nameId = symbols.find(name, 0, name.length);
            if (nameId < 0) {
                return;
            }
            if (matcher.shape() == Matcher.Shape.LITERALS) {
                List<String> literals = matcher.literals();
                literalIds = new int[literals.size()];
                for (int i = 0; i < literalIds.length; i++) {
                    // No label has an empty value, and "" may be a symbol for other reasons.
                    literalIds[i] = literals.get(i).isEmpty() ? -1 : symbols.find(literals.get(i));
                }
            } else if (needsScan()) {
                RoaringBitmap values = postings.valuesLocked(nameId);
                candidates = values == null ? new RoaringBitmap() : values.clone();
            }
        }

        boolean needsScan() {
            return nameId >= 0 && matcher.shape().scansValues();
        }

        /** Step 2, no lock: judge each candidate value once with the positive form's regex. */
        void judgeScannedValues(SymbolTable symbols) {
            if (!needsScan()) {
                return;
            }
            positiveValues = new RoaringBitmap();
            candidates.forEach((int valueId) -> {
                if (matcher.positiveMatches(symbols.string(valueId))) {
                    positiveValues.add(valueId);
                }
            });
        }

        /**
         * The series passing the matcher, which the caller must not modify: for an equality with one
         * known value the postings list itself, else a fresh set. Under the read lock.
         */
        RoaringBitmap passingReadOnly(Postings postings) {
            if (nameId >= 0 && matcher.shape() == Matcher.Shape.LITERALS && !matcher.isNegative() && literalIds.length == 1) {
                RoaringBitmap series = literalIds[0] < 0 ? null : postings.pairLocked(nameId, literalIds[0]);
                return series == null ? new RoaringBitmap() : series;
            }
            return seriesWithValues(postings, true);
        }

        /**
         * Series whose value for the name passes the matcher ({@code passing}) or fails it, among
         * those that have the label. Under the read lock.
         */
        RoaringBitmap seriesWithValues(Postings postings, boolean passing) {
            if (nameId < 0) {
                return new RoaringBitmap();
            }
            // The positive form's verdict wanted: a negative matcher passes where its positive form fails.
            boolean positiveWanted = passing != matcher.isNegative();
            return switch (matcher.shape()) {
                case ANY, NON_EMPTY -> positiveWanted ? union(postings, postings.valuesLocked(nameId)) : new RoaringBitmap();
                case LITERALS -> literalSeries(postings, positiveWanted);
                case REGEX, AFFIX -> positiveWanted ? union(postings, positiveValues) : union(postings, rejected());
            };
        }

        private RoaringBitmap literalSeries(Postings postings, boolean positiveWanted) {
            RoaringBitmap listed = new RoaringBitmap();
            for (int valueId : literalIds) {
                RoaringBitmap series = valueId < 0 ? null : postings.pairLocked(nameId, valueId);
                if (series != null) {
                    listed.or(series);
                }
            }
            if (positiveWanted) {
                return listed;
            }
            // A series has one value per name: those with the label minus those with a listed value.
            RoaringBitmap withLabel = union(postings, postings.valuesLocked(nameId));
            withLabel.andNot(listed);
            return withLabel;
        }

        private RoaringBitmap rejected() {
            RoaringBitmap r = candidates.clone();
            r.andNot(positiveValues);
            return r;
        }

        /**
         * The union of the postings of {@code valueIds}, in one pass over all of them
         * ({@link FastAggregation#or}): folding them in one at a time would re-merge the growing
         * result for every value, quadratic for a regex over thousands of single-series values.
         */
        private RoaringBitmap union(Postings postings, RoaringBitmap valueIds) {
            if (valueIds == null) {
                return new RoaringBitmap();
            }
            List<RoaringBitmap> lists = new ArrayList<>(valueIds.getCardinality());
            valueIds.forEach((int valueId) -> {
                RoaringBitmap series = postings.pairLocked(nameId, valueId);
                if (series != null) {
                    lists.add(series);
                }
            });
            return switch (lists.size()) {
                case 0 -> new RoaringBitmap();
                case 1 -> lists.get(0).clone();
                default -> FastAggregation.or(lists.iterator());
            };
        }
    }
}

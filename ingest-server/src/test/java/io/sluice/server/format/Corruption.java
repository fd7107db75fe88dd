package io.sluice.server.format;

import java.util.Random;

/**
 * Seeded random corruption for the malformed-input tests: bytes flipped at random, then decoded; a
 * decoder must either decode or throw a {@link PayloadException}, never anything else.
 */
public final class Corruption {
    private Corruption() {
    }

    /** Changes 1 to 4 random bytes of {@code bytes} in place (each to a different value). */
    public static void flip(Random random, byte[] bytes) {
        for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
            bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
        }
    }

    /**
     * Decodes {@code record} into a fresh {@link RecordingSink}; returns whether it was rejected. Any other
     * exception fails the test, naming {@code what} (the case and seed).
     */
    public static boolean rejects(PayloadDecoder decoder, byte[] record, String what) {
        try {
            decoder.decode(record, 0, record.length, 0, new RecordingSink());
            return false;
        } catch (PayloadException e) {
            return true;
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": " + e, e);
        }
    }
}

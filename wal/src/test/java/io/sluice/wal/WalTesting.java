package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/** Test helpers: deterministic payloads, reading a WAL back, and damaging files byte by byte. */
final class WalTesting {
    private static final int POSIX_FADV_DONTNEED = 4;
    private static final int O_RDONLY = 0;

    private WalTesting() {
    }

    /** A record as the test remembers it. */
    record Rec(int type, byte[] payload, long endPosition) {
        @Override
        public String toString() {
            return "Rec{type=" + type + ", " + payload.length + " bytes, end " + WalPosition.toString(endPosition) + "}";
        }
    }

    /** What a reader returned: type, payload copy, start and end positions. */
    record Read(int type, byte[] payload, long position, long nextPosition) {
    }

    /** Payload bytes that are never zero, so "last non-zero byte" arithmetic in damage tests is exact. */
    static byte[] nonZeroPayload(SplittableRandom random, int length) {
        byte[] payload = new byte[length];
        for (int i = 0; i < length; i++) {
            payload[i] = (byte) (1 + random.nextInt(255));
        }
        return payload;
    }

    static Rec append(Wal wal, int type, byte[] payload) throws IOException {
        long end = wal.append(type, payload, 0, payload.length);
        return new Rec(type, payload, end);
    }

    /** Appends {@code count} records of {@code length} non-zero bytes, types cycling 1..7. */
    static List<Rec> appendMany(Wal wal, SplittableRandom random, int count, int length) throws IOException {
        List<Rec> written = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            written.add(append(wal, 1 + i % 7, nonZeroPayload(random, length)));
        }
        return written;
    }

    /** Everything a fresh reader from the first segment returns, copying payloads. */
    static List<Read> readAll(Path directory) throws IOException {
        try (WalReader reader = WalReader.openFirst(directory)) {
            List<Read> reads = drain(reader);
            assertThat(reader.corruption()).as("reader found damage in %s", directory).isNull();
            return reads;
        }
    }

    static List<Read> drain(WalReader reader) {
        List<Read> reads = new ArrayList<>();
        while (reader.next()) {
            byte[] copy = reader.mapping().asSlice(reader.payloadOffset(), reader.payloadLength())
                    .toArray(ValueLayout.JAVA_BYTE);
            reads.add(new Read(reader.type(), copy, reader.position(), reader.nextPosition()));
        }
        return reads;
    }

    /** Asserts the reads are exactly the records, in order (type, bytes and end position). */
    static void assertSameRecords(List<Read> reads, List<Rec> expected, Object seed) {
        assertThat(reads).as("record count (seed %s)", seed).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            Rec want = expected.get(i);
            Read got = reads.get(i);
            assertThat(got.type()).as("type of record %d (seed %s)", i, seed).isEqualTo(want.type());
            assertThat(got.nextPosition()).as("end of record %d (seed %s)", i, seed).isEqualTo(want.endPosition());
            if (!Arrays.equals(got.payload(), want.payload())) {
                throw new AssertionError("payload of record " + i + " differs (seed " + seed + "): "
                        + got.payload().length + " bytes read, " + want.payload().length + " written");
            }
        }
    }

    static Path segmentFile(Path directory, int index) {
        return SegmentDescriptor.path(directory, index);
    }

    /** Copies every file of a WAL directory (flat) to a new directory. */
    static Path copyDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
        return to;
    }

    static void truncate(Path file, long sizeBytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(sizeBytes);
        }
    }

    static void flipBit(Path file, long offset, int bit) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(offset);
            int b = raf.read();
            raf.seek(offset);
            raf.write(b ^ (1 << bit));
        }
    }

    static void writeIntLe(Path file, long offset, int value) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(buffer, offset);
        }
    }

    static void zeroRange(Path file, long from, long to) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate((int) (to - from)), from);
        }
    }

    static byte[] bytes(Path file) throws IOException {
        return Files.readAllBytes(file);
    }

    /** One past the last non-zero byte of {@code data} in [from, to), or {@code from}. */
    static long endOfData(byte[] data, long from, long to) {
        for (long i = Math.min(to, data.length) - 1; i >= from; i--) {
            if (data[(int) i] != 0) {
                return i + 1;
            }
        }
        return from;
    }

    /** Whether {@link #residentBytes} works here and readers can release pages (Linux with madvise). */
    static boolean canMeasureResidency() {
        return Files.isReadable(Path.of("/proc/self/smaps")) && PageAdvice.isAvailable();
    }

    /** The Rss of the mapping that contains {@code address}, from /proc/self/smaps. */
    static long residentBytes(long address) throws IOException {
        return smapsKiB(address, "Rss:") * 1024;
    }

    /** A "Name: N kB" field of the mapping that contains {@code address}, from /proc/self/smaps. */
    static long smapsKiB(long address, String field) throws IOException {
        return Long.parseLong(smapsLine(address, field).replaceAll("[^0-9]", ""));
    }

    /**
     * The line of /proc/self/smaps that starts with {@code field} ("Rss:", "VmFlags:") in the block of
     * the mapping that contains {@code address}.
     */
    static String smapsLine(long address, String field) throws IOException {
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && isHexDigits(line, 0, dash)) {
                long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                inside = address >= start && address < end;
            } else if (inside && line.startsWith(field)) {
                return line;
            }
        }
        throw new IllegalStateException("no " + field + " for a mapping at " + Long.toHexString(address));
    }

    /** Drops the file's (clean) pages from the page cache: {@code posix_fadvise(POSIX_FADV_DONTNEED)}. */
    static void evictFromPageCache(Path file) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle open = linker.downcallHandle(linker.defaultLookup().find("open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        MethodHandle fadvise = linker.downcallHandle(linker.defaultLookup().find("posix_fadvise").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_INT));
        MethodHandle close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) open.invokeExact(arena.allocateFrom(file.toString()), O_RDONLY);
            assertThat(fd).as("open " + file).isNotNegative();
            int result = (int) fadvise.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
            int closed = (int) close.invokeExact(fd);
            assertThat(result).isZero();
            assertThat(closed).isZero();
        }
    }

    private static boolean isHexDigits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }
}

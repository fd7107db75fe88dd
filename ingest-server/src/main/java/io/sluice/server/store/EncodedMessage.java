package io.sluice.server.store;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A gRPC message already encoded (by {@link SeriesResponseEncoder}): a slice of a byte array that
 * {@link #MARSHALLER} hands to gRPC as a {@link Drainable} {@link KnownLength} stream, so grpc-java
 * copies the bytes once, straight into its pooled Netty buffers, and parses nothing. Server side
 * only: {@link Marshaller#parse} is not supported (clients use the protobuf marshaller of the same
 * wire format). Not thread-safe: owned by one encoder.
 */
final class EncodedMessage {
    static final MethodDescriptor.Marshaller<EncodedMessage> MARSHALLER = new Marshaller();

    private byte[] bytes;
    private int offset;
    private int length;
    private boolean drained;

    void wrap(byte[] array, int from, int size) {
        bytes = array;
        offset = from;
        length = size;
        drained = false;
    }

    /** Whether gRPC has read the message since it was wrapped. */
    boolean drained() {
        return drained;
    }

    int length() {
        return length;
    }

    private static final class Marshaller implements MethodDescriptor.Marshaller<EncodedMessage> {
        @Override
        public InputStream stream(EncodedMessage value) {
            return new Stream(value);
        }

        @Override
        public EncodedMessage parse(InputStream stream) {
            throw new UnsupportedOperationException("an encoded message is sent, never parsed");
        }
    }

    /** The message's bytes, read once. */
    private static final class Stream extends InputStream implements Drainable, KnownLength {
        private final EncodedMessage message;
        private final byte[] bytes; // the array as wrapped now: a new message may wrap another
        private int at;
        private final int end;

        Stream(EncodedMessage message) {
            this.message = message;
            this.bytes = message.bytes;
            this.at = message.offset;
            this.end = message.offset + message.length;
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            int n = end - at;
            target.write(bytes, at, n);
            at = end;
            message.drained = true;
            return n;
        }

        @Override
        public int available() {
            return end - at;
        }

        @Override
        public int read() {
            if (at == end) {
                message.drained = true;
                return -1;
            }
            return bytes[at++] & 0xFF;
        }

        @Override
        public int read(byte[] into, int off, int len) {
            if (at == end) {
                message.drained = true;
                return -1;
            }
            int n = Math.min(len, end - at);
            System.arraycopy(bytes, at, into, off, n);
            at += n;
            if (at == end) {
                message.drained = true;
            }
            return n;
        }
    }
}

package io.sluice.server.query;

import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;

import io.airlift.compress.v3.MalformedInputException;
import io.airlift.compress.v3.snappy.SnappyJavaDecompressor;
import io.sluice.core.index.Matcher;
import io.sluice.promql.labels.RegexLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.ProtoWire;
import io.sluice.server.format.WireReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes a remote-read request body: a snappy block (not framed) holding a protobuf
 * {@code prometheus.ReadRequest} (prompb/remote.proto, types.proto):
 * <pre>
 * ReadRequest  { repeated Query queries = 1; repeated ResponseType accepted_response_types = 2; }
 * Query        { int64 start_timestamp_ms = 1; int64 end_timestamp_ms = 2;
 *                repeated LabelMatcher matchers = 3; ReadHints hints = 4 (ignored); }
 * LabelMatcher { Type type = 1 (EQ 0, NEQ 1, RE 2, NRE 3); string name = 2; string value = 3; }
 * </pre>
 * Unknown fields are skipped; {@code accepted_response_types} may come packed or not. The response
 * type is the first listed one Sluice knows (SAMPLES 0, STREAMED_XOR_CHUNKS 1), SAMPLES when none is
 * listed. Anything malformed is a 400 ({@link ApiError}). Hand-written over the remote-write
 * decoder's {@link WireReader} and {@link ProtoWire} primitives; one instance per request.
 */
final class ReadRequestDecoder {
    /** Largest uncompressed request accepted: requests are a few matchers per query. */
    static final int MAX_UNCOMPRESSED_BYTES = 16 << 20;
    static final int SAMPLES = 0;
    static final int STREAMED_XOR_CHUNKS = 1;

    /** One query of the request; {@code [startMs, endMs]} inclusive. */
    record ReadQuery(long startMs, long endMs, Matcher[] matchers) {
    }

    /** The decoded request. */
    record ReadRequest(List<ReadQuery> queries, int responseType) {
    }

    private final WireReader in = new WireReader();

    ReadRequest decode(byte[] body, int length) throws ApiError {
        try {
            byte[] raw = decompress(body, length);
            in.wrap(raw, 0, raw.length, "ReadRequest");
            return request();
        } catch (PayloadException e) {
            throw ApiError.badData("malformed remote-read request: " + e.getMessage());
        }
    }

    private byte[] decompress(byte[] body, int length) throws PayloadException, ApiError {
        in.wrap(body, 0, length, "snappy block");
        long declared = in.readVarint("snappy preamble");
        if (declared < 0 || declared > MAX_UNCOMPRESSED_BYTES) {
            throw ApiError.badData("malformed remote-read request: snappy block declares "
                    + Long.toUnsignedString(declared) + " bytes, more than " + MAX_UNCOMPRESSED_BYTES);
        }
        byte[] raw = new byte[(int) declared];
        try {
            int actual = new SnappyJavaDecompressor().decompress(body, 0, length, raw, 0, raw.length);
            if (actual != raw.length) {
                throw ApiError.badData("malformed remote-read request: snappy block declares " + raw.length
                        + " bytes but holds " + actual);
            }
        } catch (MalformedInputException e) {
            throw ApiError.badData("malformed remote-read request: snappy: " + e.getMessage());
        }
        return raw;
    }

    private ReadRequest request() throws PayloadException, ApiError {
        List<ReadQuery> queries = new ArrayList<>();
        List<Long> accepted = new ArrayList<>();
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = ProtoWire.readTag(in, "ReadRequest");
            int field = ProtoWire.fieldNumber(tag);
            if (field == 1) {
                ProtoWire.expectWireType(in, tag, LEN, tagPos, "ReadRequest.queries");
                int old = in.pushLimit(in.readLength("ReadRequest.queries"));
                queries.add(query());
                in.popLimit(old);
            } else if (field == 2 && ProtoWire.wireType(tag) == LEN) { // packed
                int old = in.pushLimit(in.readLength("ReadRequest.accepted_response_types"));
                while (in.hasRemaining()) {
                    accepted.add(in.readVarint("ReadRequest.accepted_response_types"));
                }
                in.popLimit(old);
            } else if (field == 2) {
                ProtoWire.expectWireType(in, tag, VARINT, tagPos, "ReadRequest.accepted_response_types");
                accepted.add(in.readVarint("ReadRequest.accepted_response_types"));
            } else {
                ProtoWire.skipField(in, tag, tagPos, "ReadRequest");
            }
        }
        return new ReadRequest(queries, responseType(accepted));
    }

    private static int responseType(List<Long> accepted) throws ApiError {
        if (accepted.isEmpty()) {
            return SAMPLES;
        }
        for (long type : accepted) {
            if (type == SAMPLES || type == STREAMED_XOR_CHUNKS) {
                return (int) type;
            }
        }
        throw ApiError.badData("none of the accepted response types " + accepted + " is supported: Sluice answers "
                + "SAMPLES (0) and STREAMED_XOR_CHUNKS (1)");
    }

    private ReadQuery query() throws PayloadException, ApiError {
        long start = 0;
        long end = 0;
        List<Matcher> matchers = new ArrayList<>();
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = ProtoWire.readTag(in, "Query");
            switch (ProtoWire.fieldNumber(tag)) {
                case 1 -> {
                    ProtoWire.expectWireType(in, tag, VARINT, tagPos, "Query.start_timestamp_ms");
                    start = in.readVarint("Query.start_timestamp_ms");
                }
                case 2 -> {
                    ProtoWire.expectWireType(in, tag, VARINT, tagPos, "Query.end_timestamp_ms");
                    end = in.readVarint("Query.end_timestamp_ms");
                }
                case 3 -> {
                    ProtoWire.expectWireType(in, tag, LEN, tagPos, "Query.matchers");
                    int old = in.pushLimit(in.readLength("Query.matchers"));
                    matchers.add(matcher());
                    in.popLimit(old);
                }
                default -> ProtoWire.skipField(in, tag, tagPos, "Query");
            }
        }
        return new ReadQuery(start, end, matchers.toArray(new Matcher[0]));
    }

    private Matcher matcher() throws PayloadException, ApiError {
        long type = 0;
        String name = "";
        String value = "";
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = ProtoWire.readTag(in, "LabelMatcher");
            switch (ProtoWire.fieldNumber(tag)) {
                case 1 -> {
                    ProtoWire.expectWireType(in, tag, VARINT, tagPos, "LabelMatcher.type");
                    type = in.readVarint("LabelMatcher.type");
                }
                case 2 -> {
                    ProtoWire.expectWireType(in, tag, LEN, tagPos, "LabelMatcher.name");
                    name = string("LabelMatcher.name");
                }
                case 3 -> {
                    ProtoWire.expectWireType(in, tag, LEN, tagPos, "LabelMatcher.value");
                    value = string("LabelMatcher.value");
                }
                default -> ProtoWire.skipField(in, tag, tagPos, "LabelMatcher");
            }
        }
        if (type < 0 || type > 3) {
            throw ApiError.badData("malformed remote-read request: unknown matcher type " + type);
        }
        try {
            Matcher.Type matcherType = Matcher.Type.values()[(int) type];
            if (matcherType == Matcher.Type.RE || matcherType == Matcher.Type.NRE) {
                RegexLimits.check(name, value);
            }
            return Matcher.of(matcherType, name, value);
        } catch (IllegalArgumentException e) {
            throw ApiError.badData("remote-read request: matcher " + name + ": " + e.getMessage());
        }
    }

    private String string(String what) throws PayloadException {
        int len = in.readLength(what);
        String s = new String(in.buffer(), in.position(), len, StandardCharsets.UTF_8);
        in.skip(len, what);
        return s;
    }
}

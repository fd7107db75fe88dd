#!/usr/bin/env python3
"""Counts what Prometheus' remote_read would get from Sluice: POSTs one remote-read query selecting
every series ({__name__=~".+"}, all time) to URL/api/v1/read and prints "SERIES SAMPLES".

It speaks the protocol as Prometheus does (docs/format/remote-read.md): a snappy block of a protobuf
ReadRequest in, a snappy block of a ReadResponse (SAMPLES) out. Standard library only, so it runs
where the image is smoke-tested: protobuf is written and read by hand, the request is a snappy block
of literals (valid for any decoder), and the answer is decompressed by a small block decoder.
Usage: remote-read.py URL      (build-local.sh runs it against the container)
"""
import struct
import sys
import urllib.request


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, wire_type, payload):
    """One protobuf field: varint payloads are ints, length-delimited ones bytes."""
    key = varint(number << 3 | wire_type)
    return key + (varint(payload) if wire_type == 0 else varint(len(payload)) + payload)


def read_request(start_ms, end_ms):
    matcher = field(1, 0, 2) + field(2, 2, b"__name__") + field(3, 2, b".+")  # RE
    query = field(1, 0, start_ms) + field(2, 0, end_ms) + field(3, 2, matcher)
    return field(1, 2, query)


def snappy_literals(data):
    """A valid snappy block that stores data as literals of at most 65536 bytes each."""
    out = bytearray(varint(len(data)))
    for i in range(0, len(data), 65536):
        chunk = data[i:i + 65536]
        n = len(chunk) - 1
        if n < 60:
            out.append(n << 2)
        elif n < 256:
            out += bytes([60 << 2, n])
        else:
            out += bytes([61 << 2]) + n.to_bytes(2, "little")
        out += chunk
    return bytes(out)


def snappy_decode(block):
    length, pos = read_varint(block, 0)
    out = bytearray()
    while pos < len(block):
        tag = block[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal
            n = tag >> 2
            if n >= 60:
                extra = n - 59
                n = int.from_bytes(block[pos:pos + extra], "little")
                pos += extra
            n += 1
            out += block[pos:pos + n]
            pos += n
            continue
        if kind == 1:
            n, offset = ((tag >> 2) & 7) + 4, (tag >> 5) << 8 | block[pos]
            pos += 1
        elif kind == 2:
            n, offset = (tag >> 2) + 1, int.from_bytes(block[pos:pos + 2], "little")
            pos += 2
        else:
            n, offset = (tag >> 2) + 1, int.from_bytes(block[pos:pos + 4], "little")
            pos += 4
        if offset == 0 or offset > len(out):
            raise ValueError(f"snappy copy offset {offset} outside the {len(out)} bytes decoded")
        for _ in range(n):  # byte by byte: a copy may overlap what it writes
            out.append(out[-offset])
    if len(out) != length:
        raise ValueError(f"snappy block decodes to {len(out)} bytes, its header says {length}")
    return bytes(out)


def read_varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(message):
    """(number, wire type, value) of each field; length-delimited values as bytes."""
    pos = 0
    while pos < len(message):
        key, pos = read_varint(message, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, pos = read_varint(message, pos)
        elif wire_type == 1:
            value, pos = struct.unpack_from("<d", message, pos)[0], pos + 8
        elif wire_type == 2:
            n, pos = read_varint(message, pos)
            value, pos = message[pos:pos + n], pos + n
        elif wire_type == 5:
            value, pos = message[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unexpected wire type {wire_type}")
        yield number, wire_type, value


def count(response):
    """Series and samples in a ReadResponse: results(1) -> timeseries(1) -> samples(2)."""
    series = samples = 0
    for number, _, result in fields(response):
        if number != 1:
            continue
        for ts_number, _, timeseries in fields(result):
            if ts_number != 1:
                continue
            series += 1
            samples += sum(1 for n, _, _ in fields(timeseries) if n == 2)
    return series, samples


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    body = snappy_literals(read_request(0, 2 ** 62))
    request = urllib.request.Request(argv[1].rstrip("/") + "/api/v1/read", data=body, method="POST", headers={
        "Content-Encoding": "snappy", "Content-Type": "application/x-protobuf",
        "X-Prometheus-Remote-Read-Version": "0.1.0"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            series, samples = count(snappy_decode(reply.read()))
    except OSError as e:  # HTTPError, URLError, timeouts
        print(f"remote read from {argv[1]} failed: {e}", file=sys.stderr)
        return 1
    print(series, samples)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

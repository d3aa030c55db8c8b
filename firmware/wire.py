"""The board link's wire format (firmware/PROTOCOL.md): one source for both sides.

Imported by the firmware on the Pico (MicroPython) and by the host (CPython), so
it keeps to the MicroPython subset: no dataclasses, no typing imports, no
variable annotations, only bytes/bytearray arithmetic. Frames are plain tuples
``(version, seq, type, payload)``.
"""

PROTOCOL_VERSION = 1
SYNC = 0x7E
HEADER = 5  # SYNC, VERSION, LEN, SEQ, TYPE
OVERHEAD = HEADER + 2  # the header and the CRC-16
PAYLOAD_MAX = 64
MAX_SENSORS = 128
EVENTS_PER_FRAME = 32

# host -> board
IDENTIFY = 0x01
SNAPSHOT_REQ = 0x02
PING = 0x03
ACK = 0x04
# board -> host
IDENT = 0x81
SNAPSHOT = 0x82
PONG = 0x83
EVENTS = 0x84
HEARTBEAT = 0x85
NOTICE = 0x86

TYPE_NAMES = {
    IDENTIFY: "IDENTIFY",
    SNAPSHOT_REQ: "SNAPSHOT_REQ",
    PING: "PING",
    ACK: "ACK",
    IDENT: "IDENT",
    SNAPSHOT: "SNAPSHOT",
    PONG: "PONG",
    EVENTS: "EVENTS",
    HEARTBEAT: "HEARTBEAT",
    NOTICE: "NOTICE",
}

NOTICE_UNKNOWN_TYPE = 1
NOTICE_MALFORMED = 2
NOTICE_OVERFLOW = 3
NOTICE_FRAMES_DROPPED = 4  # the output was full: whole frames dropped, their SEQs skipped


def frame_size(frame: bytes | bytearray, at: int = 0) -> int:
    """Bytes in the well-formed frame that starts at ``frame[at]``: OVERHEAD plus its LEN."""
    return OVERHEAD + frame[at + 2]


class WireError(ValueError):
    """A payload that does not match its message type (size or content)."""


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def crc32(data: bytes) -> int:
    """CRC-32 as in zlib (reflected poly 0xEDB88320, init and final xor 0xFFFFFFFF)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            if crc & 1:
                crc = (crc >> 1) ^ 0xEDB88320
            else:
                crc >>= 1
    return crc ^ 0xFFFFFFFF


def u16(value: int) -> bytes:
    """Two bytes, big-endian."""
    return bytes(((value >> 8) & 0xFF, value & 0xFF))


def u32(value: int) -> bytes:
    """Four bytes, big-endian."""
    return bytes(((value >> 24) & 0xFF, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF))


def get_u16(data: bytes | bytearray, at: int) -> int:
    """The big-endian u16 at ``at``."""
    return (data[at] << 8) | data[at + 1]


def get_u32(data: bytes | bytearray, at: int) -> int:
    """The big-endian u32 at ``at``."""
    return (data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3]


def encode_frame(
    seq: int, mtype: int, payload: bytes = b"", version: int = PROTOCOL_VERSION
) -> bytes:
    """One complete frame.

    Raises:
        WireError: the payload is longer than PAYLOAD_MAX.
    """
    if len(payload) > PAYLOAD_MAX:
        raise WireError("payload of %d bytes, at most %d allowed" % (len(payload), PAYLOAD_MAX))
    body = bytes((version & 0xFF, len(payload), seq & 0xFF, mtype & 0xFF)) + bytes(payload)
    return bytes((SYNC,)) + body + u16(crc16(body))


class Decoder:
    """Turns a byte stream into frames, resynchronising on garbage.

    Counters: ``bytes_invalid`` (bytes that were not part of a good frame),
    ``bad_frames`` (candidates dropped for length or CRC), ``crc_failures`` (those
    dropped for their CRC), ``frames`` (good ones).
    """

    def __init__(self) -> None:
        self.buf = bytearray()
        self.bytes_invalid = 0
        self.bad_frames = 0
        self.crc_failures = 0
        self.frames = 0

    def feed(self, data: bytes) -> list[tuple[int, int, int, bytes]]:
        """Add received bytes; return the complete good frames, oldest first."""
        self.buf.extend(data)
        out = []
        buf = self.buf
        start = 0
        n = len(buf)
        while start < n:
            if buf[start] != SYNC:
                start += 1
                self.bytes_invalid += 1
                continue
            if n - start < 3:
                break
            length = buf[start + 2]
            if length > PAYLOAD_MAX:
                self.bad_frames += 1
                self.bytes_invalid += 1
                start += 1
                continue
            end = start + OVERHEAD + length
            if end > n:
                # Incomplete. If a good frame already starts further on, this
                # candidate's length byte was garbage: drop it now instead of
                # waiting for bytes that will only prove it wrong.
                later = self._good_after(start + 1)
                if later < 0:
                    break
                self.bad_frames += 1
                self.bytes_invalid += later - start
                start = later
                continue
            body = bytes(buf[start + 1 : end - 2])
            if crc16(body) != get_u16(buf, end - 2):
                self.bad_frames += 1
                self.crc_failures += 1
                self.bytes_invalid += 1
                start += 1
                continue
            out.append((body[0], body[2], body[3], body[4:]))
            self.frames += 1
            start = end
        if start:
            self.buf = buf[start:]
        return out

    def _good_after(self, at: int) -> int:
        """Index of the first complete good frame starting at or after ``at``, or -1."""
        buf = self.buf
        n = len(buf)
        while at + OVERHEAD <= n:
            if buf[at] == SYNC:
                length = buf[at + 2]
                end = at + OVERHEAD + length
                if length <= PAYLOAD_MAX and end <= n:
                    if crc16(bytes(buf[at + 1 : end - 2])) == get_u16(buf, end - 2):
                        return at
            at += 1
        return -1

    def pending(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self.buf)


# --- payloads ---------------------------------------------------------------


def pack_bitmap(states: bytes | bytearray) -> bytes:
    """Sensor states (one 0/1 byte each) as a bitmap, LSB first."""
    out = bytearray((len(states) + 7) // 8)
    for i in range(len(states)):
        if states[i]:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def unpack_bitmap(bitmap: bytes, sensors: int) -> bytearray:
    """The 0/1 states of ``sensors`` sensors from a bitmap."""
    out = bytearray(sensors)
    for i in range(sensors):
        if bitmap[i >> 3] & (1 << (i & 7)):
            out[i] = 1
    return out


def state_hash(states: bytes | bytearray) -> int:
    """CRC-32 of the sensor count byte followed by the bitmap: the board state's fingerprint."""
    return crc32(bytes((len(states) & 0xFF,)) + pack_bitmap(states))


def encode_identify(version: int = PROTOCOL_VERSION) -> bytes:
    """IDENTIFY payload."""
    return bytes((version,))


def encode_ack(boot: int, seq: int) -> bytes:
    """ACK payload."""
    return u16(boot) + u32(seq)


def decode_ack(payload: bytes) -> tuple[int, int]:
    """(boot, seq) from an ACK payload.

    Raises:
        WireError: wrong size.
    """
    _size(payload, 6, "ACK")
    return get_u16(payload, 0), get_u32(payload, 2)


def encode_nonce(nonce: int) -> bytes:
    """PING / PONG payload."""
    return u32(nonce)


def decode_nonce(payload: bytes) -> int:
    """The nonce of a PING or PONG.

    Raises:
        WireError: wrong size.
    """
    _size(payload, 4, "PING/PONG")
    return get_u32(payload, 0)


def encode_ident(
    sensors: int, boot: int, scan_hz: int, firmware: str, version: int = PROTOCOL_VERSION
) -> bytes:
    """IDENT payload."""
    text = firmware.encode()[: PAYLOAD_MAX - 6]
    return bytes((version, sensors)) + u16(boot) + u16(scan_hz) + text


def decode_ident(payload: bytes) -> tuple[int, int, int, int, str]:
    """(protocol, sensors, boot, scan_hz, firmware) from an IDENT payload.

    Raises:
        WireError: too short or a sensor count over 128.
    """
    if len(payload) < 6:
        raise WireError("IDENT payload of %d bytes, expected at least 6" % len(payload))
    sensors = payload[1]
    if not 1 <= sensors <= MAX_SENSORS:
        raise WireError("IDENT names %d sensors, expected 1..%d" % (sensors, MAX_SENSORS))
    text = bytes(payload[6:]).decode("ascii", "replace") if len(payload) > 6 else ""
    return payload[0], sensors, get_u16(payload, 2), get_u16(payload, 4), text


def encode_snapshot(boot: int, seq: int, oldest: int, states: bytes | bytearray) -> bytes:
    """SNAPSHOT payload: the 0/1 states as of event ``seq``; ``oldest`` is the oldest event kept."""
    return (
        u16(boot)
        + u32(seq)
        + u32(oldest)
        + bytes((len(states),))
        + pack_bitmap(states)
        + u32(state_hash(states))
    )


def decode_snapshot(payload: bytes) -> tuple[int, int, int, bytearray]:
    """(boot, seq, oldest, states) from a SNAPSHOT payload.

    Raises:
        WireError: wrong size, sensor count out of range, or the hash does not match.
    """
    if len(payload) < 11:
        raise WireError("SNAPSHOT payload of %d bytes, expected at least 11" % len(payload))
    sensors = payload[10]
    if not 1 <= sensors <= MAX_SENSORS:
        raise WireError("SNAPSHOT names %d sensors, expected 1..%d" % (sensors, MAX_SENSORS))
    nbytes = (sensors + 7) // 8
    _size(payload, 11 + nbytes + 4, "SNAPSHOT")
    states = unpack_bitmap(payload[11 : 11 + nbytes], sensors)
    got = get_u32(payload, 11 + nbytes)
    want = state_hash(states)
    if got != want:
        raise WireError("SNAPSHOT hash 0x%08x does not match its bitmap (0x%08x)" % (got, want))
    return get_u16(payload, 0), get_u32(payload, 2), get_u32(payload, 6), states


def event_byte(sensor: int, occupied: int) -> int:
    """One event as the EVENTS payload carries it: the sensor, its top bit occupied.

    Raises:
        WireError: a sensor index over 127.
    """
    if not 0 <= sensor < MAX_SENSORS:
        raise WireError("sensor %d out of range 0..%d" % (sensor, MAX_SENSORS - 1))
    return sensor | (0x80 if occupied else 0)


def events_payload(boot: int, first_seq: int, encoded: bytes | bytearray) -> bytes:
    """EVENTS payload of events already written as :func:`event_byte` (bytes).

    Raises:
        WireError: no events, or more than ``EVENTS_PER_FRAME``.
    """
    if not 1 <= len(encoded) <= EVENTS_PER_FRAME:
        raise WireError("%d events in one frame, expected 1..%d" % (len(encoded), EVENTS_PER_FRAME))
    return u16(boot) + u32(first_seq) + bytes(encoded)


def encode_events(boot: int, first_seq: int, events: list[tuple[int, int]]) -> bytes:
    """EVENTS payload; ``events`` is a list of (sensor, occupied).

    Raises:
        WireError: no events, too many, or a sensor index over 127.
    """
    encoded = bytearray()
    for sensor, occupied in events:
        encoded.append(event_byte(sensor, occupied))
    return events_payload(boot, first_seq, encoded)


def decode_events(payload: bytes) -> tuple[int, int, list[tuple[int, int]]]:
    """(boot, first_seq, [(sensor, occupied), ...]) from an EVENTS payload.

    Raises:
        WireError: no events or more than 32.
    """
    count = len(payload) - 6
    if not 1 <= count <= EVENTS_PER_FRAME:
        raise WireError(
            "EVENTS payload of %d bytes, expected 7..%d" % (len(payload), 6 + EVENTS_PER_FRAME)
        )
    events = [(b & 0x7F, 1 if b & 0x80 else 0) for b in payload[6:]]
    return get_u16(payload, 0), get_u32(payload, 2), events


def encode_heartbeat(boot: int, last_seq: int, oldest: int, hash_: int) -> bytes:
    """HEARTBEAT payload."""
    return u16(boot) + u32(last_seq) + u32(oldest) + u32(hash_)


def decode_heartbeat(payload: bytes) -> tuple[int, int, int, int]:
    """(boot, last_seq, oldest_kept, hash) from a HEARTBEAT payload.

    Raises:
        WireError: wrong size.
    """
    _size(payload, 14, "HEARTBEAT")
    return get_u16(payload, 0), get_u32(payload, 2), get_u32(payload, 6), get_u32(payload, 10)


def encode_notice(code: int, text: str) -> bytes:
    """NOTICE payload."""
    return bytes((code,)) + text.encode()[: PAYLOAD_MAX - 1]


def decode_notice(payload: bytes) -> tuple[int, str]:
    """(code, text) from a NOTICE payload.

    Raises:
        WireError: empty payload.
    """
    if not payload:
        raise WireError("empty NOTICE payload")
    return payload[0], bytes(payload[1:]).decode("ascii", "replace")


def _size(payload: bytes, want: int, name: str) -> None:
    if len(payload) != want:
        raise WireError("%s payload of %d bytes, expected %d" % (name, len(payload), want))

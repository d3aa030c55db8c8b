"""Scripted runs of the firmware core whose every byte is printed: one transcript, two interpreters.

Runs unchanged on CPython (``python tests/firmware/transcript.py``) and on
MicroPython (``node tools/micropython/run.mjs --lib firmware
tests/firmware/transcript.py``), so it keeps to the firmware's MicroPython
subset: no typing imports, variable annotations, f-strings or % formatting.
``test_micropython_wasm.py`` runs it under both and asserts the outputs are
byte-identical. Each scenario drives a real ``firmware.core.Firmware`` with
scripted sensor states, a hand-driven millisecond clock and host frames.

Output lines, ``<scenario> <ms> <what> ...``:

* ``tx <hex>``: bytes the firmware wrote (with a port FIFO: bytes the host took);
* ``rx <hex>``: bytes the host sent it;
* ``end key=value ...``: its counters and state when the scenario ends;
* ``crc``/``vector`` lines: ``firmware/test_vectors.json`` encoded and decoded.

Arguments, if any, name the scenarios to run (default: all).
"""

import sys

from firmware import wire
from firmware.compat import ticks_add
from firmware.core import Firmware, Outbox

BOOT = 7


def hexstr(data: bytes | bytearray) -> str:
    """Lower-case hex of ``data`` (MicroPython 1.27's ``b"".hex()`` returns ``b""``, not ``""``)."""
    return bytes(data).hex() if len(data) else ""


class Rig:
    """A firmware on a scripted sensor matrix and clock; prints what goes over the wire.

    With ``fifo`` bytes of port FIFO the firmware writes through an ``Outbox``,
    as on the Pico: the outbox is pumped every millisecond into the FIFO, which
    the host empties while ``reading``, and IDENTIFY discards what it queued.
    """

    def __init__(
        self, name: str, sensors: int, start: int = 0, fifo: int = 0, **options: int
    ) -> None:
        self.name = name
        self.ms = 0
        self.now = start
        self.matrix = bytearray(sensors)
        self.frame_seq = 0
        self.fifo = bytearray()
        self.fifo_size = fifo
        self.reading = True
        self.outbox = Outbox(self.fifo_put, self.fifo_room, 160) if fifo else None
        write = self.outbox.put if self.outbox else self.write
        discard = self.outbox.discard if self.outbox else None
        self.fw = Firmware(
            sensors, self.read, write, self.ticks, boot=BOOT, discard=discard, **options
        )

    def fifo_room(self) -> bool:
        return len(self.fifo) < self.fifo_size

    def fifo_put(self, data: bytearray) -> None:
        self.fifo.extend(data)

    def read(self) -> bytearray:
        return self.matrix

    def ticks(self) -> int:
        return self.now

    def write(self, data: bytes) -> None:
        self.line("tx " + hexstr(data))

    def line(self, text: str) -> None:
        print(self.name + " " + str(self.ms) + " " + text)

    def run(self, ms: int) -> None:
        """Let ``ms`` milliseconds pass, one firmware tick each."""
        for _ in range(ms):
            self.now = ticks_add(self.now, 1)
            self.ms += 1
            self.fw.tick()
            if self.outbox is not None:
                self.outbox.pump()
                if self.reading and self.fifo:
                    self.write(bytes(self.fifo))
                    self.fifo = bytearray()

    def reopen(self) -> None:
        """Another host opens the port and reads: first what the port's FIFO held."""
        self.reading = True
        if self.fifo:
            self.write(bytes(self.fifo))
            self.fifo = bytearray()

    def host(self, data: bytes) -> None:
        """Bytes from the host, as they arrive."""
        self.line("rx " + hexstr(data))
        self.fw.feed(data)

    def send(self, mtype: int, payload: bytes = b"", version: int = wire.PROTOCOL_VERSION) -> None:
        """One well-formed frame from the host."""
        self.frame_seq = (self.frame_seq + 1) & 0xFF
        self.host(wire.encode_frame(self.frame_seq, mtype, payload, version))

    def ack(self, seq: int, boot: int = BOOT) -> None:
        self.send(wire.ACK, wire.encode_ack(boot, seq))

    def set(self, sensors: list[int] | range, value: int) -> None:
        for i in sensors:
            self.matrix[i] = value

    def end(self) -> None:
        fw = self.fw
        dec = fw.decoder
        parts = ["end"]
        for key in sorted(fw.counters):
            parts.append(key + "=" + str(fw.counters[key]))
        parts.append("bytes_invalid=" + str(dec.bytes_invalid))
        parts.append("bad_frames=" + str(dec.bad_frames))
        parts.append("frames=" + str(dec.frames))
        parts.append("last_seq=" + str(fw.last_seq))
        parts.append("oldest=" + str(fw.oldest))
        parts.append("pending=" + hexstr(fw.pending))
        parts.append("hash=" + str(fw.state_hash()))
        self.line(" ".join(parts))


def debounce() -> None:
    """A bounce shorter than the debounce makes no event; steady changes do, resent until acked."""
    rig = Rig("debounce", 12, scan_ms=5, debounce=3, rto_ms=60, rto_max_ms=200)
    rig.run(20)
    rig.set([3], 1)
    rig.run(5)  # one sample only
    rig.set([3], 0)
    rig.run(15)
    rig.set([3], 1)
    rig.run(20)
    rig.set([0, 11], 1)
    rig.set([3], 0)
    rig.run(20)  # three changes in one scan: one EVENTS frame
    rig.run(400)  # resent with backoff 60, 120, 200, 200 ms; heartbeats
    rig.ack(4)
    rig.run(300)
    rig.end()


def garbled() -> None:
    """Garbage, a bad CRC, a length over 64, split and hidden frames, bad versions and payloads."""
    rig = Rig("garbled", 8)
    rig.run(10)
    ping = wire.encode_frame(1, wire.PING, wire.encode_nonce(0x01020304))
    rig.host(b"\x00\xff\x55\x7e\x7e\x01")
    bad_crc = bytearray(ping)
    bad_crc[-1] ^= 0x40
    rig.host(bytes(bad_crc))
    rig.host(b"\x7e\x01\xc8\x02\x03" + ping)  # LEN 200, then a good frame
    frame = wire.encode_frame(2, wire.PING, wire.encode_nonce(0xCAFEF00D))
    rig.host(frame[:4])
    rig.run(3)
    rig.host(frame[4:])
    rig.host(b"\x7e\x01\x03" + wire.encode_frame(3, wire.PING, wire.encode_nonce(5)) + b"\x55")
    rig.send(wire.PING, wire.encode_nonce(6), version=2)  # wrong version: ignored
    rig.send(0x33)  # unknown type: NOTICE 1
    rig.send(wire.ACK, b"\x00")  # malformed: NOTICE 2
    rig.send(wire.PING, b"\x01\x02\x03")  # malformed: NOTICE 2
    rig.send(wire.SNAPSHOT_REQ, b"", version=0)
    rig.run(260)
    rig.end()


def acks() -> None:
    """Partial, foreign, future, non-advancing and complete ACKs."""
    rig = Rig("acks", 16, rto_ms=60, rto_max_ms=200)
    rig.run(10)
    for sensor in (1, 2, 3):
        rig.set([sensor], 1)
        rig.run(12)
    rig.ack(1)  # partial: 2 and 3 stay pending
    rig.ack(3, boot=BOOT - 1)  # another boot: ignored
    rig.ack(9)  # never sent: ignored
    rig.run(100)  # resend of 2..3
    rig.ack(1)  # advances nothing, right after a resend: no storm
    rig.run(70)
    rig.ack(1)  # advances nothing: resend at once
    rig.run(2)
    rig.ack(3)
    rig.run(300)  # heartbeats only
    rig.end()


def resync() -> None:
    """Identify in both versions, overflow past the retained events, snapshot, ping, ack."""
    rig = Rig("resync", 42, retain=4)
    rig.run(5)
    rig.send(wire.IDENTIFY, wire.encode_identify())
    rig.send(wire.IDENTIFY, wire.encode_identify(2), version=2)  # answered with our version
    for sensor in (0, 7, 8, 20, 33, 41):
        rig.set([sensor], 1)
        rig.run(12)
    rig.send(wire.SNAPSHOT_REQ)
    rig.send(wire.PING, wire.encode_nonce(0xDEADBEEF))
    rig.ack(rig.fw.last_seq)
    rig.run(260)
    rig.set([7, 41], 0)
    rig.run(12)
    rig.send(wire.SNAPSHOT_REQ)
    rig.end()


def wrap() -> None:
    """The clock wraps (at 2**30 ms on MicroPython) while changes are pending and resent."""
    rig = Rig("wrap", 8, start=ticks_add(0, -40), rto_ms=60, rto_max_ms=200)
    rig.run(30)
    rig.set([1, 6], 1)
    rig.run(20)  # the wrap happens here
    rig.set([6], 0)
    rig.run(400)
    rig.ack(rig.fw.last_seq)
    rig.run(300)
    rig.end()


def crowd() -> None:
    """128 sensors, many changes at once (several frames, resent 8 a frame), random acks."""
    rig = Rig("crowd", 128, rto_ms=60, rto_max_ms=120, retain=128)
    rig.run(5)
    rig.set(range(0, 128, 3), 1)  # 43 changes in one scan: 32 + 11
    rig.run(70)
    x = 12345
    for _ in range(60):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        rig.matrix[x % 128] ^= 1
        rig.run(6 + (x >> 8) % 9)
        if x & 0x300 == 0:
            rig.ack(rig.fw.oldest - 1 + (x >> 12) % 4)
    rig.ack(rig.fw.last_seq)
    rig.run(260)
    rig.end()


def stall() -> None:
    """The host stops reading: whole frames are dropped and their SEQs skipped; the events are
    kept, and NOTICE 4 says how many frames were dropped once the host reads again."""
    rig = Rig("stall", 16, fifo=64, rto_ms=60, rto_max_ms=200)
    rig.run(10)
    rig.reading = False
    for sensor in range(12):
        rig.set([sensor], 1)
        rig.run(40)
    rig.run(1500)
    rig.reading = True
    rig.run(300)
    rig.ack(rig.fw.last_seq)
    rig.run(300)
    rig.end()


def rehost() -> None:
    """The host stops reading inside a frame and goes; another opens the port and identifies: it
    reads what the FIFO held, the rest of that frame, then the IDENT (the frames queued meanwhile
    are dropped), and the events, kept, come when its ACK asks for them."""
    rig = Rig("rehost", 16, fifo=64, rto_ms=60, rto_max_ms=200)
    rig.run(10)
    rig.reading = False
    for sensor in range(6):
        rig.set([sensor], 1)
        rig.run(40)
    rig.run(400)
    rig.reopen()
    rig.send(wire.IDENTIFY, wire.encode_identify())
    rig.run(5)
    rig.send(wire.SNAPSHOT_REQ)
    rig.run(5)
    rig.ack(0)  # it has recorded no event: the board resends them
    rig.run(300)
    rig.ack(rig.fw.last_seq)
    rig.run(300)
    rig.end()


def decode_payload(mtype: int, payload: bytes) -> object:
    """The fields of a payload, as the host's decoders give them (sensor states as a list)."""
    if mtype == wire.SNAPSHOT:
        boot, seq, oldest, states = wire.decode_snapshot(payload)
        return (boot, seq, oldest, [i for i in range(len(states)) if states[i]])
    decoders = {
        wire.ACK: wire.decode_ack,
        wire.PING: wire.decode_nonce,
        wire.PONG: wire.decode_nonce,
        wire.IDENT: wire.decode_ident,
        wire.EVENTS: wire.decode_events,
        wire.HEARTBEAT: wire.decode_heartbeat,
        wire.NOTICE: wire.decode_notice,
    }
    if mtype in decoders:
        return decoders[mtype](payload)
    return list(payload)


def vectors() -> None:
    """firmware/test_vectors.json: every frame encoded and decoded, the CRC check values."""
    import json

    path = wire.__file__.rsplit("/", 1)[0] + "/test_vectors.json"
    with open(path) as f:
        data = json.load(f)
    rig_line = Rig("vectors", 1).line
    for name in ("crc16_check", "crc32_check"):
        check = data[name]
        crc = wire.crc16 if name == "crc16_check" else wire.crc32
        got = crc(check["data"].encode())
        rig_line("crc " + name + " " + str(got) + " " + ("ok" if got == check["crc"] else "BAD"))
    for vec in data["frames"]:
        payload = bytes.fromhex(vec["payload"])
        frame = wire.encode_frame(vec["seq"], vec["type"], payload, vec["version"])
        same = frame == bytes.fromhex(vec["frame"])
        decoded = wire.Decoder().feed(frame)
        version, seq, mtype, body = decoded[0]
        fields = decode_payload(mtype, bytes(body))
        rig_line(
            "vector "
            + vec["name"].replace(" ", "_")
            + " "
            + ("ok" if same else "BAD")
            + " "
            + hexstr(frame)
            + " "
            + repr((version, seq, mtype, fields))
        )


SCENARIOS = (
    ("debounce", debounce),
    ("garbled", garbled),
    ("acks", acks),
    ("resync", resync),
    ("wrap", wrap),
    ("crowd", crowd),
    ("stall", stall),
    ("rehost", rehost),
    ("vectors", vectors),
)


def main(names: list[str]) -> None:
    for name, scenario in SCENARIOS:
        if not names or name in names:
            scenario()


if __name__ == "__main__":
    main(sys.argv[1:])

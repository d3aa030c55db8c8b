"""The wire format: shared test vectors, CRCs against independent oracles, resync on garbage."""

from __future__ import annotations

import binascii
import json
import random
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import wire
from tests.paths import REPO

VECTORS = json.loads((REPO / "firmware" / "test_vectors.json").read_text())


def occupied(states: bytes | bytearray) -> list[int]:
    return [i for i, s in enumerate(states) if s]


def test_crc_check_values_match_independent_implementations() -> None:
    data = VECTORS["crc16_check"]["data"].encode()
    assert wire.crc16(data) == VECTORS["crc16_check"]["crc"] == binascii.crc_hqx(data, 0xFFFF)
    assert wire.crc32(data) == VECTORS["crc32_check"]["crc"] == zlib.crc32(data)


@given(st.binary(max_size=80))
def test_crcs_agree_with_binascii_and_zlib(data: bytes) -> None:
    assert wire.crc16(data) == binascii.crc_hqx(data, 0xFFFF)
    assert wire.crc32(data) == zlib.crc32(data)


@pytest.mark.parametrize("vec", VECTORS["frames"], ids=lambda v: v["name"])
def test_vector_encodes_byte_for_byte(vec: dict[str, Any]) -> None:
    payload = bytes.fromhex(vec["payload"])
    frame = wire.encode_frame(vec["seq"], vec["type"], payload, vec["version"])
    assert frame.hex() == vec["frame"]


@pytest.mark.parametrize("vec", VECTORS["frames"], ids=lambda v: v["name"])
def test_vector_decodes_to_its_fields(vec: dict[str, Any]) -> None:
    dec = wire.Decoder()
    frames = dec.feed(bytes.fromhex(vec["frame"]))
    assert frames == [(vec["version"], vec["seq"], vec["type"], bytes.fromhex(vec["payload"]))]
    assert dec.bytes_invalid == 0
    payload = frames[0][3]
    f = vec["fields"]
    t = vec["type"]
    if t == wire.IDENTIFY:
        assert payload == wire.encode_identify(f["version"])
    elif t == wire.ACK:
        assert wire.decode_ack(payload) == (f["boot"], f["seq"])
        assert wire.encode_ack(f["boot"], f["seq"]) == payload
    elif t in (wire.PING, wire.PONG):
        assert wire.decode_nonce(payload) == f["nonce"]
    elif t == wire.IDENT:
        assert wire.decode_ident(payload) == (
            f["protocol"],
            f["sensors"],
            f["boot"],
            f["scan_hz"],
            f["firmware"],
        )
        assert (
            wire.encode_ident(f["sensors"], f["boot"], f["scan_hz"], f["firmware"], f["protocol"])
            == payload
        )
    elif t == wire.SNAPSHOT:
        boot, seq, oldest, states = wire.decode_snapshot(payload)
        assert (boot, seq, oldest, occupied(states), len(states)) == (
            f["boot"],
            f["seq"],
            f["oldest"],
            f["occupied"],
            f["sensors"],
        )
        assert wire.encode_snapshot(boot, seq, oldest, states) == payload
    elif t == wire.EVENTS:
        boot, first, events = wire.decode_events(payload)
        assert (boot, first, [list(e) for e in events]) == (f["boot"], f["first_seq"], f["events"])
        assert wire.encode_events(boot, first, events) == payload
    elif t == wire.HEARTBEAT:
        assert wire.decode_heartbeat(payload) == (f["boot"], f["last_seq"], f["oldest"], f["hash"])
        states = bytearray(f["sensors"])
        for i in f["occupied"]:
            states[i] = 1
        assert wire.state_hash(states) == f["hash"]
    elif t == wire.NOTICE:
        assert wire.decode_notice(payload) == (f["code"], f["text"])
    else:
        assert payload == b""


def all_frames() -> bytes:
    return b"".join(bytes.fromhex(v["frame"]) for v in VECTORS["frames"])


def test_decoder_resyncs_after_boot_text_and_a_modem_prober() -> None:
    garbage = (
        b"MicroPython v1.23 on 2024-06-02; Raspberry Pi Pico\r\n>>> AT\r\nATZ\r\n~~\x7e\x01\x40"
    )
    dec = wire.Decoder()
    frames = dec.feed(garbage + all_frames())
    assert len(frames) == len(VECTORS["frames"])
    assert dec.bytes_invalid >= len(garbage) - 3
    assert dec.bad_frames >= 1


def test_decoder_accepts_any_split_of_the_stream() -> None:
    stream = all_frames()
    rng = random.Random(4)
    for _ in range(20):
        dec = wire.Decoder()
        got = []
        at = 0
        while at < len(stream):
            step = rng.randint(1, 9)
            got += dec.feed(stream[at : at + step])
            at += step
        assert len(got) == len(VECTORS["frames"])
        assert dec.pending() == 0


def test_a_corrupted_length_loses_no_following_frame() -> None:
    stream = bytearray(all_frames())
    stream[2] = 60  # first frame claims 60 payload bytes
    frames = wire.Decoder().feed(bytes(stream))
    assert len(frames) == len(VECTORS["frames"]) - 1


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**9))
def test_corrupted_frames_are_never_accepted(seed: int) -> None:
    rng = random.Random(seed)
    frames = [bytes.fromhex(v["frame"]) for v in VECTORS["frames"]]
    sent = set(frames)
    stream = bytearray(b"".join(rng.choice(frames) for _ in range(10)))
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(stream))
        stream[i] ^= rng.randint(1, 255)
    for version, seq, mtype, payload in wire.Decoder().feed(bytes(stream)):
        assert wire.encode_frame(seq, mtype, payload, version) in sent


def test_payload_errors_are_wire_errors() -> None:
    with pytest.raises(wire.WireError, match="ACK payload of 3 bytes, expected 6"):
        wire.decode_ack(b"abc")
    with pytest.raises(wire.WireError, match=r"expected 1\.\.32"):
        wire.encode_events(1, 1, [])
    with pytest.raises(wire.WireError, match="sensor 128 out of range"):
        wire.encode_events(1, 1, [(128, 1)])
    good = wire.encode_snapshot(1, 2, 3, bytearray([1, 0, 1]))
    bad = good[:-1] + bytes([good[-1] ^ 1])
    with pytest.raises(wire.WireError, match="does not match its bitmap"):
        wire.decode_snapshot(bad)
    with pytest.raises(wire.WireError, match="at most 64"):
        wire.encode_frame(1, wire.NOTICE, bytes(65))

"""Test doubles for the displays: a fake I2C bus and models of the OLED controllers' RAM;
:func:`shows`, whether a screen drawn shows some words."""

from __future__ import annotations

import errno
from collections.abc import Iterable, Sequence

from PIL import Image, ImageDraw

from hardware.displays.font import Font

# Commands that take one argument byte on SSD1306/SH1106 (contrast, multiplex, clock...).
ONE_ARG = {0x20, 0x81, 0x8D, 0xA8, 0xD3, 0xD5, 0xD9, 0xDA, 0xDB}


class FakeSMBus:
    """An smbus2-like bus: records writes; only ``present`` addresses answer.

    ``present`` maps a mux channel (None: directly on the bus) to the addresses
    found there; ``muxes`` are the TCA9548A addresses on the bus.
    """

    def __init__(self, present: dict[int | None, set[int]], muxes: Iterable[int] = ()) -> None:
        self.present = present
        self.muxes = set(muxes)
        self.channel: int | None = None
        self.writes: list[tuple[int, int, tuple[int, ...]]] = []
        self.mux_writes: list[tuple[int, int]] = []
        self.closed = False

    def write_byte(self, address: int, value: int) -> None:
        if address not in self.muxes:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.mux_writes.append((address, value))
        self.channel = value.bit_length() - 1 if value else None

    def write_i2c_block_data(self, address: int, register: int, data: Sequence[int]) -> None:
        here = self.present.get(None, set()) | (
            self.present.get(self.channel, set()) if self.channel is not None else set()
        )
        if address not in here:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        if len(data) > 32:
            raise ValueError("SMBus block longer than 32 bytes")
        self.writes.append((address, register, tuple(data)))

    def close(self) -> None:
        self.closed = True


class Ssd1306Ram:
    """The GDDRAM of an SSD1306 in horizontal addressing mode, fed with recorded calls."""

    def __init__(self, width: int = 128, height: int = 64) -> None:
        self.width, self.pages = width, height // 8
        self.ram = [[0] * width for _ in range(self.pages)]
        self.col0, self.col1, self.page0, self.page1 = 0, width - 1, 0, self.pages - 1
        self.col, self.page = 0, 0

    def feed(self, calls: Iterable[tuple[str, tuple[int, ...]]]) -> None:
        for kind, payload in calls:
            if kind == "data":
                for b in payload:
                    self.ram[self.page][self.col] = b
                    self.col += 1
                    if self.col > self.col1:
                        self.col = self.col0
                        self.page = self.page0 if self.page >= self.page1 else self.page + 1
                continue
            i = 0
            while i < len(payload):
                c = payload[i]
                if c == 0x21:
                    self.col0, self.col1 = payload[i + 1], payload[i + 2]
                    self.col = self.col0
                    i += 3
                elif c == 0x22:
                    self.page0, self.page1 = payload[i + 1], payload[i + 2]
                    self.page = self.page0
                    i += 3
                else:
                    i += 2 if c in ONE_ARG else 1

    def image(self) -> Image.Image:
        img = Image.new("1", (self.width, self.pages * 8))
        for p, row in enumerate(self.ram):
            for x, b in enumerate(row):
                for bit in range(8):
                    if b >> bit & 1:
                        img.putpixel((x, p * 8 + bit), 1)
        return img


class Sh1106Ram(Ssd1306Ram):
    """The 132-column RAM of an SH1106 in page addressing mode; shows columns 2..129."""

    OFFSET = 2

    def __init__(self, width: int = 128, height: int = 64) -> None:
        super().__init__(width + 4, height)
        self.shown = width

    def feed(self, calls: Iterable[tuple[str, tuple[int, ...]]]) -> None:
        for kind, payload in calls:
            if kind == "data":
                for b in payload:
                    self.ram[self.page][self.col] = b
                    self.col = min(self.col + 1, self.width - 1)
                continue
            i = 0
            while i < len(payload):
                c = payload[i]
                if 0xB0 <= c <= 0xB7:
                    self.page = c - 0xB0
                elif c <= 0x0F:
                    self.col = (self.col & 0xF0) | c
                elif 0x10 <= c <= 0x1F:
                    self.col = (self.col & 0x0F) | ((c - 0x10) << 4)
                i += 2 if c in ONE_ARG - {0x20} else 1

    def image(self) -> Image.Image:
        full = super().image()
        return full.crop((self.OFFSET, 0, self.OFFSET + self.shown, full.height))


def reference_page_bytes(image: Image.Image) -> list[int]:
    """Page-major bytes of a 1-bit image, computed pixel by pixel (the oracle)."""
    w, h = image.size
    out = [0] * (w * h // 8)
    for y in range(h):
        for x in range(w):
            if image.getpixel((x, y)):
                out[(y // 8) * w + x] |= 1 << (y % 8)
    return out


def shows(image: Image.Image, words: str, font: Font) -> bool:
    """Whether ``image`` shows ``words`` drawn in ``font`` (its exact pixels) anywhere."""
    alone = Image.new("1", (font.width(words), font.height))
    font.draw(ImageDraw.Draw(alone), (0, 0), words)
    want = alone.tobytes()
    return any(
        image.crop((x, y, x + alone.width, y + alone.height)).tobytes() == want
        for y in range(image.height - alone.height + 1)
        for x in range(image.width - alone.width + 1)
    )

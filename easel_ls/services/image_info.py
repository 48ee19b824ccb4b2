"""Pixel dimensions from the first bytes of a PNG, JPEG, GIF, WebP or SVG file.

Only headers are read (no decoding, no image library): PNG's IHDR, GIF's logical screen, JPEG's
first start-of-frame marker, WebP's VP8/VP8L/VP8X chunk, and an SVG root's ``width``/``height``
(else its ``viewBox``), found by a regular expression rather than an XML parser, so an SVG's
entities and external references are never expanded or fetched.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

# Enough for every header above; a JPEG's frame marker follows its EXIF/ICC segments, which
# are at most 64 KB each and rarely more than a few.
HEAD_BYTES = 512 * 1024

_SVG_ROOT = re.compile(rb"<svg\b([^>]*)>", re.IGNORECASE | re.DOTALL)
_SVG_LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$")
_JPEG_NO_FRAME = frozenset({0xC4, 0xC8, 0xCC})  # DHT, JPG, DAC share the SOFn range


@dataclass(frozen=True)
class ImageInfo:
    format: str  # PNG, JPEG, GIF, WebP, SVG
    width: int | None
    height: int | None


def read_head(path: Path, limit: int = HEAD_BYTES) -> bytes:
    with path.open("rb") as handle:
        return handle.read(limit)


def image_info(data: bytes) -> ImageInfo | None:
    """The format and size of an image from its first bytes, or None when they are not one
    of the formats above (or too short to tell)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png(data)
    if data[:6] in (b"GIF87a", b"GIF89a"):
        if len(data) < 10:
            return None
        width, height = struct.unpack("<HH", data[6:10])
        return ImageInfo("GIF", width, height)
    if data.startswith(b"\xff\xd8"):
        return _jpeg(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data)
    if _SVG_ROOT.search(data[:HEAD_BYTES]) is not None:
        return _svg(data)
    return None


def _png(data: bytes) -> ImageInfo | None:
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return ImageInfo("PNG", width, height)


def _jpeg(data: bytes) -> ImageInfo | None:
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in _JPEG_NO_FRAME:
            if pos + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return ImageInfo("JPEG", width, height)
        if marker == 0xDA or length < 2:  # image data starts: no frame header before it
            return None
        pos += 2 + length
    return None


def _webp(data: bytes) -> ImageInfo | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return ImageInfo("WebP", width, height)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return ImageInfo("WebP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return ImageInfo("WebP", width & 0x3FFF, height & 0x3FFF)
    return None


def _svg(data: bytes) -> ImageInfo:
    match = _SVG_ROOT.search(data[:HEAD_BYTES])
    attributes = match.group(1).decode("utf-8", "replace") if match else ""
    width = _svg_length(_attribute(attributes, "width"))
    height = _svg_length(_attribute(attributes, "height"))
    if width is None or height is None:
        box = (_attribute(attributes, "viewBox") or "").replace(",", " ").split()
        try:
            box_width, box_height = float(box[2]), float(box[3])
        except (IndexError, ValueError):
            return ImageInfo("SVG", width, height)
        if width is None and height is None:
            width, height = round(box_width), round(box_height)
        elif width is None and box_height and height is not None:
            width = round(height * box_width / box_height)
        elif height is None and box_width and width is not None:
            height = round(width * box_height / box_width)
    return ImageInfo("SVG", width, height)


def _attribute(attributes: str, name: str) -> str | None:
    found = re.search(rf"(?:^|\s){name}\s*=\s*(\"[^\"]*\"|'[^']*')", attributes)
    return found.group(1)[1:-1] if found else None


def _svg_length(value: str | None) -> int | None:
    """A width or height in pixels (unitless or px); None for %, em and other units."""
    if value is None:
        return None
    match = _SVG_LENGTH.match(value)
    return round(float(match.group(1))) if match else None


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes" if size != 1 else "1 byte"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"

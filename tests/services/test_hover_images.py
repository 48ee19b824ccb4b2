"""The image header reader behind hover previews: pixel sizes of PNG, JPEG, GIF, WebP and SVG
from their first bytes, on real files (media-samples/ are CPython's 16×16 test images) and on
headers built byte by byte for the variants those do not cover."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from easel_ls.services.image_info import ImageInfo, human_size, image_info, read_head

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "views" / "media-samples"


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + b"\x10\x20\x30" * width for _ in range(height)))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("python.jpg", ImageInfo("JPEG", 16, 16)),
        ("python.gif", ImageInfo("GIF", 16, 16)),
        ("python.webp", ImageInfo("WebP", 16, 16)),  # a VP8X file
    ],
)
def test_real_images(name: str, expected: ImageInfo) -> None:
    assert image_info(read_head(SAMPLES / name)) == expected


def test_png_size_comes_from_ihdr() -> None:
    assert image_info(png(1280, 7)) == ImageInfo("PNG", 1280, 7)


def test_jpeg_frame_after_exif_and_fill_bytes() -> None:
    app1 = b"\xff\xe1" + struct.pack(">H", 2 + 300) + b"Exif\x00\x00" + b"\x00" * 294
    sof2 = b"\xff\xff\xc2" + struct.pack(">HBHHB", 11, 8, 480, 640, 1) + b"\x01\x11\x00"
    assert image_info(b"\xff\xd8" + app1 + sof2) == ImageInfo("JPEG", 640, 480)


def test_jpeg_huffman_table_is_not_mistaken_for_a_frame() -> None:
    dht = b"\xff\xc4" + struct.pack(">H", 5) + b"\x00\x01\x02"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, 20, 30, 1) + b"\x01\x11\x00"
    assert image_info(b"\xff\xd8" + dht + sof0) == ImageInfo("JPEG", 30, 20)


def test_truncated_jpeg_has_no_size() -> None:
    assert image_info(b"\xff\xd8\xff\xe0\x00\x10JFIF") is None


def test_webp_lossless_and_lossy() -> None:
    bits = (300 - 1) | ((200 - 1) << 14)
    lossless = b"RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f" + bits.to_bytes(4, "little")
    assert image_info(lossless) == ImageInfo("WebP", 300, 200)
    lossy = (
        b"RIFF\x00\x00\x00\x00WEBPVP8 \x00\x00\x00\x00"
        + b"\x00\x00\x00\x9d\x01\x2a"
        + struct.pack("<HH", 64, 48)
    )
    assert image_info(lossy) == ImageInfo("WebP", 64, 48)


def test_gif87a() -> None:
    assert image_info(b"GIF87a" + struct.pack("<HH", 3, 9) + b"\x00" * 10) == ImageInfo("GIF", 3, 9)


@pytest.mark.parametrize(
    ("svg", "size"),
    [
        ('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="12px">', (24, 12)),
        ("<?xml version='1.0'?>\n<svg viewBox='0 0 1080 1440'>", (1080, 1440)),
        ('<svg width="540" viewBox="0,0,1080,1440">', (540, 720)),
        ('<svg width="100%" height="100%">', (None, None)),
        ('<svg\n  height="50"\n  viewBox="0 0 200 100"\n>', (100, 50)),
    ],
)
def test_svg_size_from_attributes_or_viewbox(svg: str, size: tuple[int, int]) -> None:
    assert image_info(svg.encode()) == ImageInfo("SVG", *size)


def test_svg_entities_are_never_expanded() -> None:
    hostile = (
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY w "99">]>'
        b'<svg width="&w;" height="5" viewBox="0 0 10 5">'
    )
    assert image_info(hostile) == ImageInfo("SVG", 10, 5)


@pytest.mark.parametrize("data", [b"", b"hello", b"\x89PNG\r\n\x1a\n", b"RIFF\x00\x00\x00\x00WEBP"])
def test_not_an_image_or_too_short(data: bytes) -> None:
    assert image_info(data) is None


def test_human_size() -> None:
    assert [human_size(n) for n in (1, 532, 2048, 5 * 1024 * 1024)] == [
        "1 byte",
        "532 bytes",
        "2.0 KB",
        "5.0 MB",
    ]

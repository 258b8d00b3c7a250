"""Debug pictures for an exported set (pillow): a frame with its target outlined and its terms
written on it, the target's mask, and a contact sheet per environment."""
from __future__ import annotations

import io

import numpy as np

VERDICT_COLORS = {"accept": (40, 200, 70), "reject": (230, 50, 40), "gray": (160, 160, 160),
                  "unscored": (80, 140, 230), "pending": (230, 180, 40)}


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def mask_png(mask: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.where(mask, 255, 0).astype(np.uint8), "L").save(buf, format="PNG")
    return buf.getvalue()


def outline(mask: np.ndarray) -> np.ndarray:
    """Mask pixels with a 4-neighbour outside the mask."""
    m = np.asarray(mask, bool)
    inner = m.copy()
    inner[1:, :] &= m[:-1, :]
    inner[:-1, :] &= m[1:, :]
    inner[:, 1:] &= m[:, :-1]
    inner[:, :-1] &= m[:, 1:]
    return m & ~inner


def overlay_jpeg(jpeg: bytes, mask: np.ndarray, record: dict) -> bytes:
    """The phone image with the target outlined and the verdict and each term written on it."""
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(jpeg)) as im:
        img = np.asarray(im.convert("RGB")).copy()
    color = VERDICT_COLORS.get(record["verdict"], (255, 255, 255))
    edge = outline(mask)
    for _ in range(max(1, img.shape[1] // 400)):  # thicker outlines on bigger frames
        img[edge] = (255, 0, 255)
        grown = edge.copy()
        grown[1:, :] |= edge[:-1, :]
        grown[:, 1:] |= edge[:, :-1]
        edge = grown
    canvas = Image.fromarray(img)
    draw = ImageDraw.Draw(canvas)
    size = max(10, img.shape[1] // 60)
    font = _font(size)
    lines = [f"{record['frame_id']}: {record['verdict'].upper()}"]
    for name, term in record["terms"].items() if isinstance(record["terms"], dict) else \
            ((t["name"], t) for t in record["terms"]):
        value = term["value"]
        shown = f"{value:.3g}" if isinstance(value, float) else str(value)
        lines.append(f"{term['outcome']:>7}  {name} = {shown}")
    box_h = (size + 4) * len(lines) + 8
    draw.rectangle([0, 0, img.shape[1], box_h], fill=(0, 0, 0))
    for i, line in enumerate(lines):
        draw.text((6, 4 + i * (size + 4)), line, fill=color if i == 0 else (235, 235, 235), font=font)
    buf = io.BytesIO()
    canvas.save(buf, format="JPEG", quality=88)
    return buf.getvalue()


def contact_sheet(items: list[tuple[bytes, str]], thumb: int = 200, columns: int = 8) -> bytes:
    """A grid of thumbnails, each framed in its verdict's colour."""
    from PIL import Image, ImageOps

    rows = max(1, -(-len(items) // columns))
    sheet = Image.new("RGB", (columns * (thumb + 8), rows * (thumb + 8)), (20, 20, 20))
    for i, (jpeg, verdict) in enumerate(items):
        with Image.open(io.BytesIO(jpeg)) as im:
            tile = ImageOps.pad(im.convert("RGB"), (thumb, thumb), color=(20, 20, 20))
        framed = ImageOps.expand(tile, border=4, fill=VERDICT_COLORS.get(verdict, (255, 255, 255)))
        sheet.paste(framed, ((i % columns) * (thumb + 8), (i // columns) * (thumb + 8)))
    buf = io.BytesIO()
    sheet.save(buf, format="JPEG", quality=85)
    return buf.getvalue()

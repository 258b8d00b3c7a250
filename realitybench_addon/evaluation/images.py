"""The image as sent: resized or re-encoded per provider, only where it would be refused or shrunk.

Limits (what each API refuses, or downscales on its side):
  anthropic  5 MiB per image, counted on the base64 text; long side at most 1568 px (the API
             downscales past it, so a larger image only costs upload time)
  openai     20 MB per image
  gemini     20 MB for the whole inline request: the image's base64 text plus the prompt (and
             REQUEST_HEADROOM for the rest of the JSON)

An image within its provider's limits goes out byte for byte (a rendered frame, a 1600 x 1200
photograph to OpenAI or Gemini). One past them is decoded with Pillow, turned upright by its EXIF
orientation (the EXIF is not re-sent), flattened onto white if it has transparency, shrunk to the
longest side allowed, and saved as JPEG at the first quality of QUALITIES that fits; if none fits,
shrunk by SHRINK and tried again. Each reply line records what was sent (`image_sent`: bytes, size,
whether re-encoded and why, the original's bytes and size), and the report counts the re-encoded.
Pillow is imported only here, and only when an image is asked about.
"""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Optional

from .errors import EvalError

MIB = 1024 * 1024
REQUEST_HEADROOM = 64 * 1024  # bytes of a Gemini request that are neither the image nor the prompt
QUALITIES = (92, 85, 75, 65, 55)
SHRINK = 0.75
MIN_SIDE = 64


@dataclass(frozen=True)
class ImageLimit:
    max_bytes: Optional[int] = None  # the image file
    max_base64: Optional[int] = None  # the image's base64 text
    max_side: Optional[int] = None  # the longest side in pixels
    request_bytes: Optional[int] = None  # the whole request (Gemini inline data)


LIMITS = {"anthropic": ImageLimit(max_base64=5 * MIB, max_side=1568),
          "openai": ImageLimit(max_bytes=20 * 1000 * 1000),
          "gemini": ImageLimit(request_bytes=20 * 1000 * 1000)}


def b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


def _fits_bytes(n: int, limit: ImageLimit, prompt_bytes: int) -> Optional[str]:
    """Why an image of n bytes is too large for `limit`, or None."""
    if limit.max_bytes is not None and n > limit.max_bytes:
        return f"{n} bytes > {limit.max_bytes}"
    if limit.max_base64 is not None and b64_len(n) > limit.max_base64:
        return f"{b64_len(n)} bytes of base64 > {limit.max_base64}"
    if limit.request_bytes is not None and b64_len(n) + prompt_bytes + REQUEST_HEADROOM > limit.request_bytes:
        return f"a {b64_len(n) + prompt_bytes + REQUEST_HEADROOM}-byte request > {limit.request_bytes}"
    return None


def _open(data: bytes):
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(data))
        image.size  # noqa: B018 (read the header)
    except Exception as exc:  # Pillow raises many kinds for a file it cannot read
        raise EvalError(f"the image cannot be read ({type(exc).__name__}: {exc})") from None
    return image


def prepare(data: bytes, media_type: str, provider: str, prompt_bytes: int = 0) -> tuple[bytes, str, dict]:
    """(the bytes to send, their media type, what was sent) for `provider`."""
    limit = LIMITS.get(provider, ImageLimit())
    image = _open(data)
    size = list(image.size)
    too_big = _fits_bytes(len(data), limit, prompt_bytes)
    too_wide = (f"long side {max(size)} px > {limit.max_side}"
                if limit.max_side is not None and max(size) > limit.max_side else None)
    info = {"bytes": len(data), "width": size[0], "height": size[1], "media_type": media_type, "re_encoded": False}
    if not too_big and not too_wide:
        return data, media_type, info
    from PIL import Image, ImageOps

    image = ImageOps.exif_transpose(image)
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        image = flat
    elif image.mode != "RGB":
        image = image.convert("RGB")
    side = min(max(image.size), limit.max_side or max(image.size))
    while True:
        scaled = image
        if max(image.size) > side:
            scale = side / max(image.size)
            scaled = image.resize((max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale))),
                                  Image.Resampling.LANCZOS)
        for quality in QUALITIES:
            buf = io.BytesIO()
            scaled.save(buf, "JPEG", quality=quality)
            out = buf.getvalue()
            if _fits_bytes(len(out), limit, prompt_bytes) is None:
                return out, "image/jpeg", {
                    "bytes": len(out), "width": scaled.size[0], "height": scaled.size[1], "media_type": "image/jpeg",
                    "re_encoded": True, "why": "; ".join(w for w in (too_big, too_wide) if w), "quality": quality,
                    "original_bytes": len(data), "original_width": size[0], "original_height": size[1],
                    "original_media_type": media_type}
        if side <= MIN_SIDE:
            raise EvalError(f"the image cannot be made small enough for {provider} ({too_big or too_wide})")
        side = max(MIN_SIDE, int(side * SHRINK))


def estimate_tokens(info: Optional[dict]) -> int:
    """A rough size of an image in tokens, for --tpm pacing only (never reported): pixels / 750 (Anthropic's
    rule), at most 1,600."""
    if not info:
        return 0
    return min(1600, (info["width"] * info["height"] + 749) // 750)


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")

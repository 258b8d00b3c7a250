"""The phone's image pipeline after the render (numpy + pillow).

From Cycles' linear RGB to the JPEG a phone would save:
auto white balance and its residual error -> auto exposure -> veiling glare and a lens-flare ghost
(the lens) -> vignetting -> chromatic aberration -> sensor noise -> the phone's denoise (luma and chroma) -> local tone
mapping (a base-detail split that holds bright skies) -> tone mapping -> sRGB encoding
-> unsharp-mask sharpening -> JPEG re-encode.

All parameters are drawn from one generator into a `PostParams` that is recorded with
the frame; `develop` is a pure function of (image, params), noise included (its seed is
one of the params), so any frame's post-processing can be repeated exactly. The phone-look
stages (glare, flare, denoise, local tone mapping, sharpening) are drawn from their own child
stream (`draw_phone_look`), so adding them shifted no earlier draw; their defaults are "off",
so a record written before them (`PostParams.from_dict`) develops as it did.
"""
from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass

import numpy as np

from . import phone_look
from .image_terms import REC709
from .rng import stage_rng


@dataclass(frozen=True)
class PostParams:
    wb_gains: tuple[float, float, float] = (1.0, 1.0, 1.0)  # residual white-balance error per channel
    auto_exposure: bool = True
    exposure_key: float = 0.18  # auto exposure maps the scene's log-mean luminance to this
    max_exposure_gain: float = 8.0
    vignetting: float = 0.0  # fractional fall-off at the frame corner
    chromatic_aberration: float = 0.0  # red scaled by (1 + ca), blue by (1 - ca), about the centre
    shot_noise: float = 0.0  # variance per unit of linear signal
    read_noise: float = 0.0  # standard deviation, linear units
    noise_seed: int = 0
    tone_white: float = 4.0  # linear level mapped to display white by the tone curve
    jpeg_quality: int = 90
    # The phone look (all 0: off, as in records written before these stages existed).
    glare: float = 0.0  # share of the frame's wide-blurred light scattered back over it (veiling glare)
    flare: float = 0.0  # a compact bright source's ghost, relative to the source's light
    luma_denoise: float = 0.0  # how much of the luminance noise the phone's denoise removes (0..1)
    chroma_denoise: float = 0.0  # the same for the colour noise (a phone removes more of it)
    local_tone: float = 0.0  # compression of the base layer's highlights above the knee (0..1)
    sharpen: float = 0.0  # unsharp-mask amount on display luminance
    sharpen_sigma: float = 1.2  # its blur's standard deviation, px
    awb: float = 0.0  # how much of the grey surfaces' colour cast auto white balance takes off (0..1)

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "PostParams":
        data = dict(data)
        data["wb_gains"] = tuple(float(v) for v in data.get("wb_gains", (1.0, 1.0, 1.0)))
        return PostParams(**data)  # a field an older record lacks keeps its default ("off")


# Phones correct lateral chromatic aberration in the ISP; up to 1.5 px of it at the corner (0.0015 before
# 2026-12-04) put red and blue fringes along every thin dark line, which the colour denoise merged into a
# magenta line (the "purple seams" a blind panel saw on cars).
MAX_CHROMATIC_ABERRATION = 0.0005

# The render as Blender produced it: no exposure change, no noise, no lens effects.
NEUTRAL = PostParams(auto_exposure=False)


def draw_post_params(rng: np.random.Generator) -> PostParams:
    gains = np.exp(rng.normal(0.0, 0.04, size=3))
    gains /= gains[1]
    return PostParams(
        wb_gains=tuple(float(g) for g in gains),
        exposure_key=float(rng.uniform(0.14, 0.22)),
        vignetting=float(rng.uniform(0.05, 0.35)),
        # what is left of lateral CA after the ISP corrects it: at most half a pixel at a 1600 px frame's corner
        chromatic_aberration=float(rng.uniform(0.0, MAX_CHROMATIC_ABERRATION)),
        shot_noise=float(math.exp(rng.uniform(math.log(2e-4), math.log(3e-3)))),
        read_noise=float(math.exp(rng.uniform(math.log(5e-4), math.log(4e-3)))),
        noise_seed=int(rng.integers(0, 2**63 - 1)),
        tone_white=float(rng.uniform(2.5, 6.0)),
        jpeg_quality=int(rng.integers(80, 96)),
        **draw_phone_look(stage_rng(rng, "phone_look")),
    )


def draw_phone_look(rng: np.random.Generator) -> dict:
    """The phone-look stages' parameters, from the post stream's own child (`stage_rng(post, "phone_look")`,
    which consumes no draw of its parent): mild, so the image terms read on the final image barely move."""
    return {"glare": float(rng.uniform(0.005, 0.02)),
            "flare": float(rng.uniform(0.02, 0.06)),
            "luma_denoise": float(rng.uniform(0.35, 0.65)),
            "chroma_denoise": float(rng.uniform(0.85, 0.97)),
            "local_tone": float(rng.uniform(0.25, 0.55)),
            "sharpen": float(rng.uniform(0.15, 0.35)),
            "sharpen_sigma": float(rng.uniform(0.8, 1.2)),
            "awb": float(rng.uniform(0.6, 0.9))}  # drawn last: the draws above stay as they were


def exposure_gain(linear_rgb: np.ndarray, params: PostParams) -> float:
    lum = np.asarray(linear_rgb, float)[..., :3] @ REC709
    log_mean = float(np.exp(np.mean(np.log(np.maximum(lum, 1e-4)))))
    return float(min(params.exposure_key / log_mean, params.max_exposure_gain))


def _bilinear_separable(channel: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`channel` sampled bilinearly at every (y[i], x[j]): a resampling whose column coordinate depends only
    on the column and row coordinate only on the row (a scaling about a point), gathered a row and a column
    at a time rather than pixel by pixel."""
    h, w = channel.shape
    x = np.clip(x, 0, w - 1)
    y = np.clip(y, 0, h - 1)
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    x1 = np.minimum(x0 + 1, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    fx, fy = (x - x0)[None, :], (y - y0)[:, None]
    rows0, rows1 = channel[y0], channel[y1]
    top = rows0[:, x0] * (1 - fx) + rows0[:, x1] * fx
    bottom = rows1[:, x0] * (1 - fx) + rows1[:, x1] * fx
    return top * (1 - fy) + bottom * fy


def chromatic_aberration(img: np.ndarray, amount: float) -> np.ndarray:
    """Lateral CA: red magnified by (1 + amount), blue by (1 - amount), about the frame centre."""
    if amount == 0:
        return img
    h, w = img.shape[:2]
    xs, ys = np.arange(w, dtype=float), np.arange(h, dtype=float)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    out = img.copy()
    for channel, scale in ((0, 1 + amount), (2, 1 - amount)):
        out[..., channel] = _bilinear_separable(img[..., channel], cx + (xs - cx) / scale, cy + (ys - cy) / scale)
    return out


def vignette(img: np.ndarray, amount: float) -> np.ndarray:
    h, w = img.shape[:2]
    dx2 = (np.arange(w, dtype=float) - (w - 1) / 2) ** 2
    dy2 = (np.arange(h, dtype=float) - (h - 1) / 2) ** 2
    r2 = (dx2[None, :] + dy2[:, None]) / (((w - 1) / 2) ** 2 + ((h - 1) / 2) ** 2)
    return img * (1 - amount * r2)[..., None]


def tone_map(linear: np.ndarray, white: float) -> np.ndarray:
    """Extended Reinhard: 0 -> 0, `white` -> 1, gentle shoulder; output is linear display light."""
    x = np.maximum(linear, 0.0)
    return np.clip(x * (1 + x / white**2) / (1 + x), 0.0, 1.0)


def srgb_encode(display_linear: np.ndarray) -> np.ndarray:
    x = np.clip(display_linear, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def develop(linear_rgb: np.ndarray, params: PostParams) -> np.ndarray:
    """Linear render -> display-encoded float image in [0, 1] (before JPEG)."""
    img = phone_look.auto_white_balance(np.asarray(linear_rgb, np.float64)[..., :3], params.awb)
    img = img * np.asarray(params.wb_gains)
    if params.auto_exposure:
        img = img * exposure_gain(img, params)
    img = phone_look.lens_flare(phone_look.veiling_glare(img, params.glare), params.flare)
    img = vignette(img, params.vignetting)
    img = chromatic_aberration(img, params.chromatic_aberration)
    if params.shot_noise or params.read_noise:
        noise_rng = np.random.default_rng(params.noise_seed)
        sigma = np.sqrt(params.shot_noise * np.maximum(img, 0) + params.read_noise**2)
        img = img + noise_rng.standard_normal(img.shape) * sigma
    img = phone_look.denoise(img, params.luma_denoise, params.chroma_denoise, params.shot_noise, params.read_noise,
                             params.tone_white)
    img = phone_look.local_tone_map(img, params.local_tone, params.tone_white)
    display = srgb_encode(tone_map(img, params.tone_white))
    return phone_look.sharpen(display, params.sharpen, params.sharpen_sigma)


def to_uint8(display: np.ndarray) -> np.ndarray:
    return np.clip(np.round(np.asarray(display) * 255.0), 0, 255).astype(np.uint8)


def encode_jpeg(display: np.ndarray, quality: int) -> bytes:
    from PIL import Image  # pillow: bundled with the extension as a wheel

    buf = io.BytesIO()
    Image.fromarray(to_uint8(display), "RGB").save(buf, format="JPEG", quality=int(quality), subsampling=2)
    return buf.getvalue()


def decode_jpeg(data: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGB"), dtype=np.float64) / 255.0


def process(linear_rgb: np.ndarray, params: PostParams) -> tuple[bytes, np.ndarray]:
    """The phone's JPEG bytes and the decoded final image in [0, 1]."""
    data = encode_jpeg(develop(linear_rgb, params), params.jpeg_quality)
    return data, decode_jpeg(data)

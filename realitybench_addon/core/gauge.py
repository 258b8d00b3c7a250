"""A digital angle gauge (a digital level) lying on the roof: placement, reading, and its LCD (pure).

The gauge's long axis is yawed by `yaw_deg` from the roof's fall line. Like a real
inclinometer it shows the tilt of its own long axis, not the roof pitch:

    reading = asin(cos(yaw) * sin(pitch)),  rounded to one decimal place

so a yawed gauge under-reads (90 degrees of yaw reads 0.0). The LCD sits on the top face;
its digits are upright for a worker standing downslope (digit "up" = the gauge's long
axis, pointing upslope). The display texture is drawn at true size with seven-segment
digits, and its layout (digit height, glyph boxes) is what the px-per-digit term measures.
"""
from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np

from .roof import RoofPlan

# A 9 in digital level (body) with a top LCD window near its middle.
BODY_LENGTH_M = 0.23
BODY_WIDTH_M = 0.045
BODY_HEIGHT_M = 0.028
WINDOW_ACROSS_M = 0.040  # LCD window along the body's width (the text's line direction)
WINDOW_ALONG_M = 0.021  # along the long axis (the text's up direction)
WINDOW_OFFSET_M = 0.035  # window centre from the body centre, along the axis (upslope)
DIGIT_HEIGHT_M = 0.0125
LCD_ABOVE_BODY_M = 0.0008  # the LCD's face stands this far above the body's top
LCD_PX_PER_MM = 24  # texture resolution: a 12.5 mm digit is 300 px tall

PLACEMENTS = ("glass", "frame", "roof")
MODULE_FRAME_BAR_M = 0.035  # the module frame's bar width (bl/roof.py draws the same)

LCD_BACKGROUND = (168, 178, 150)  # reflective gray-green LCD
LCD_INK = (28, 30, 26)
LCD_GHOST = (158, 168, 141)  # unlit segments show faintly, as on a real LCD

# Segments a..g of each digit: a top, b top-right, c bottom-right, d bottom, e bottom-left, f top-left, g middle.
SEVEN_SEGMENT = {"0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg", "6": "acdefg",
                 "7": "abc", "8": "abcdefg", "9": "abcdfg", "-": "g", " ": ""}


@dataclass(frozen=True)
class GaugePlan:
    placement: str  # glass | frame | roof
    module: Optional[tuple[int, int]]  # (row, col) it lies on; None on bare roof
    u: float  # body centre, roof coordinates
    v: float
    h: float  # underside of the body above the shingle plane
    yaw_deg: float  # long axis from the fall line (0: along it, pointing upslope)
    pitch_deg: float  # of the surface it lies on (modules are parallel to the roof)

    @property
    def on_module(self) -> bool:
        return self.placement in ("glass", "frame")

    @property
    def true_tilt_deg(self) -> float:
        """The tilt of the gauge's long axis from horizontal (what an ideal sensor measures)."""
        return gauge_tilt_deg(self.pitch_deg, self.yaw_deg)

    @property
    def reading_deg(self) -> float:
        """What the display shows: the tilt rounded to one decimal place."""
        return round(self.true_tilt_deg, 1)

    @property
    def display_text(self) -> str:
        return f"{self.reading_deg:.1f}"

    def axes_uvh(self) -> tuple[np.ndarray, np.ndarray]:
        """(along, across) unit vectors in roof coordinates: the long axis (digit "up") and the text's line
        direction (to the right for a reader facing upslope)."""
        yaw = math.radians(self.yaw_deg)
        along = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
        across = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        return along, across

    def display_center_uvh(self) -> np.ndarray:
        along, _ = self.axes_uvh()
        return np.array([self.u, self.v, self.h + BODY_HEIGHT_M]) + WINDOW_OFFSET_M * along

    def lcd_frame_uvh(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The LCD's face in roof coordinates: (centre, right, up, normal), where right is the text's line
        direction and up the digits' up (the long axis, upslope): the frame `DisplayLayout.boxes_m` is in."""
        along, across = self.axes_uvh()
        normal = np.array([0.0, 0.0, 1.0])
        return self.display_center_uvh() + LCD_ABOVE_BODY_M * normal, across, along, normal

    def to_dict(self) -> dict:
        return {**asdict(self), "reading_deg": self.reading_deg, "on_module": self.on_module}


def module_outline_uvh(plan: RoofPlan, module: tuple[int, int], per_side: int = 60) -> np.ndarray:
    """Points along the middle of a module frame's four bars, on their top (roof coordinates): where its frame
    shows from above."""
    u0, v0 = plan.module_origin(*module)
    w, length = plan.module_width_m, plan.module_length_m
    h = plan.module_bottom_h + plan.module_thickness_m + 0.001
    b = MODULE_FRAME_BAR_M / 2
    t = np.linspace(0.0, 1.0, per_side, endpoint=False)
    across, along = u0 + b + t * (w - 2 * b), v0 + b + t * (length - 2 * b)
    uv = np.vstack([np.column_stack([across, np.full(per_side, v0 + b)]),
                    np.column_stack([across, np.full(per_side, v0 + length - b)]),
                    np.column_stack([np.full(per_side, u0 + b), along]),
                    np.column_stack([np.full(per_side, u0 + w - b), along])])
    return np.column_stack([uv, np.full(len(uv), h)])


def gauge_tilt_deg(pitch_deg: float, yaw_deg: float) -> float:
    """Tilt from horizontal of a line in a plane of slope `pitch_deg`, `yaw_deg` off its fall line."""
    return math.degrees(math.asin(abs(math.cos(math.radians(yaw_deg))) * math.sin(math.radians(pitch_deg))))


def _draw_yaw(rng: np.random.Generator) -> float:
    """Mostly laid along the slope (a few degrees off); a quarter of gauges are yawed 12-60 degrees."""
    if rng.random() < 0.75:
        return float(rng.normal(0.0, 5.0))
    return float(rng.choice([-1.0, 1.0]) * rng.uniform(12.0, 60.0))


def _clear_of_chimney(plan: RoofPlan, u: float, v: float, margin: float = 0.3) -> bool:
    if plan.chimney is None:
        return True
    cu, cv, w, d, _ = plan.chimney
    return not (cu - margin <= u <= cu + w + margin and cv - margin <= v <= cv + d + margin)


def draw_gauge(plan: RoofPlan, rng: np.random.Generator) -> GaugePlan:
    """Where the installer laid the gauge: on a module's glass (70%), along a frame's side bar (15%),
    or on bare shingles beside or below the array (15%)."""
    yaw = _draw_yaw(rng)
    placement = str(rng.choice(PLACEMENTS, p=[0.7, 0.15, 0.15]))
    top = plan.module_bottom_h + plan.module_thickness_m
    if placement != "roof" and plan.installed_cols:
        row, col = int(rng.integers(plan.rows)), int(rng.integers(plan.installed_cols))
        u0, v0 = plan.module_origin(row, col)
        if placement == "glass":
            margin = 0.5 * BODY_LENGTH_M + 0.08
            u = u0 + rng.uniform(margin, plan.module_width_m - margin)
            v = v0 + rng.uniform(margin, plan.module_length_m - margin)
            return GaugePlan("glass", (row, col), float(u), float(v), top - 0.002, yaw, plan.pitch_deg)
        # along a side bar of the frame: yaw kept small, or it would hang off the bar
        side = MODULE_FRAME_BAR_M / 2 if rng.random() < 0.5 else plan.module_width_m - MODULE_FRAME_BAR_M / 2
        v = v0 + rng.uniform(0.5 * BODY_LENGTH_M + 0.05, plan.module_length_m - 0.5 * BODY_LENGTH_M - 0.05)
        return GaugePlan("frame", (row, col), float(u0 + side), float(v), top, float(np.clip(yaw, -8, 8)),
                         plan.pitch_deg)
    spots = []
    if plan.array_v0 > 0.45:  # below the array
        spots.append(lambda: (rng.uniform(plan.array_u0, plan.array_u1), rng.uniform(0.2, plan.array_v0 - 0.2)))
    if plan.array_u0 > 0.8:  # left of it
        spots.append(lambda: (rng.uniform(0.4, plan.array_u0 - 0.3), rng.uniform(0.3, plan.slope_length_m - 0.5)))
    if plan.eave_length_m - plan.array_u1 > 0.8:  # right of it
        spots.append(lambda: (rng.uniform(plan.array_u1 + 0.3, plan.eave_length_m - 0.4),
                              rng.uniform(0.3, plan.slope_length_m - 0.5)))
    if not spots:
        spots.append(lambda: (rng.uniform(0.4, plan.eave_length_m - 0.4), rng.uniform(0.12, 0.3)))
    for _ in range(32):
        u, v = spots[int(rng.integers(len(spots)))]()
        if _clear_of_chimney(plan, u, v):
            break
    return GaugePlan("roof", None, float(u), float(v), 0.0015, yaw, plan.pitch_deg)


@dataclass(frozen=True)
class DisplayLayout:
    """Where the digits are drawn on the LCD texture: what the px-per-digit term measures."""

    text: str
    digit_height_m: float
    px_per_mm: int
    glyph_boxes_px: tuple[tuple[float, float, float, float], ...]  # x0, y_top, x1, y_bottom per character
    size_px: tuple[int, int]  # width, height

    def boxes_m(self) -> tuple[tuple[float, float, float, float], ...]:
        """Each character's box (x0, y0, x1, y1) in metres on the LCD's face: x along the text's line, y up the
        digits, from the window's centre (the texture spans the window exactly)."""
        px_per_m = self.px_per_mm * 1000.0
        w, h = self.size_px
        return tuple(((x0 - w / 2) / px_per_m, (h / 2 - y1) / px_per_m, (x1 - w / 2) / px_per_m,
                      (h / 2 - y0) / px_per_m) for x0, y0, x1, y1 in self.glyph_boxes_px)


def _segment_polygons(x: float, y_top: float, height: float, slant: float) -> dict[str, list[tuple[float, float]]]:
    """The seven segments of a digit cell as hexagon-ended bars (image coordinates, y down), slanted."""
    w = 0.52 * height
    t = 0.12 * height  # segment thickness
    g = 0.018 * height  # gap between segments
    half = height / 2

    def pt(px, py):  # slant: the top leans right
        return (x + px + slant * (height - py), y_top + py)

    def horizontal(py):
        return [pt(t / 2 + g, py), pt(t + g, py - t / 2), pt(w - t - g, py - t / 2), pt(w - t / 2 - g, py),
                pt(w - t - g, py + t / 2), pt(t + g, py + t / 2)]

    def vertical(px, p0, p1):
        return [pt(px, p0 + g), pt(px + t / 2, p0 + t / 2 + g), pt(px + t / 2, p1 - t / 2 - g), pt(px, p1 - g),
                pt(px - t / 2, p1 - t / 2 - g), pt(px - t / 2, p0 + t / 2 + g)]

    return {"a": horizontal(t / 2), "g": horizontal(half), "d": horizontal(height - t / 2),
            "f": vertical(t / 2, t / 2, half), "b": vertical(w - t / 2, t / 2, half),
            "e": vertical(t / 2, half, height - t / 2), "c": vertical(w - t / 2, half, height - t / 2)}


def display_texture(text: str, px_per_mm: int = LCD_PX_PER_MM) -> tuple[np.ndarray, DisplayLayout]:
    """The LCD window as an RGB uint8 image (x across the window, y down = downslope) and its layout.

    Seven-segment digits right-aligned with a decimal point and a degree mark, unlit
    segments faintly visible. Characters other than digits, '-', '.' and ' ' raise ValueError.
    """
    from PIL import Image, ImageDraw

    bad = sorted({c for c in text if c not in SEVEN_SEGMENT and c != "."})
    if bad:
        raise ValueError(f"a seven-segment display cannot show {bad!r} (text {text!r})")
    width, height = int(round(WINDOW_ACROSS_M * 1000 * px_per_mm)), int(round(WINDOW_ALONG_M * 1000 * px_per_mm))
    image = Image.new("RGB", (width, height), LCD_BACKGROUND)
    draw = ImageDraw.Draw(image)
    digit_h = DIGIT_HEIGHT_M * 1000 * px_per_mm
    cell = 0.66 * digit_h  # digit advance
    dot = 0.22 * digit_h
    slant = 0.06
    y_top = (height - digit_h) / 2
    glyphs = [c for c in text]
    total = sum(dot if c == "." else cell for c in glyphs)
    x = width - 0.2 * digit_h - total  # right-aligned, room for the degree mark
    boxes = []
    for c in glyphs:
        if c == ".":
            r = 0.07 * digit_h
            cx, cy = x + dot / 2 - 0.04 * digit_h, y_top + digit_h - r
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=LCD_INK)
            boxes.append((cx - r, cy - r, cx + r, cy + r))
            x += dot
            continue
        segments = _segment_polygons(x, y_top, digit_h, slant)
        for name, poly in segments.items():
            draw.polygon(poly, fill=LCD_INK if name in SEVEN_SEGMENT[c] else LCD_GHOST)
        boxes.append((x, y_top, x + 0.52 * digit_h + slant * digit_h, y_top + digit_h))
        x += cell
    # the degree mark, top right, and a battery icon, top left
    line = max(2, int(0.035 * digit_h))
    r = 0.07 * digit_h
    cx, cy = width - 0.1 * digit_h, y_top + r + 1
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=LCD_INK, width=line)
    bx, by, bw, bh = 0.05 * width, 0.08 * height, 0.3 * digit_h, 0.14 * digit_h
    draw.rectangle([bx, by, bx + bw, by + bh], outline=LCD_INK, width=line)
    draw.rectangle([bx + bw, by + bh * 0.3, bx + bw + 0.03 * digit_h, by + bh * 0.7], fill=LCD_INK)
    draw.rectangle([bx + 2 * line, by + 2 * line, bx + bw * 0.7, by + bh - 2 * line], fill=LCD_INK)
    layout = DisplayLayout(text, DIGIT_HEIGHT_M, px_per_mm, tuple(boxes), (width, height))
    return np.asarray(image), layout


@functools.lru_cache(maxsize=64)
def display_layout(text: str, px_per_mm: int = LCD_PX_PER_MM) -> DisplayLayout:
    """Where `text`'s characters are drawn on the LCD (the drawing itself is not kept)."""
    return display_texture(text, px_per_mm)[1]


def read_seven_segment(image: np.ndarray, layout: DisplayLayout) -> str:
    """Read the digits back off a display texture from its layout: which segments are inked.

    The test of the generator: the text drawn equals the ground truth.
    """
    lum = np.asarray(image, float)[..., :3].mean(axis=2)
    ink_level = (np.mean(LCD_INK) + np.mean(LCD_GHOST)) / 2
    out = []
    for box in layout.glyph_boxes_px:
        x0, y0, x1, y1 = box
        h = y1 - y0
        if h < 0.5 * layout.digit_height_m * 1000 * layout.px_per_mm:  # the decimal point
            out.append(".")
            continue
        lit = ""
        for name, poly in _segment_polygons(x0, y0, h, 0.06).items():
            cx = np.mean([p[0] for p in poly])
            cy = np.mean([p[1] for p in poly])
            if lum[int(round(cy)), int(round(cx))] < ink_level:
                lit += name
        digit = next((d for d, segs in SEVEN_SEGMENT.items() if set(segs) == set(lit)), "?")
        out.append(digit)
    return "".join(out)


# The gauge as a product (pure geometry in its own frame: X across, Y along the long axis, Z up from the
# underside; see bl/gauge.py's gauge_matrix). Every part lies inside the boxes the gauge used to be built
# from, and nothing rises above the LCD's face, so no part hides more of the display than before.
END_CAP_M = 0.025  # the rubber end caps' length
# the extrusion's profile (X, Z): bottom, bottom, top, top. The bottom stays nearly square, so the footprint
# (and the module glass and frame it hides) is the box's
BODY_RADII_M = (0.0004, 0.0004, 0.0025, 0.0025)
BEZEL_TOP_M = 0.0006  # above the body's top: under the LCD's face (LCD_ABOVE_BODY_M)
BUTTONS_X_M = ((-0.014, -0.004), (0.004, 0.014))
BUTTON_ROW_M = (-0.034, -0.026)  # from the window's centre, along the axis
BUTTON_LABELS = ("ZERO", "HOLD")
GAUGE_BRAND = "HOLTVEX"
FACEPLATE_ABOVE_BODY_M = 0.0002
FACEPLATE_INK = (232, 232, 226)
FACEPLATE_PAPER = (34, 35, 38)


def gauge_parts() -> dict:
    """(vertices, faces) of the body (a rounded extrusion), the end caps, the bezel framing the LCD and the
    two pill-shaped buttons."""
    from .product_shapes import RoundedRect, merge, place, rim, rounded_slab

    hw, hl, t = BODY_WIDTH_M / 2, BODY_LENGTH_M / 2, BODY_HEIGHT_M
    profile = RoundedRect(-hw, hw, 0.0, t, BODY_RADII_M)
    body = place(rounded_slab(profile, -hl + END_CAP_M, hl - END_CAP_M), "xzy")
    cap_profile = RoundedRect(-hw - 0.002, hw + 0.002, 0.0, t + 0.002, (0.0006, 0.0006, 0.006, 0.006))
    caps = merge(*(place(rounded_slab(cap_profile, y0, y0 + END_CAP_M, bevel=0.0012), "xzy")
                   for y0 in (-hl, hl - END_CAP_M)))
    y0 = WINDOW_OFFSET_M
    wa, wl = WINDOW_ACROSS_M / 2, WINDOW_ALONG_M / 2
    outer = RoundedRect(-wa - 0.0015, wa + 0.0015, y0 - wl - 0.003, y0 + wl + 0.003, (0.003,) * 4)
    inner = RoundedRect(-wa + 0.0005, wa - 0.0005, y0 - wl + 0.0005, y0 + wl - 0.0005, (0.001,) * 4)
    bezel = rim(outer, inner, t, t + BEZEL_TOP_M)
    buttons = merge(*(rounded_slab(RoundedRect(x0, x1, y0 + BUTTON_ROW_M[0], y0 + BUTTON_ROW_M[1], (0.0039,) * 4),
                                   t, t + 0.0022, bevel=0.0006) for x0, x1 in BUTTONS_X_M))
    return {"body": body, "caps": caps, "bezel": bezel, "buttons": buttons}


def faceplate_size_m() -> tuple[float, float]:
    """The printed plate on the body's flat top (X, Y): between the end caps, inside the rounded edges."""
    return BODY_WIDTH_M - 2 * BODY_RADII_M[2] - 0.0005, BODY_LENGTH_M - 2 * END_CAP_M - 0.004


def faceplate_texture(px_per_mm: float = 8.0) -> np.ndarray:
    """The top's print (x across, y down = downslope, as the LCD): the maker's name below the buttons, each
    button's name above it, "DIGITAL LEVEL" and a millimetre scale along one edge. RGB uint8, row 0 upslope."""
    from PIL import Image, ImageDraw

    from . import lettering

    w_m, l_m = faceplate_size_m()
    w, h = int(round(w_m * 1000 * px_per_mm)), int(round(l_m * 1000 * px_per_mm))
    image = Image.new("RGB", (w, h), FACEPLATE_PAPER)
    draw = ImageDraw.Draw(image)

    def row_y(y_m: float) -> float:  # the body's Y (from its centre, upslope) to an image row
        return h / 2 - y_m * 1000 * px_per_mm

    def centred(text: str, cx_m: float, baseline_y_m: float, cap_mm: float) -> None:
        cap = cap_mm * px_per_mm
        x = w / 2 + cx_m * 1000 * px_per_mm - lettering.text_width(text, cap) / 2
        lettering.draw_text(image, text, x, row_y(baseline_y_m), cap, color=FACEPLATE_INK)

    y0 = WINDOW_OFFSET_M
    for (x0, x1), text in zip(BUTTONS_X_M, BUTTON_LABELS):
        centred(text, (x0 + x1) / 2, y0 + BUTTON_ROW_M[1] + 0.0045, 2.0)
    centred(GAUGE_BRAND, 0.0, y0 + BUTTON_ROW_M[0] - 0.010, 4.2)
    centred("DIGITAL LEVEL", 0.0, y0 + BUTTON_ROW_M[0] - 0.016, 2.2)
    centred("0.1 DEG", 0.0, y0 + WINDOW_ALONG_M / 2 + 0.008, 2.0)
    for k in range(0, int(l_m * 1000) - 4):  # a millimetre scale down the +X edge, from the upslope end
        y = (k + 2) * px_per_mm
        tick = (0.14 if k % 10 == 0 else 0.10 if k % 5 == 0 else 0.06) * w
        draw.rectangle([w - tick, y - 0.5, w - 1, y + 0.5], fill=FACEPLATE_INK)
    return np.asarray(image)

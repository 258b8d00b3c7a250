"""Text at true physical size on generated textures, from a built-in single-stroke font.

Equipment data labels and a panel's circuit directory need real, legible text whose size in
pixels we choose, identical on every machine: so no system or TrueType fonts. The font is
our own engraving-style single-stroke design (polylines drawn with round caps and joints),
uppercase, with the look-alikes kept apart (a narrow 0 against a round O, a flagged 1
against a serifed I, a flat-topped 5 against S, an 8 of two loops against B's straight
stem, a curved 2 against Z, a closed-loop 6 against G's bar).

Glyph units: cap height 1, baseline y = 0, y up. Stroke centrelines are inset by half a
stroke, so the *ink* of an H spans exactly the cap height above the baseline.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Point = tuple[float, float]

SIDE_BEARING = 0.1  # each side of a glyph's body, in cap heights: 0.2 between letters
DIGIT_BODY = 0.52  # every digit's body width, so columns of numbers align
TYPED_STROKE = 0.12  # of the cap height: a printed or engraved label
HAND_STROKE = 0.14  # a fine-tip marker, a little heavier
SUPERSAMPLE = 4  # the coverage mask's resolution per image pixel, per axis


@dataclass(frozen=True)
class Glyph:
    strokes: tuple[tuple[Point, ...], ...]  # polylines in glyph units, x from 0 to `width`
    width: float  # the body: the strokes' horizontal extent

    @property
    def advance(self) -> float:
        return self.width + 2 * SIDE_BEARING


def _arc(cx: float, cy: float, rx: float, ry: float, start_deg: float, end_deg: float) -> list[Point]:
    """Points along an ellipse from start to end angle (counter-clockwise when end > start),
    one every 6 degrees: smooth at any size a label needs."""
    steps = max(2, int(math.ceil(abs(end_deg - start_deg) / 6.0)))
    return [(cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
            for a in np.linspace(start_deg, end_deg, steps + 1)]


def _dot(x: float, y: float, size: float = 0.045) -> list[Point]:
    """A tiny closed square: inked with a round pen it is a dot a little bolder than the stroke."""
    h = size / 2
    return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h), (x - h, y - h)]


def _mirror(strokes: list[list[Point]], width: float) -> list[list[Point]]:
    return [[(width - x, y) for x, y in s] for s in strokes]


def _turn(strokes: list[list[Point]], width: float) -> list[list[Point]]:
    """Half a turn about the body's centre (a 9 is a turned 6)."""
    return [[(width - x, 1.0 - y) for x, y in s] for s in strokes]


def _glyph_table() -> dict[str, Glyph]:
    g: dict[str, tuple[list[list[Point]], float]] = {}

    # Letters.
    g["A"] = ([[(0, 0), (0.34, 1), (0.68, 0)], [(0.12, 0.34), (0.56, 0.34)]], 0.68)
    g["B"] = ([[(0, 0), (0, 1), (0.32, 1)] + _arc(0.32, 0.76, 0.23, 0.24, 90, -90) + [(0, 0.52)],
               [(0, 0.52), (0.34, 0.52)] + _arc(0.34, 0.26, 0.26, 0.26, 90, -90) + [(0, 0)]], 0.60)
    g["C"] = ([_arc(0.34, 0.5, 0.34, 0.5, 42, 318)], 0.62)
    g["D"] = ([[(0.26, 0), (0, 0), (0, 1), (0.26, 1)] + _arc(0.26, 0.5, 0.36, 0.5, 90, -90)], 0.62)
    g["E"] = ([[(0.54, 1), (0, 1), (0, 0), (0.54, 0)], [(0, 0.52), (0.42, 0.52)]], 0.54)
    g["F"] = ([[(0.54, 1), (0, 1), (0, 0)], [(0, 0.52), (0.42, 0.52)]], 0.54)
    g["G"] = ([_arc(0.34, 0.5, 0.34, 0.5, 42, 360) + [(0.68, 0.0)], [(0.38, 0.44), (0.68, 0.44)]], 0.68)
    g["H"] = ([[(0, 0), (0, 1)], [(0.6, 0), (0.6, 1)], [(0, 0.52), (0.6, 0.52)]], 0.60)
    g["I"] = ([[(0, 1), (0.3, 1)], [(0.15, 1), (0.15, 0)], [(0, 0), (0.3, 0)]], 0.30)
    g["J"] = ([[(0.2, 1), (0.46, 1), (0.46, 0.27)] + _arc(0.24, 0.27, 0.22, 0.27, 0, -180)], 0.46)
    g["K"] = ([[(0, 0), (0, 1)], [(0.58, 1), (0, 0.38)], [(0.2, 0.59), (0.6, 0)]], 0.60)
    g["L"] = ([[(0, 1), (0, 0), (0.5, 0)]], 0.50)
    g["M"] = ([[(0, 0), (0, 1), (0.36, 0.22), (0.72, 1), (0.72, 0)]], 0.72)
    g["N"] = ([[(0, 0), (0, 1), (0.6, 0), (0.6, 1)]], 0.60)
    g["O"] = ([_arc(0.37, 0.5, 0.37, 0.5, 90, 450)], 0.74)
    g["P"] = ([[(0, 0), (0, 1), (0.32, 1)] + _arc(0.32, 0.74, 0.26, 0.26, 90, -90) + [(0, 0.48)]], 0.58)
    g["Q"] = ([_arc(0.37, 0.5, 0.37, 0.5, 90, 450), [(0.42, 0.24), (0.76, -0.06)]], 0.76)
    g["R"] = ([[(0, 0), (0, 1), (0.32, 1)] + _arc(0.32, 0.74, 0.26, 0.26, 90, -90) + [(0, 0.48)],
               [(0.3, 0.48), (0.6, 0)]], 0.60)
    g["S"] = ([_arc(0.29, 0.75, 0.27, 0.25, 28, 270) + _arc(0.31, 0.255, 0.29, 0.255, 90, -152)], 0.60)
    g["T"] = ([[(0, 1), (0.6, 1)], [(0.3, 1), (0.3, 0)]], 0.60)
    g["U"] = ([[(0, 1), (0, 0.3)] + _arc(0.3, 0.3, 0.3, 0.3, 180, 360) + [(0.6, 1)]], 0.60)
    g["V"] = ([[(0, 1), (0.32, 0), (0.64, 1)]], 0.64)
    g["W"] = ([[(0, 1), (0.2, 0), (0.42, 0.78), (0.64, 0), (0.84, 1)]], 0.84)
    g["X"] = ([[(0, 1), (0.6, 0)], [(0.6, 1), (0, 0)]], 0.60)
    g["Y"] = ([[(0, 1), (0.31, 0.48), (0.62, 1)], [(0.31, 0.48), (0.31, 0)]], 0.62)
    g["Z"] = ([[(0.02, 1), (0.58, 1), (0, 0), (0.6, 0)]], 0.60)

    # Digits: one body width, so they are tabular.
    w = DIGIT_BODY
    g["0"] = ([_arc(w / 2, 0.5, w / 2 - 0.02, 0.5, 90, 450)], w)
    g["1"] = ([[(0.1, 0.78), (0.3, 1), (0.3, 0)]], w)
    g["2"] = ([_arc(0.26, 0.73, 0.24, 0.26, 158, -32) + [(0, 0), (w, 0)]], w)
    g["3"] = ([[(0.04, 1), (0.48, 1), (0.22, 0.6)] + _arc(0.25, 0.3, 0.26, 0.3, 95, -150)], w)
    g["4"] = ([[(0.4, 0), (0.4, 1), (0, 0.3), (w, 0.3)]], w)
    g["5"] = ([[(0.47, 1), (0.08, 1), (0.05, 0.55)] + _arc(0.25, 0.32, 0.26, 0.32, 132, -150)], w)
    g["6"] = ([_arc(0.28, 0.5, 0.26, 0.5, 62, 192) + _arc(0.26, 0.3, 0.25, 0.3, 190, 540)], w)
    g["7"] = ([[(0, 1), (w, 1), (0.16, 0)]], w)
    g["8"] = ([_arc(0.26, 0.76, 0.21, 0.24, 270, 630), _arc(0.26, 0.26, 0.25, 0.26, 90, 450)], w)
    g["9"] = (_turn([_arc(0.28, 0.5, 0.26, 0.5, 62, 192) + _arc(0.26, 0.3, 0.25, 0.3, 190, 540)], w), w)

    # Punctuation.
    g[" "] = ([], 0.3)
    g["-"] = ([[(0, 0.45), (0.36, 0.45)]], 0.36)
    g["."] = ([_dot(0.03, 0.03)], 0.06)
    g[","] = ([_dot(0.05, 0.03), [(0.075, 0.03), (0.07, -0.04), (0.0, -0.18)]], 0.08)
    g["/"] = ([[(0, 0), (0.42, 1)]], 0.42)
    g[":"] = ([_dot(0.03, 0.03), _dot(0.03, 0.6)], 0.06)
    g["#"] = ([[(0.16, 0.04), (0.28, 0.96)], [(0.4, 0.04), (0.52, 0.96)],
               [(0.02, 0.33), (0.64, 0.33)], [(0.06, 0.67), (0.68, 0.67)]], 0.68)
    g["("] = ([_arc(0.34, 0.46, 0.34, 0.64, 118, 242)], 0.18)
    g[")"] = (_mirror([_arc(0.34, 0.46, 0.34, 0.64, 118, 242)], 0.18), 0.18)
    g["+"] = ([[(0, 0.42), (0.52, 0.42)], [(0.26, 0.16), (0.26, 0.68)]], 0.52)
    g["%"] = ([[(0.06, 0), (0.66, 1)], _arc(0.15, 0.79, 0.15, 0.21, 90, 450),
               _arc(0.57, 0.21, 0.15, 0.21, 90, 450)], 0.72)
    g["&"] = ([_smooth([(0.66, 0), (0.4, 0.31), (0.12, 0.66), (0.1, 0.84), (0.24, 0.99), (0.4, 0.9),
                        (0.38, 0.72), (0.16, 0.55), (0.02, 0.3), (0.08, 0.07), (0.26, 0),
                        (0.46, 0.07), (0.6, 0.3)])], 0.66)
    g["'"] = ([[(0.03, 1), (0.02, 0.72)]], 0.05)
    g["*"] = ([[(0.22, 0.96), (0.22, 0.48)], [(0.03, 0.84), (0.41, 0.6)], [(0.03, 0.6), (0.41, 0.84)]], 0.44)
    g["="] = ([[(0, 0.28), (0.5, 0.28)], [(0, 0.58), (0.5, 0.58)]], 0.50)
    g["°"] = ([_arc(0.14, 0.84, 0.13, 0.16, 90, 450)], 0.28)

    table = {}
    for char, (strokes, width) in g.items():
        table[char] = Glyph(tuple(tuple((float(x), float(y)) for x, y in s) for s in strokes), float(width))
    return table


def _smooth(points: list[Point], per_span: int = 8) -> list[Point]:
    """A Catmull-Rom curve through the points: freehand shapes (the ampersand) from a few knots."""
    p = np.array(points, dtype=float)
    padded = np.vstack([2 * p[0] - p[1], p, 2 * p[-1] - p[-2]])
    out = [tuple(p[0])]
    for i in range(1, len(padded) - 2):
        p0, p1, p2, p3 = padded[i - 1:i + 3]
        for t in np.linspace(0, 1, per_span + 1)[1:]:
            q = 0.5 * (2 * p1 + (p2 - p0) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t * t
                       + (3 * p1 - p0 - 3 * p2 + p3) * t ** 3)
            out.append((float(q[0]), float(q[1])))
    return out


GLYPHS: dict[str, Glyph] = _glyph_table()
SUPPORTED: frozenset[str] = frozenset(GLYPHS)


def _check_supported(text: str) -> None:
    unsupported = sorted(set(text) - SUPPORTED)
    if unsupported:
        hint = " (the font is uppercase: upper-case the text)" if any(c.islower() for c in unsupported) else ""
        raise ValueError(f"unsupported characters {''.join(unsupported)!r}{hint}")


def text_width(text: str, cap_height: float) -> float:
    """The text's advance width, in the units of `cap_height`: every glyph's body plus its side
    bearings, so widths of consecutive pieces add up."""
    _check_supported(text)
    return cap_height * sum(GLYPHS[c].advance for c in text)


def fit_cap_height(text: str, max_width_px: float, max_cap_height_px: float) -> float:
    """The largest cap height up to `max_cap_height_px` at which the text fits `max_width_px`."""
    unit = text_width(text, 1.0)
    return max_cap_height_px if unit == 0 else min(max_cap_height_px, max_width_px / unit)


def inked_count(text: str) -> int:
    """How many characters of `text` leave ink (a space does not): the length of its glyph boxes."""
    return sum(1 for char in text if GLYPHS[char].strokes)


@dataclass(frozen=True)
class DrawnText:
    text: str
    box_px: tuple[float, float, float, float]  # the ink: x0, y_top, x1, y_bottom in image pixels (y down)
    cap_height_px: float
    baseline_px: float
    end_x_px: float = 0.0  # the pen after the last advance: where following text would start
    glyph_boxes_px: tuple = ()  # each inked character's own ink box (x0, y_top, x1, y_bottom), in text order


@dataclass(frozen=True)
class TextRow:
    """One line of lettering on a texture, as drawn: its role, text, pixel box, baseline, cap height."""

    role: str
    text: str
    box_px: tuple[float, float, float, float]
    baseline_px: float
    cap_height_px: float
    glyph_boxes_px: tuple = ()  # each inked character's ink box, in text order (DrawnText.glyph_boxes_px)


@dataclass(frozen=True)
class TextLayout:
    """The rows of lettering drawn on a texture of `size_px` at `px_per_mm` (a plate, a board)."""

    rows: tuple[TextRow, ...]
    px_per_mm: float
    size_px: tuple[int, int]

    def row(self, role: str) -> TextRow:
        return next(r for r in self.rows if r.role == role)

    def text_of(self, role: str) -> str:
        return self.row(role).text

    def cap_height_m(self, role: str) -> float:
        return self.row(role).cap_height_px / self.px_per_mm / 1000.0

    def center_m(self, box_px) -> tuple[float, float]:
        """A pixel box's centre in metres from the texture's centre (x right, y up)."""
        w, h = self.size_px
        cx, cy = (box_px[0] + box_px[2]) / 2, (box_px[1] + box_px[3]) / 2
        return ((cx - w / 2) / self.px_per_mm / 1000, (h / 2 - cy) / self.px_per_mm / 1000)

    def box_m(self, box_px) -> tuple[float, float, float, float]:
        """A pixel box (x0, y_top, x1, y_bottom) in metres from the texture's centre: (x0, y0, x1, y1), y up."""
        w, h = self.size_px
        k = self.px_per_mm * 1000.0
        return ((box_px[0] - w / 2) / k, (h / 2 - box_px[3]) / k, (box_px[2] - w / 2) / k, (h / 2 - box_px[1]) / k)

    def field_m(self, role: str, prefix: str = "") -> tuple[str, tuple, float]:
        """(text, each inked character's ink box in metres, cap height in metres) of the row `role`, less its
        printed `prefix` ("MODEL NO. "): only what a reader reads off it."""
        row = self.row(role)
        if not row.text.startswith(prefix):
            raise ValueError(f"row {role!r} reads {row.text!r}, not {prefix!r}...")
        boxes = tuple(self.box_m(box) for box in row.glyph_boxes_px[inked_count(prefix):])
        return row.text[len(prefix):], boxes, self.cap_height_m(role)


@dataclass(frozen=True)
class _HandLine:
    """The writer's whole-line habits: drawn once per call."""
    slant: float  # horizontal shear per unit height (a right lean)
    stroke_scale: float


def _wobble(points: np.ndarray, rng: np.random.Generator, amplitude: float) -> np.ndarray:
    """Subdivide a polyline and bend it by a slow random wave: a marker drawn by hand, not by a plotter.

    A sum of two sinusoids along the arc length keeps the wobble smooth (a hand drifts; it does
    not jitter point to point); the ends get their own small over- or under-shoot.
    """
    if len(points) < 2:
        return points
    dense = [points[0]]
    for a, b in zip(points[:-1], points[1:]):
        n = max(1, int(math.ceil(np.linalg.norm(b - a) / 0.06)))
        dense.extend(a + (b - a) * t for t in np.linspace(0, 1, n + 1)[1:])
    dense = np.array(dense)
    s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(dense, axis=0), axis=1))])
    offset = np.zeros_like(dense)
    for axis in range(2):
        for wavelength in (rng.uniform(0.35, 0.6), rng.uniform(0.9, 1.6)):
            offset[:, axis] += amplitude * rng.uniform(0.4, 1.0) * np.sin(
                2 * math.pi * s / wavelength + rng.uniform(0, 2 * math.pi))
    dense = dense + offset
    dense[0] += rng.normal(0, amplitude * 0.6, 2)
    dense[-1] += rng.normal(0, amplitude * 0.6, 2)
    return dense


def _layout(text: str, x_px: float, baseline_px: float, cap_height_px: float, stroke_px: float,
            hand: _HandLine | None, rng: np.random.Generator | None) -> list[tuple[np.ndarray, float, int]]:
    """Every stroke as a polyline in image pixels (y down), with its pen width and its character's index.

    The body is centred in its advance cell and scaled by the cap height less one stroke, so
    the ink (half a stroke beyond the centreline) fills the cap height exactly.
    """
    placed = []
    pen = 0.0  # in cap heights
    for index, char in enumerate(text):
        glyph = GLYPHS[char]
        if glyph.strokes:
            polylines = [np.array(s, dtype=float) for s in glyph.strokes]
            stroke = stroke_px
            if hand is not None:
                stroke = stroke_px * hand.stroke_scale * rng.uniform(0.9, 1.1)
                size = rng.uniform(0.92, 1.08)
                turn = math.radians(rng.uniform(-4.0, 4.0))
                shift = rng.normal(0.0, 0.025, 2).clip(-0.05, 0.05)
                centre = np.array([glyph.width / 2, 0.5])
                rot = np.array([[math.cos(turn), math.sin(turn)], [-math.sin(turn), math.cos(turn)]])
                polylines = [(_wobble(p, rng, 0.012) - centre) @ rot * size + centre + shift for p in polylines]
                for p in polylines:
                    p[:, 0] += p[:, 1] * hand.slant
            scale = cap_height_px - stroke
            left = x_px + pen * cap_height_px + (glyph.advance * cap_height_px - glyph.width * scale) / 2
            for p in polylines:
                placed.append((np.column_stack([left + p[:, 0] * scale, baseline_px - stroke / 2 - p[:, 1] * scale]),
                               stroke, index))
        pen += glyph.advance
    return placed


def draw_text(image, text: str, x_px: float, baseline_px: float, cap_height_px: float, *,
              color=(20, 20, 20), stroke_px: float | None = None, style: str = "typed",
              rng: np.random.Generator | None = None) -> DrawnText:
    """Draw `text` into `image` (PIL, RGB/RGBA/L) with its pen starting at `x_px` on the `baseline_px` row.

    Coordinates are continuous pixels (pixel column i spans [i, i + 1)): a capital's ink spans
    [baseline_px - cap_height_px, baseline_px], so on an integer baseline its lowest inked row is
    baseline_px - 1. The first glyph's ink starts a side bearing (0.1 cap) right of `x_px`.

    "typed" is a clean printed or engraved label; "hand" is marker lettering (needs `rng`):
    every glyph a little moved, resized, turned and wobbly, the line slanted. The strokes are
    drawn onto a supersampled coverage mask of the ink's box and the colour blended through
    it, so edges stay smooth when the texture is viewed small.
    """
    from PIL import Image, ImageDraw

    _check_supported(text)
    if style not in ("typed", "hand"):
        raise ValueError(f"unknown style {style!r}: 'typed' or 'hand'")
    if style == "hand" and rng is None:
        raise ValueError("style 'hand' needs rng (a numpy Generator) for its variations")
    if cap_height_px <= 0:
        raise ValueError(f"cap_height_px must be positive, got {cap_height_px}")
    hand = None
    if style == "hand":
        hand = _HandLine(slant=math.tan(math.radians(rng.uniform(2.0, 8.0))), stroke_scale=rng.uniform(0.94, 1.06))
    if stroke_px is None:
        stroke_px = (HAND_STROKE if hand else TYPED_STROKE) * cap_height_px
    stroke_px = min(stroke_px, 0.5 * cap_height_px)
    end_x = x_px + text_width(text, cap_height_px)

    placed = _layout(text, x_px, baseline_px, cap_height_px, stroke_px, hand, rng)
    if not placed:
        return DrawnText(text, (x_px, baseline_px, x_px, baseline_px), cap_height_px, baseline_px, end_x)
    lo = np.min([p.min(axis=0) - w / 2 for p, w, _ in placed], axis=0)
    hi = np.max([p.max(axis=0) + w / 2 for p, w, _ in placed], axis=0)
    box = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
    glyph_boxes = []
    for index in sorted({i for _, _, i in placed}):
        strokes = [(p, w) for p, w, i in placed if i == index]
        g_lo = np.min([p.min(axis=0) - w / 2 for p, w in strokes], axis=0)
        g_hi = np.max([p.max(axis=0) + w / 2 for p, w in strokes], axis=0)
        glyph_boxes.append((float(g_lo[0]), float(g_lo[1]), float(g_hi[0]), float(g_hi[1])))

    # The mask covers whole image pixels around the ink, at SUPERSAMPLE x per axis.
    ox, oy = math.floor(lo[0]) - 1, math.floor(lo[1]) - 1
    width, height = math.ceil(hi[0]) + 1 - ox, math.ceil(hi[1]) + 1 - oy
    ss = SUPERSAMPLE
    mask = Image.new("L", (width * ss, height * ss), 0)
    draw = ImageDraw.Draw(mask)
    for p, stroke, _ in placed:
        radius = stroke * ss / 2
        # Continuous image x maps to the supersampled pixel whose centre is at (x - ox) * ss - 0.5.
        pts = [tuple(v) for v in (p - [ox, oy]) * ss - 0.5]
        if len(pts) > 1:
            draw.line(pts, fill=255, width=max(1, round(stroke * ss)))
        for x, y in pts:  # round caps and joints: a disc at every vertex
            draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=255)
    coverage = mask.reduce(ss)
    if image.mode == "L":
        fill = color if isinstance(color, int) else round(0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2])
    else:
        fill = tuple(color) + ((255,) if image.mode == "RGBA" and len(color) == 3 else ())
    image.paste(Image.new(image.mode, coverage.size, fill), (ox, oy), coverage)
    return DrawnText(text, box, cap_height_px, baseline_px, end_x, tuple(glyph_boxes))

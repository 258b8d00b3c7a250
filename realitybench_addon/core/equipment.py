"""Equipment data labels (pure): what a module, microinverter or string inverter's label says, and
the label drawn at true size with the layout of everything drawn on it.

A label carries the brand, a model number and a serial number in the formats real makers
use (brands are invented), a few rating lines, and a Code 128 barcode of the serial. The
layout records every row as drawn (text and pixel box) and the physical row pitch and
barcode module width, which the px-per-row and px-per-bar terms project into the image.
"""
from __future__ import annotations

import string
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from . import barcode, lettering
from .lettering import TextLayout, TextRow

KINDS = ("module", "microinverter", "inverter")


@dataclass(frozen=True)
class LabelSize:
    width_m: float
    height_m: float
    row_pitch_m: float  # baseline to baseline of the model, serial and rating rows
    bar_module_m: float  # the barcode's narrowest bar


# Typical label sizes: a module's back label is postcard-sized, a microinverter's small, an inverter's large.
LABEL_SIZES = {
    "module": LabelSize(0.105, 0.058, 0.0034, 0.00030),
    "microinverter": LabelSize(0.075, 0.041, 0.0026, 0.00025),
    "inverter": LabelSize(0.13, 0.071, 0.0040, 0.00033),
}

BRANDS = {
    "module": ("HELIOTEK", "SUNFORGE", "BRIGHTCELL", "NORTHLIGHT SOLAR", "AURORA PV", "KESTREL ENERGY"),
    "microinverter": ("MICROGEN", "VOLTARC", "GRIDLET", "AMPERA SYSTEMS"),
    "inverter": ("POWERWELL", "INVERTA", "SOLARIS ENERGY", "CASCADE POWER"),
}


@dataclass(frozen=True)
class EquipmentLabel:
    kind: str
    brand: str
    model: str
    serial: str
    ratings: tuple[str, ...]

    @property
    def size(self) -> LabelSize:
        return LABEL_SIZES[self.kind]

    def to_dict(self) -> dict:
        return asdict(self)


def _letters(rng: np.random.Generator, n: int) -> str:
    return "".join(rng.choice(list(string.ascii_uppercase), n))


def _digits(rng: np.random.Generator, n: int) -> str:
    return "".join(str(int(d)) for d in rng.integers(0, 10, n))


def _initials(brand: str) -> str:
    words = brand.split()
    return (words[0][:2] if len(words) == 1 else words[0][0] + words[1][0]).upper()


def draw_label(kind: str, rng: np.random.Generator) -> EquipmentLabel:
    """A label's content in the maker's formats: model numbers encode power and variant, serials a
    production date and a counter."""
    if kind not in KINDS:
        raise ValueError(f"unknown equipment kind {kind!r}; one of {', '.join(KINDS)}")
    brand = str(rng.choice(BRANDS[kind]))
    code = _initials(brand)
    year, week = int(rng.integers(21, 27)), int(rng.integers(1, 53))
    if kind == "module":
        watts = int(rng.choice([370, 385, 395, 400, 405, 410, 420, 430, 440]))
        cells = int(rng.choice([54, 60, 66, 72]))
        model = f"{code}-{watts}M-{cells}{rng.choice(['HB', 'HBB', 'BF', 'MH'])}"
        serial = f"{code}{year:02d}{week:02d}{_digits(rng, 7)}"
        vmp = round(float(rng.uniform(30.5, 34.5)), 1)
        voc = round(vmp * float(rng.uniform(1.16, 1.2)), 1)
        imp = round(watts / vmp, 2)
        ratings = (f"PMAX {watts} W", f"VMP {vmp} V   IMP {imp} A", f"VOC {voc} V   ISC {round(imp * 1.06, 2)} A",
                   "MAX SYSTEM VOLTAGE 1000 V DC", "MAX SERIES FUSE 25 A", "FIRE RATING TYPE 1   UL 61730",
                   "WARNING: ELECTRIC SHOCK HAZARD")
    elif kind == "microinverter":
        watts = int(rng.choice([240, 290, 300, 325, 350, 384]))
        model = f"{code}{watts}-{rng.choice([60, 72])}-2-US"
        serial = f"{year:02d}{week:02d}{_digits(rng, 8)}"
        ratings = ("DC INPUT 16-60 V   MAX 15 A", f"AC OUTPUT {watts} VA  240 V  60 HZ",
                   f"MAX CONT. OUTPUT {round(watts / 240, 2)} A", "NEMA 6 / IP67   -40 TO +65 °C",
                   "UL 1741 / IEEE 1547   FCC PART 15 B", "WARNING: ELECTRIC SHOCK HAZARD")
    else:
        watts = int(rng.choice([3800, 5000, 6000, 7600, 10000, 11400]))
        model = f"{code}{watts // 100:03d}-US-{rng.choice(['RGM', 'H', 'SE', 'G2'])}"
        serial = f"{code[0]}{_letters(rng, 1)}{year:02d}{week:02d}{_digits(rng, 6)}{_letters(rng, 1)}"
        ratings = (f"AC OUTPUT {watts} W  240 V  60 HZ", f"MAX OUTPUT CURRENT {round(watts / 240)} A",
                   "DC INPUT 480 V MAX   MAX 20 A PER STRING", "NEMA 4X   UTILITY-INTERACTIVE",
                   "UL 1741 SB   IEEE 1547   CSA C22.2", "WARNING: ELECTRIC SHOCK HAZARD. DO NOT OPEN")
    return EquipmentLabel(kind, brand, model, serial, ratings)


@dataclass(frozen=True)
class LabelLayout(TextLayout):
    """The label's rows (roles: brand | model | serial | rating; box_px is the ink), its barcode, and
    the true-size row pitch and bar module the label was drawn with."""

    barcode_data: str = ""
    barcode_box_px: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    row_pitch_m: float = 0.0
    bar_module_m: float = 0.0

    def text_of(self, role: str) -> str:
        """The text drawn in the row of `role` after its caption ("MODEL NO. X" -> "X")."""
        text = self.row(role).text
        return text.split(" ", 2)[-1] if role in ("model", "serial") else text


PAPER = (236, 236, 230)
INK = (18, 18, 20)
LABEL_PX_PER_MM = 12.0
CAP_PER_PITCH = 0.62  # a text row's capitals are this share of the row pitch


@lru_cache(maxsize=16)
def label_layout(label: EquipmentLabel) -> LabelLayout:
    """The layout alone (cached: every frame of a scene measures the same label)."""
    return label_texture(label)[1]


def label_texture(label: EquipmentLabel, px_per_mm: float = LABEL_PX_PER_MM) -> tuple[np.ndarray, LabelLayout]:
    """The label as an RGB uint8 image (row 0 at the top) and the layout of what was drawn on it."""
    from PIL import Image, ImageDraw

    size = label.size
    w_px, h_px = int(round(size.width_m * 1000 * px_per_mm)), int(round(size.height_m * 1000 * px_per_mm))
    image = Image.new("RGB", (w_px, h_px), PAPER)
    draw = ImageDraw.Draw(image)
    pitch = size.row_pitch_m * 1000 * px_per_mm
    cap = CAP_PER_PITCH * pitch
    margin = 0.06 * w_px
    usable = w_px - 2 * margin
    rows = []

    def row(role, text, baseline, cap_height):
        cap_height = lettering.fit_cap_height(text, usable, cap_height)
        drawn = lettering.draw_text(image, text, margin, baseline, cap_height, color=INK)
        rows.append(TextRow(role, text, drawn.box_px, baseline, cap_height, drawn.glyph_boxes_px))

    # header band: the brand reversed out of a dark bar
    band = 2.1 * pitch
    draw.rectangle([0, 0, w_px, band], fill=INK)
    brand_cap = lettering.fit_cap_height(label.brand, usable, 0.55 * band)
    drawn = lettering.draw_text(image, label.brand, margin, (band + brand_cap) / 2, brand_cap, color=PAPER)
    rows.append(TextRow("brand", label.brand, drawn.box_px, (band + brand_cap) / 2, brand_cap, drawn.glyph_boxes_px))
    y = band + 1.25 * pitch
    row("model", f"MODEL NO. {label.model}", y, cap)
    y += pitch
    row("serial", f"S/N: {label.serial}", y, cap)
    # the barcode of the serial, under its row
    module_px = size.bar_module_m * 1000 * px_per_mm
    bar_h = 2.2 * pitch
    box = barcode.draw_code128(image, label.serial, margin,
                               y + 0.45 * pitch, module_px, bar_h, color=INK)
    y = box[3] + 1.15 * pitch
    for text in label.ratings:
        if y > h_px - 0.5 * pitch:
            break
        row("rating", text, y, cap)
        y += pitch
    layout = LabelLayout(tuple(rows), px_per_mm, (w_px, h_px), barcode_data=label.serial,
                         barcode_box_px=tuple(map(float, box)), row_pitch_m=size.row_pitch_m,
                         bar_module_m=size.bar_module_m)
    return np.asarray(image), layout


# The label as it looks after some seasons outdoors: a printed border, faded edges, scuffs and one corner
# lifting. Every pixel of every text row and of the barcode (with its quiet zone) stays exactly
# as label_texture drew it, so what the terms measure (rows, glyph boxes, bars) is the clean layout's.
BORDER_INSET_MM = 1.3
BORDER_LINE_MM = 0.2
# a grey printed frame, not the ink: a label seen a few pixels wide is sampled sparsely, and a dark line round
# it moved weber_contrast's ink percentile (0.477 -> 0.521 on a 26-pixel label); the print itself is the ink
BORDER_COLOR = (160, 162, 168)


def _measured_boxes(layout: LabelLayout) -> list[tuple[float, float, float, float]]:
    """Every row's ink box and the barcode with ten modules of quiet zone each side (pixels)."""
    quiet = 10 * layout.bar_module_m * 1000 * layout.px_per_mm
    x0, y0, x1, y1 = layout.barcode_box_px
    return [r.box_px for r in layout.rows] + [(x0 - quiet, y0, x1 + quiet, y1)]


def protection(layout: LabelLayout, shape: tuple[int, int], pad_px: float = 2.0, feather_mm: float = 1.5) -> np.ndarray:
    """1 where the measured print lies (`_measured_boxes` grown by `pad_px`), falling to 0 over `feather_mm`
    outside it: wear is blended out towards the print, so no box edge shows. float32 (h, w)."""
    h, w = shape
    feather = feather_mm * layout.px_per_mm
    weight = np.zeros((h, w), np.float32)
    for x0, y0, x1, y1 in _measured_boxes(layout):
        r0, r1 = max(0, int(y0 - pad_px - feather) - 1), min(h, int(y1 + pad_px + feather) + 2)
        c0, c1 = max(0, int(x0 - pad_px - feather) - 1), min(w, int(x1 + pad_px + feather) + 2)
        if r0 >= r1 or c0 >= c1:
            continue
        y = np.arange(r0, r1, dtype=np.float32)[:, None] + 0.5
        x = np.arange(c0, c1, dtype=np.float32)[None, :] + 0.5
        dx = np.maximum(np.maximum(x0 - pad_px - x, x - x1 - pad_px), 0.0)
        dy = np.maximum(np.maximum(y0 - pad_px - y, y - y1 - pad_px), 0.0)
        near = np.clip(1.0 - np.hypot(dx, dy) / feather, 0.0, 1.0)
        np.maximum(weight[r0:r1, c0:c1], near, out=weight[r0:r1, c0:c1])
    return weight


def _edge_distance_mm(shape: tuple[int, int], px_per_mm: float) -> np.ndarray:
    h, w = shape
    x = np.arange(w, dtype=np.float32) + 0.5
    y = np.arange(h, dtype=np.float32)[:, None] + 0.5
    return np.minimum(np.minimum(x, w - x)[None, :], np.minimum(y, h - y)) / np.float32(px_per_mm)


def _scuffs(shape: tuple[int, int], px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    """Abrasion strength in [0, 1] per pixel: a few short straight scratches, mostly one direction."""
    from PIL import Image, ImageDraw

    h, w = shape
    canvas = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(canvas)
    main = rng.uniform(0.0, np.pi)
    for _ in range(int(rng.integers(6, 14))):
        angle = main + rng.normal(0.0, 0.25)
        length = rng.uniform(2.0, 9.0) * px_per_mm
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        dx, dy = np.cos(angle) * length / 2, np.sin(angle) * length / 2
        draw.line([(x - dx, y - dy), (x + dx, y + dy)], fill=int(rng.uniform(90, 190)),
                  width=max(1, int(round(rng.uniform(0.15, 0.4) * px_per_mm))))
    return np.asarray(canvas, float) / 255.0


def _peel(shape: tuple[int, int], px_per_mm: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One corner lifting: (inside the lifted flap, the fold line) as boolean masks."""
    h, w = shape
    x = np.arange(w, dtype=np.float32)[None, :] + 0.5
    y = np.arange(h, dtype=np.float32)[:, None] + 0.5
    corner = int(rng.integers(4))
    cx = x if corner in (0, 3) else w - x
    cy = y if corner in (0, 1) else h - y
    leg = rng.uniform(3.5, 6.0) * px_per_mm
    s = cx + cy
    return s < leg, np.abs(s - leg) < 0.25 * px_per_mm


def worn_label_texture(label: EquipmentLabel, px_per_mm: float = LABEL_PX_PER_MM) -> tuple[np.ndarray, LabelLayout]:
    """label_texture with a printed border and wear, drawn from the label's own serial (no frame's draws)."""
    import zlib

    image, layout = label_texture(label, px_per_mm)
    shape = image.shape[:2]
    rng = np.random.default_rng(zlib.crc32(f"{label.kind}|{label.serial}|wear".encode()))
    out = image.astype(np.float32)
    edge = _edge_distance_mm(shape, px_per_mm)
    border = np.abs(edge - BORDER_INSET_MM - BORDER_LINE_MM / 2) < BORDER_LINE_MM / 2
    out[border] = BORDER_COLOR
    paper = image.mean(axis=2, dtype=np.float32) / 255.0  # the dark header band fades little, the paper yellows
    fade = (np.float32(0.2 * rng.uniform(0.6, 1.0)) * np.exp(-edge / np.float32(2.5)) * paper)[..., None]
    out += (np.array([226.0, 221.0, 200.0], np.float32) - out) * fade  # sun-faded towards the edges
    scuff = (_scuffs(shape, px_per_mm, rng) * 0.55).astype(np.float32)[..., None]
    out += (np.array([205.0, 203.0, 195.0], np.float32) - out) * scuff
    # darkening only where paper shows and only a little: a label seen a few pixels wide is mostly its edge, and
    # weber_contrast's ink percentile there must stay where the clean label put it
    flap, fold = _peel(shape, px_per_mm, rng)
    out[flap] *= 1.0 - 0.12 * paper[flap][:, None]  # the lifted flap turned a little from the light
    out[fold] = out[fold] * 0.55 + 0.45 * 250.0  # its bent edge catches the light
    keep = protection(layout, shape)[..., None]
    out += (image - out) * keep
    return np.clip(np.round(out), 0, 255).astype(np.uint8), layout


# Where the labelled equipment is (roof coordinates for the array, world for the wall inverter).
MICRO_SIZE_M = (0.175, 0.17, 0.035)  # along the eave, up the slope, thick
INVERTER_SIZE_M = (0.42, 0.18, 0.62)  # wide (x), deep (out of the wall), tall
MODULE_FRAME_BAR_M = 0.035


@dataclass(frozen=True)
class LabelPose:
    """The label's centre and axes in world coordinates: normal out of the print, right and up as read."""

    center: tuple[float, float, float]
    normal: tuple[float, float, float]
    right: tuple[float, float, float]
    up: tuple[float, float, float]

    def matrix(self) -> np.ndarray:
        m = np.eye(4)
        m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = self.right, self.up, self.normal, self.center
        return m

    def to_world(self, x_m: float, y_m: float) -> np.ndarray:
        """A point on the label, `x_m` right and `y_m` up of its centre."""
        return np.asarray(self.center) + x_m * np.asarray(self.right) + y_m * np.asarray(self.up)


def _pose(center, normal, up) -> LabelPose:
    normal = np.asarray(normal, float) / np.linalg.norm(normal)
    up = np.asarray(up, float)
    up = up - np.dot(up, normal) * normal
    up /= np.linalg.norm(up)
    right = np.cross(up, normal)
    return LabelPose(*(tuple(map(float, a)) for a in (center, normal, right, up)))


@dataclass(frozen=True)
class EquipmentPlacement:
    kind: str
    label_pose: LabelPose
    module: tuple[int, int] | None = None  # module kind: (row, col) whose back carries the label
    side: int = 0  # module kind: -1 the array's left end column, +1 its right end
    body_origin: tuple[float, float, float] = (0.0, 0.0, 0.0)  # micro (roof u, v, h of its top centre) or
    # inverter (world x, y of the wall face, z of its centre)
    inverter_label_side: int = 0  # +1: the label is on the inverter's +x side face, -1 on its -x face

    def to_dict(self) -> dict:
        d = asdict(self)
        d["label_pose"] = asdict(self.label_pose)
        return d


def place_on_module_back(plan, rng: np.random.Generator) -> EquipmentPlacement:
    """On the backsheet of an end-column module near its outer edge (the one a worker can reach under)."""
    side = -1 if rng.random() < 0.5 or plan.installed_cols < 1 else 1
    col = 0 if side < 0 else plan.installed_cols - 1
    row = int(rng.integers(plan.rows))
    u0, v0 = plan.module_origin(row, col)
    size = LABEL_SIZES["module"]
    inset = MODULE_FRAME_BAR_M + 0.02 + size.height_m / 2  # the label's short side runs across the edge
    u = u0 + inset if side < 0 else u0 + plan.module_width_m - inset
    v = v0 + float(rng.uniform(0.3, 0.6)) * plan.module_length_m
    h = plan.module_bottom_h + plan.module_thickness_m - 0.0065  # just under the backsheet
    frame = plan.frame
    center = frame.to_world([u, v, h])
    up = frame.axes @ np.array([float(side), 0.0, 0.0])  # text reads upright from beside the array
    return EquipmentPlacement("module", _pose(center, -frame.normal, up), module=(row, col), side=side)


def place_microinverter(plan, rng: np.random.Generator) -> EquipmentPlacement:
    """Bolted to the lower rail of a bare column (modules not yet on it), its label up."""
    col = int(rng.integers(plan.installed_cols, plan.cols)) if plan.installed_cols < plan.cols else plan.cols - 1
    u0, _ = plan.module_origin(0, col)
    u = u0 + plan.module_width_m / 2 + float(rng.uniform(-0.15, 0.15))
    v = plan.rail_v(0, 0) - 0.02 - MICRO_SIZE_M[1] / 2 - 0.01
    top = plan.foot_height_m + plan.rail_height_m
    frame = plan.frame
    yaw = np.radians(rng.normal(0.0, 3.0))
    up = frame.axes @ np.array([-np.sin(yaw), np.cos(yaw), 0.0])
    center = frame.to_world([u, v, top + 0.0004])
    return EquipmentPlacement("microinverter", _pose(center, frame.normal, up), body_origin=(u, v, top))


def inverter_spots(plan, wall_inset_m: float) -> list[tuple[float, float]]:
    """Stretches of the eave wall (x ranges) clear of its two windows and of the ladder."""
    x0, x1 = wall_inset_m, plan.eave_length_m - wall_inset_m
    width = x1 - x0
    blocked = [(x0 + f * width - 0.55 - 0.45, x0 + f * width + 0.55 + 0.45) for f in (0.25, 0.7)]
    blocked.append((plan.ladder_u - 0.7, plan.ladder_u + 0.7))
    edges = np.linspace(x0 + 0.5, x1 - 0.5, 200)
    free = [x for x in edges if not any(a <= x <= b for a, b in blocked)]
    return [(float(x), 0.0) for x in free]


def place_inverter(plan, rng: np.random.Generator, wall_inset_m: float) -> EquipmentPlacement:
    """On the eave wall at chest height, clear of windows and ladder; the label on a side face."""
    spots = inverter_spots(plan, wall_inset_m)
    x = spots[int(rng.integers(len(spots)))][0] if spots else wall_inset_m + 0.6
    z = float(rng.uniform(1.15, 1.55))
    wall_y = wall_inset_m
    label_side = 1 if rng.random() < 0.5 else -1
    w, d, _ = INVERTER_SIZE_M
    center = (x + label_side * (w / 2 + 0.0004), wall_y - d / 2, z + 0.06)
    pose = _pose(center, (float(label_side), 0.0, 0.0), (0.0, 0.0, 1.0))
    return EquipmentPlacement("inverter", pose, body_origin=(x, wall_y, z), inverter_label_side=label_side)

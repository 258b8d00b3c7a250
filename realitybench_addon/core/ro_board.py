"""The repair-order board (pure): an RO number, a VIN with a valid check digit, a date, written by
hand on a dry-erase board that a technician holds near the car; the board drawn at true size
with the layout of everything written on it; the technician holding it (a person from core/person.py).

VIN: 17 characters from digits and capitals without I, O and Q; position 9 is the check
digit (ISO 3779 / US 49 CFR 565): transliterate letters (A-H = 1-8, J-N = 1-5, P = 7, R = 9,
S-Z = 2-9), weight positions 8 7 6 5 4 3 2 10 0 9 8 7 6 5 4 3 2, sum mod 11, 10 written X.
Position 10 is the model year, 12-17 the serial number (digits).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from . import board_wear, body_data, lettering
from .errors import RealityBenchError
from .face_tint import skin_tints
from .lettering import TextLayout, TextRow
from .body_model import Shape, draw_shape
from .mpfb_person import mpfb_person_parts
from .person import GripFrame, Look, draw_look, person_parts

VIN_CHARS = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
_TRANSLIT = {**{str(d): d for d in range(10)},
             **dict(zip("ABCDEFGH", range(1, 9))), **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
             **dict(zip("STUVWXYZ", range(2, 10)))}
VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
YEAR_CODES = "ABCDEFGHJKLMNPRS"  # 2010 .. 2025
WMIS = ("1HG", "1FA", "1FT", "1G1", "1GC", "2T1", "3VW", "4T1", "5YJ", "JTD", "JHM", "KNA", "KM8", "WBA", "WDD",
        "1C4", "2HG", "5NP", "1N4", "3GN", "5FN", "1FM", "2C4", "JN1")


class VinError(RealityBenchError, ValueError):
    """A string that cannot be a VIN: not 17 characters, or a character no VIN uses."""


def vin_check_digit(vin: str) -> str:
    """The check digit a 17-character VIN must carry in position 9 (its own position 9 is ignored)."""
    vin = vin.upper()
    if len(vin) != 17:
        raise VinError(f"a VIN has 17 characters, got {len(vin)}: {vin!r}")
    bad = sorted(set(vin) - set(VIN_CHARS))
    if bad:
        raise VinError(f"a VIN never contains {''.join(bad)!r} (digits and capitals without I, O, Q): {vin!r}")
    total = sum(_TRANSLIT[c] * w for c, w in zip(vin, VIN_WEIGHTS))
    r = total % 11
    return "X" if r == 10 else str(r)


def vin_is_valid(vin: str) -> bool:
    try:
        return vin_check_digit(vin) == vin.upper()[8]
    except VinError:
        return False


def draw_vin(rng: np.random.Generator, year: int | None = None) -> str:
    chars = list(VIN_CHARS)
    wmi = WMIS[int(rng.integers(len(WMIS)))]
    vds = "".join(chars[int(i)] for i in rng.integers(0, len(chars), 5))
    year = int(rng.integers(2012, 2026)) if year is None else year
    body = wmi + vds + "0" + YEAR_CODES[year - 2010] + chars[int(rng.integers(len(chars)))] + \
        "".join(str(int(d)) for d in rng.integers(0, 10, 6))
    return body[:8] + vin_check_digit(body) + body[9:]


@dataclass(frozen=True)
class BoardPlan:
    ro: str
    vin: str
    date: str  # MM/DD/YYYY
    seed: int  # the writer's hand (the lettering's variations): the texture is a pure function of the plan
    # where the technician stands and how the board is held (world)
    feet_xy: tuple[float, float]
    facing_deg: float  # the technician (and the board) faces this azimuth
    board_height_m: float  # the board's centre above the ground
    board_tilt_deg: float  # the board leans back (its face turned up) by this much
    board_reach_m: float  # the board's centre in front of the technician's feet
    face: str  # the subject's face the technician stands by

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def frame(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """World centre, reading right, up and normal (out of the writing) of the board."""
        a, t = math.radians(self.facing_deg), math.radians(self.board_tilt_deg)
        fwd = np.array([math.cos(a), math.sin(a), 0.0])
        left = np.array([-math.sin(a), math.cos(a), 0.0])
        normal = math.cos(t) * fwd + math.sin(t) * np.array([0.0, 0.0, 1.0])
        right = left  # facing the board, the reader's right is the holder's left
        up = np.cross(normal, right)
        up /= np.linalg.norm(up)
        center = np.array([*self.feet_xy, 0.0]) + self.board_reach_m * fwd + np.array([0, 0, self.board_height_m])
        return center, right, up, normal

    def to_world(self, x_m: float, y_m: float) -> np.ndarray:
        c, r, u, _ = self.frame
        return c + x_m * r + y_m * u


BOARD_SIZE_M = (0.32, 0.23)  # a letter-size (12.5 x 9 in) dry-erase RO board
# The technician holds the board by its two top corners: each hand grips a side edge, its fingers reaching
# GRIP_OVER_FRONT_M over the written face, from GRIP_TOP_M above the board's top edge down to GRIP_LOW_M
# below it. Below that lie the header band's ends (the header is fitted clear of the fingers) and then the
# first written row (whose ink begins about 46 mm below the top), so no hand ever covers writing.
GRIP_OVER_FRONT_M = 0.0225
GRIP_TOP_M = 0.05
GRIP_LOW_M = 0.04
BOARD_PX_PER_MM = 3.0
BOARD_WHITE = (232, 234, 230)
MARKER_COLORS = ((20, 24, 60), (12, 12, 14), (20, 40, 110))


def draw_board(rng: np.random.Generator, feet_xy, facing_deg: float, face: str) -> BoardPlan:
    year = int(rng.integers(2024, 2027))
    month, day = int(rng.integers(1, 13)), int(rng.integers(1, 29))
    ro = str(int(rng.integers(100000, 1000000)))
    return BoardPlan(ro, draw_vin(rng), f"{month:02d}/{day:02d}/{year}", int(rng.integers(0, 2 ** 31 - 1)),
                     (float(feet_xy[0]), float(feet_xy[1])), float(facing_deg), float(rng.uniform(1.05, 1.3)),
                     float(rng.uniform(8.0, 25.0)), float(rng.uniform(0.3, 0.42)), face)


@dataclass(frozen=True)
class BoardLayout(TextLayout):
    """The board's rows (roles: header | label | ro | vin | date)."""

    @property
    def row_pitch_m(self) -> float:
        values = [r.baseline_px for r in self.rows if r.role in ("ro", "vin", "date")]
        return float(np.mean(np.diff(values))) / self.px_per_mm / 1000.0


def board_texture(board: BoardPlan, px_per_mm: float = BOARD_PX_PER_MM, *,
                  worn: bool = True) -> tuple[np.ndarray, BoardLayout]:
    """The board as an RGB uint8 image (row 0 at the top): a printed header and field labels, the RO
    number, VIN and date written by hand in marker on ruled lines, and (`worn`) what use leaves on it
    (`core/board_wear.py`); and the layout of what was drawn, the same either way."""
    from PIL import Image, ImageDraw

    hand = np.random.default_rng(board.seed)  # the writer's hand: part of the plan, not of global state
    w_mm, h_mm = BOARD_SIZE_M[0] * 1000, BOARD_SIZE_M[1] * 1000
    w, h = int(round(w_mm * px_per_mm)), int(round(h_mm * px_per_mm))
    mm = px_per_mm
    image = Image.new("RGB", (w, h), BOARD_WHITE)
    draw = ImageDraw.Draw(image)
    header = (24, 52, 110)
    band = 26.0  # mm
    draw.rectangle([0, 0, w, band * mm], fill=header)
    rows = []
    cap = lettering.fit_cap_height("REPAIR ORDER", w - 2 * (GRIP_OVER_FRONT_M * 1000 + 8) * mm, 12 * mm)
    x = (w - lettering.text_width("REPAIR ORDER", cap)) / 2
    drawn = lettering.draw_text(image, "REPAIR ORDER", x, (band / 2) * mm + cap / 2, cap, color=BOARD_WHITE)
    rows.append(TextRow("header", "REPAIR ORDER", drawn.box_px, (band / 2) * mm + cap / 2, cap, drawn.glyph_boxes_px))
    ink = MARKER_COLORS[int(hand.integers(len(MARKER_COLORS)))]
    label_x, value_x = 8 * mm, 50 * mm
    first = band + 46.0
    pitch = (h_mm - first - 14.0) / 2
    for k, (role, label, value, cap_mm) in enumerate((("ro", "R.O. #", board.ro, 28.0),
                                                        ("vin", "VIN", board.vin, 26.0),
                                                        ("date", "DATE", board.date, 26.0))):
        baseline = (first + k * pitch) * mm
        draw.line([label_x, baseline + 4 * mm, w - 8 * mm, baseline + 4 * mm], fill=(150, 160, 175),
                  width=max(1, int(round(0.6 * mm))))
        drawn = lettering.draw_text(image, label, label_x, baseline, 6.0 * mm, color=header)
        rows.append(TextRow("label", label, drawn.box_px, baseline, 6.0 * mm, drawn.glyph_boxes_px))
        cap_px = lettering.fit_cap_height(value, w - value_x - 12 * mm, cap_mm * mm)
        start = value_x + hand.uniform(0.0, 3.0) * mm
        drawn = lettering.draw_text(image, value, start, baseline - hand.uniform(0.5, 2.0) * mm, cap_px, color=ink,
                                    style="hand", rng=hand)
        rows.append(TextRow(role, value, drawn.box_px, baseline, cap_px, drawn.glyph_boxes_px))
    layout = BoardLayout(tuple(rows), px_per_mm, (w, h))
    if not worn:
        return np.asarray(image), layout
    written = [r.box_px for r in rows if r.role in ("ro", "vin", "date")]
    wear = board_wear.board_wear(board.seed, (h, w), px_per_mm, band * mm, ink, written, VIN_CHARS)
    used = np.asarray(image, float) * wear
    return np.clip(np.round(used), 0, 255).astype(np.uint8), layout


# ---------------------------------------------------------------------------------------------
# The technician holding the board: a smooth person (core/person.py) whose hands grip the board's top corners.

TECH_HALF_SIZE_M = (0.3, 0.32)  # footprint (along the facing, across), arms and board included
BOARD_FRAME_M = 0.012  # the frame's rim round the written face and its depth behind it
PERSON_STREAM = 20  # the person's look comes from the board's seed and this (no draw from the scene's stream)
BODY_STREAM = 21  # and the body's shape (core/body_model.Shape) from this one
STUBBLE_STREAM = 22  # and how long a beard has grown since the last shave


def _board_box(board: BoardPlan, x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> np.ndarray:
    """A box given in the board's frame (x right, y up, z out of the writing; metres from its centre):
    (6, 4, 3) outward quads in world coordinates."""
    center, right, up, normal = board.frame
    local = np.array([[x, y, z] for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)])
    corners = local @ np.column_stack([right, up, normal]).T + center
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return corners[np.array(faces)]


def grip_boxes(board: BoardPlan) -> list[tuple[float, float, float, float]]:
    """Where the hands cover the written face: (x0, y0, x1, y1) in the board's frame, one per hand."""
    bw, bh = BOARD_SIZE_M
    return [(bw / 2 - GRIP_OVER_FRONT_M, bh / 2 - GRIP_LOW_M, bw / 2 + GRIP_OVER_FRONT_M, bh / 2 + GRIP_TOP_M),
            (-bw / 2 - GRIP_OVER_FRONT_M, bh / 2 - GRIP_LOW_M, -bw / 2 + GRIP_OVER_FRONT_M, bh / 2 + GRIP_TOP_M)]


def technician_look(board: BoardPlan) -> Look:
    """What the technician wears and how they stand: drawn from a stream of the board's own seed, so a
    board always comes with the same person and no other draw of the scene moves."""
    return draw_look(np.random.default_rng([board.seed, PERSON_STREAM]))


def technician_shape(board: BoardPlan) -> Shape:
    """The technician's body (MakeHuman's macro sliders), from another stream of the board's seed."""
    return draw_shape(np.random.default_rng([board.seed, BODY_STREAM]))


def technician_stubble(board: BoardPlan) -> float:
    """How far a beard has grown back, 0 (just shaved) .. 1 (a couple of days); core/face_tint shows it on men."""
    return float(np.random.default_rng([board.seed, STUBBLE_STREAM]).uniform(0.2, 1.0))


def board_grips(board: BoardPlan) -> tuple[GripFrame, GripFrame]:
    """The two hands' grips (the holder's left hand, at the reader's right, first), matching grip_boxes:
    fingers over the face at most GRIP_OVER_FRONT_M in from each side edge and GRIP_LOW_M below the top."""
    _, right, up, normal = board.frame
    bw, bh = BOARD_SIZE_M
    return tuple(GripFrame(board.to_world(s * bw / 2, bh / 2), s * right, up, normal, GRIP_OVER_FRONT_M, GRIP_LOW_M,
                           BOARD_FRAME_M) for s in (1, -1))


def technician_parts(board: BoardPlan) -> dict[str, list]:
    """Material key -> meshes, all in world coordinates: the technician's skin, clothes (shirt, trousers,
    boots; vest, stripe, gloves, cap, hair as worn) as (vertices, triangles), and the board's frame as
    (6, 4, 3) quads. The hands (core/person.gripping_hand) are in "gloves" when worn, else in "skin"."""
    bw, bh = BOARD_SIZE_M
    folder = body_data.body_dir()
    if folder is None:  # no MPFB2 data on this machine: the smooth mannequin
        out = person_parts(technician_look(board), board.feet_xy, board.facing_deg, board_grips(board))
    else:
        out = mpfb_person_parts(folder, technician_look(board), technician_shape(board), board.feet_xy,
                                board.facing_deg, board_grips(board))
    # the board's frame: a thin slab behind the written face
    f = BOARD_FRAME_M
    out["frame"] = [_board_box(board, -bw / 2 - f, bw / 2 + f, -bh / 2 - f, bh / 2 + f, -f, -0.0005)]
    return out


def technician_skin_tints(board: BoardPlan, parts: dict[str, list]) -> np.ndarray:
    """core/face_tint's (flush, shadow, stubble, brows) for every vertex of the skin's meshes in `parts` (as
    technician_parts gives them), in order: the face's regions from its own eyes and lips."""
    skin = np.concatenate([v for v, _ in parts["skin"]])

    def points(key):
        return np.concatenate([v for v, _ in parts.get(key, [])] or [np.zeros((0, 3))])

    iris = points("eyes")
    return skin_tints(skin, iris, np.concatenate([iris, points("sclera")]), points("lips"),
                      technician_shape(board).gender, technician_stubble(board))


def technician_footprint(board: BoardPlan):
    """An oriented box around the technician and the held board (core.parking_lot.Box)."""
    from .parking_lot import Box

    a = math.radians(board.facing_deg)
    fwd = np.array([math.cos(a), math.sin(a)])
    c = np.asarray(board.feet_xy) + 0.12 * fwd
    return Box(float(c[0]), float(c[1]), TECH_HALF_SIZE_M[0], TECH_HALF_SIZE_M[1], board.facing_deg, 0.0, 1.8,
               "Technician")

"""US licence plates (pure): states, their usual character formats, and the plate drawn at true size
with the layout of everything drawn on it.

A plate is 12 x 6 in (305 x 152 mm): the state's name along the top, the characters in one
row, a slogan along the bottom, four mounting holes. The characters come from the package's
own single-stroke font (core/lettering.py), fitted to the plate's width; the layout records
the drawn row (text, box, cap height), which the px-per-character term projects into the image
and the tests read back.

Format letters: L = a letter (no I, O or Q, which states avoid), N = a digit; other characters
(space, dash) are printed as they are.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import lettering
from .lettering import TextLayout, TextRow
from .rng import pick
from .vehicle_details import PLATE_SIZE_M

LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
DIGITS = "0123456789"


@dataclass(frozen=True)
class StateStyle:
    name: str  # as printed along the top
    formats: tuple[str, ...]
    background: tuple[int, int, int]  # sRGB
    characters: tuple[int, int, int]
    header: tuple[int, int, int]
    slogan: str
    front_required: bool
    share: float  # of the plates in a lot, away from home


STATES: dict[str, StateStyle] = {
    "CALIFORNIA": StateStyle("CALIFORNIA", ("NLLLNNN",), (238, 238, 236), (22, 34, 92), (170, 28, 32),
                             "DMV.CA.GOV", True, 0.16),
    "TEXAS": StateStyle("TEXAS", ("LLL-NNNN",), (240, 240, 236), (18, 18, 20), (18, 18, 20), "THE LONE STAR STATE",
                        True, 0.12),
    "NEW YORK": StateStyle("NEW YORK", ("LLL-NNNN",), (236, 232, 214), (20, 36, 110), (20, 36, 110), "EXCELSIOR",
                           True, 0.09),
    "FLORIDA": StateStyle("FLORIDA", ("LLL-LNN", "NNN-LLL"), (240, 240, 236), (20, 82, 50), (20, 82, 50),
                          "SUNSHINE STATE", False, 0.09),
    "ILLINOIS": StateStyle("ILLINOIS", ("LL NNNNN",), (238, 238, 236), (150, 24, 30), (20, 36, 110),
                           "LAND OF LINCOLN", True, 0.06),
    "PENNSYLVANIA": StateStyle("PENNSYLVANIA", ("LLL-NNNN",), (240, 240, 236), (20, 36, 110), (20, 36, 110),
                               "VISITPA.COM", False, 0.06),
    "OHIO": StateStyle("OHIO", ("LLL NNNN",), (240, 240, 236), (24, 28, 60), (150, 24, 30), "BIRTHPLACE OF AVIATION",
                       False, 0.05),
    "GEORGIA": StateStyle("GEORGIA", ("LLLNNNN",), (240, 240, 236), (18, 18, 20), (18, 18, 20), "PEACH STATE",
                          False, 0.05),
    "WASHINGTON": StateStyle("WASHINGTON", ("LLLNNNN",), (240, 240, 236), (20, 36, 110), (20, 36, 110),
                             "EVERGREEN STATE", True, 0.05),
    "ARIZONA": StateStyle("ARIZONA", ("LLLNNNN",), (236, 228, 210), (18, 18, 20), (130, 30, 30), "GRAND CANYON STATE",
                          False, 0.05),
    "NEW JERSEY": StateStyle("NEW JERSEY", ("LNN-LLL",), (236, 228, 196), (18, 18, 20), (18, 18, 20),
                             "GARDEN STATE", True, 0.05),
    "MASSACHUSETTS": StateStyle("MASSACHUSETTS", ("NLLLNN",), (240, 240, 236), (150, 24, 30), (20, 36, 110),
                                "THE SPIRIT OF AMERICA", True, 0.05),
    "MICHIGAN": StateStyle("MICHIGAN", ("LLL NNNN",), (240, 240, 236), (18, 18, 20), (18, 18, 20), "PURE MICHIGAN",
                           False, 0.06),
}
STATE_NAMES = tuple(STATES)


@dataclass(frozen=True)
class PlatePlan:
    state: str
    text: str  # as printed, separators included ("ABC-1234")

    @property
    def characters(self) -> str:
        """Letters and digits only (how plates are compared)."""
        return "".join(c for c in self.text if c.isalnum())


def format_plate(fmt: str, rng: np.random.Generator) -> str:
    out = []
    for c in fmt:
        if c == "L":
            out.append(LETTERS[int(rng.integers(len(LETTERS)))])
        elif c == "N":
            out.append(DIGITS[int(rng.integers(len(DIGITS)))])
        else:
            out.append(c)
    return "".join(out)


def matches_format(text: str, fmt: str) -> bool:
    if len(text) != len(fmt):
        return False
    for c, f in zip(text, fmt):
        if f == "L" and c not in LETTERS or f == "N" and c not in DIGITS or f not in "LN" and c != f:
            return False
    return True


def draw_plate(rng: np.random.Generator, state: Optional[str] = None, home_state: Optional[str] = None,
               home_share: float = 0.75) -> PlatePlan:
    """A plate of `state`, or of the lot's `home_state` (most cars) or any state by its share."""
    if state is None:
        if home_state is not None and rng.random() < home_share:
            state = home_state
        else:
            state = pick(rng, STATE_NAMES, [STATES[s].share for s in STATE_NAMES])
    if state not in STATES:
        raise ValueError(f"unknown state {state!r}; one of {', '.join(STATE_NAMES)}")
    fmts = STATES[state].formats
    return PlatePlan(state, format_plate(fmts[int(rng.integers(len(fmts)))], rng))


@dataclass(frozen=True)
class PlateLayout(TextLayout):
    """A plate's rows (roles: state | characters | slogan)."""

    @property
    def text(self) -> str:
        """The characters as drawn."""
        return self.text_of("characters")

    @property
    def char_height_m(self) -> float:
        return self.cap_height_m("characters")


PLATE_PX_PER_MM = 4.0
MAX_CHAR_HEIGHT_MM = 64.0  # 2.5 in


def plate_texture(plate: PlatePlan, px_per_mm: float = PLATE_PX_PER_MM) -> tuple[np.ndarray, PlateLayout]:
    """The plate as an RGB uint8 image (row 0 at the top) and the layout of what was drawn on it."""
    from PIL import Image, ImageDraw

    style = STATES[plate.state]
    w_mm, h_mm = PLATE_SIZE_M[0] * 1000, PLATE_SIZE_M[1] * 1000
    w, h = int(round(w_mm * px_per_mm)), int(round(h_mm * px_per_mm))
    image = Image.new("RGB", (w, h), style.background)
    draw = ImageDraw.Draw(image)
    mm = px_per_mm
    draw.rounded_rectangle([1.5 * mm, 1.5 * mm, w - 1.5 * mm, h - 1.5 * mm], radius=6 * mm,
                           outline=style.characters, width=max(1, int(round(1.2 * mm))))
    rows = []

    def centred(role, text, baseline_mm, cap_mm, width_mm, color):
        cap = lettering.fit_cap_height(text, width_mm * mm, cap_mm * mm)
        x = (w - lettering.text_width(text, cap)) / 2
        drawn = lettering.draw_text(image, text, x, baseline_mm * mm, cap, color=color)
        rows.append(TextRow(role, text, drawn.box_px, baseline_mm * mm, cap, drawn.glyph_boxes_px))

    centred("state", style.name, 25.0, 13.0, 200.0, style.header)
    centred("characters", plate.text, 114.0, MAX_CHAR_HEIGHT_MM, w_mm - 22.0, style.characters)
    centred("slogan", style.slogan, 141.0, 7.5, 220.0, style.header)
    for hx in (w_mm / 2 - 88.9, w_mm / 2 + 88.9):  # the mounting holes, 7 in apart
        for hy in (16.0, 136.0):
            r = 3.2 * mm
            draw.ellipse([hx * mm - r, hy * mm - r, hx * mm + r, hy * mm + r], fill=(70, 70, 72))
    return np.asarray(image), PlateLayout(tuple(rows), px_per_mm, (w, h))

"""The directory card's texture and the layout of what it drew (pure, no bpy).

The texture is a pure function of the card plan (`card_texture`) and comes with the layout of the
rows it actually drew: the ground truth and the px-per-row term read that layout, never the plan's
intentions.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .load_center import CARD_PX_PER_M, INK_COLORS, PAPER_COLORS, CardPlan, LoadCenterPlanError


@dataclass(frozen=True)
class DrawnRow:
    """One row the generator drew: its text pieces, their union box in texture px, and its baseline."""

    kind: str  # title | main | entry
    text: str  # the row as it reads, pieces joined by single spaces
    slot: str  # entry rows: the slot label drawn ("" otherwise)
    name: str  # entry rows: the circuit name drawn
    amps: Optional[int]  # entry / main rows: the amperage drawn (parsed back from its drawn text)
    box_px: tuple[float, float, float, float]  # x0, y_top, x1, y_bottom
    baseline_px: float
    cap_height_px: float
    pieces: tuple = ()  # the lettering module's DrawnText of each piece, left to right
    styles: tuple[str, ...] = ()  # the style each piece was drawn in (typed | hand)


@dataclass(frozen=True)
class CardLayout:
    width_px: int
    height_px: int
    width_m: float  # the card's physical size: the texture spans exactly this
    height_m: float
    rows: tuple[DrawnRow, ...]

    @property
    def px_per_m_x(self) -> float:
        return self.width_px / self.width_m

    @property
    def px_per_m_y(self) -> float:
        return self.height_px / self.height_m

    @property
    def entries(self) -> tuple[DrawnRow, ...]:
        return tuple(r for r in self.rows if r.kind == "entry")

    @property
    def main_amps(self) -> Optional[int]:
        mains = [r.amps for r in self.rows if r.kind == "main"]
        return mains[0] if mains else None

    @property
    def row_pitch_px(self) -> float:
        """Baseline-to-baseline distance of the entry rows as drawn (texture px)."""
        base = np.array([r.baseline_px for r in self.entries])
        if len(base) < 2:
            raise LoadCenterPlanError("a card needs at least two entry rows to have a row pitch")
        return float(np.median(np.diff(base)))

    @property
    def row_pitch_m(self) -> float:
        return self.row_pitch_px / self.px_per_m_y

    def box_m(self, box_px) -> tuple[float, float, float, float]:
        """A texture pixel box (x0, y_top, x1, y_bottom) in metres from the card's centre: (x0, y0, x1, y1), y up."""
        kx, ky = self.px_per_m_x, self.px_per_m_y
        return ((box_px[0] - self.width_px / 2) / kx, (self.height_px / 2 - box_px[3]) / ky,
                (box_px[2] - self.width_px / 2) / kx, (self.height_px / 2 - box_px[1]) / ky)

    def documented_fields_m(self) -> list[tuple[str, str, tuple]]:
        """(field, text as drawn, each inked character's ink box in metres) of everything the ground truth reads
        off the card: the main breaker's amperage and each entry's name and amperage ("main_amps",
        "entries[k].name", "entries[k].amps"); not the printed title, "MAIN" or the slot numbers."""
        fields = [("main_amps", row.pieces[1]) for row in self.rows if row.kind == "main"]
        for k, row in enumerate(self.entries):
            fields += [(f"entries[{k}].name", row.pieces[1]), (f"entries[{k}].amps", row.pieces[2])]
        return [(field, drawn.text, tuple(self.box_m(box) for box in drawn.glyph_boxes_px)) for field, drawn in fields]

    def ground_truth_entries(self) -> list[dict]:
        return [{"name": r.name, "amps": r.amps} for r in self.entries]


def _amps_from_text(text: str) -> int:
    digits = "".join(ch for ch in text if ch.isdigit())
    if not digits:
        raise LoadCenterPlanError(f"no amperage in drawn text {text!r}")
    return int(digits)


def _lettering():
    try:
        from . import lettering
    except ImportError as exc:  # pragma: no cover - the font module ships with the package
        raise LoadCenterPlanError("the card needs realitybench_addon.core.lettering (the built-in font)") from exc
    return lettering


def check_card_text(card: CardPlan) -> None:
    """Every character the card will draw must be one the built-in font has."""
    lettering = _lettering()
    supported = set(lettering.SUPPORTED) | {" "}
    texts = [card.title, f"MAIN {card.main_amps}A"] + [t for e in card.entries for t in (e[0], e[1], f"{e[2]}A")]
    for text in texts:
        bad = sorted(set(text) - supported)
        if bad:
            raise LoadCenterPlanError(f"card text {text!r} uses characters the font lacks: {''.join(bad)!r}")


@functools.lru_cache(maxsize=8)
def card_texture(card: CardPlan, px_per_m: float = CARD_PX_PER_M):
    """The card as an RGB uint8 image (row 0 at the top) and the layout of the rows drawn on it.

    Pre-printed ruled lines every `row_pitch_m` (light blue) and a column rule after the slot
    numbers; the writing sits on the lines. Typed cards use the font's "typed" style throughout;
    hand-lettered cards have a printed heading and slot numbers and the rest written by hand.
    Cached: the same card plan always gives the same image, so the builder and the ground
    truth read one drawing.
    """
    from PIL import Image, ImageDraw

    lettering = _lettering()
    check_card_text(card)
    w = int(round(card.width_m * px_per_m))
    h = int(round(card.height_m * px_per_m))
    scale = h / card.height_m  # the exact vertical scale of the rounded image: rows land at true pitch
    pitch = card.row_pitch_m * scale
    margin = card.margin_m * scale
    paper = PAPER_COLORS[card.paper]
    ink = INK_COLORS[card.ink]
    img = Image.new("RGB", (w, h), paper)
    draw = ImageDraw.Draw(img)
    rng = np.random.default_rng(card.seed)
    hand = card.style == "hand"
    cap = pitch * (0.52 if hand else 0.5)
    printed = (40, 40, 44)  # pre-printed heading and slot numbers
    rule = (150, 175, 205)
    line_w = max(1, int(round(pitch * 0.04)))
    rows: list[DrawnRow] = []
    x0, x1 = margin, w - margin
    slot_w = lettering.text_width("41,43", cap * 0.85) + 0.3 * pitch
    amps_w = lettering.text_width("100A", cap) + 0.2 * pitch

    def piece(text, x, baseline, cap_h, color, style, max_w):
        cap_fit = min(cap_h, lettering.fit_cap_height(text, max_w, cap_h)) if max_w else cap_h
        return lettering.draw_text(img, text, x, baseline, cap_fit, color=color, style=style,
                                   rng=rng if style == "hand" else None)

    def union(boxes):
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))

    baseline = margin + pitch * 0.8
    if card.title:
        t = piece(card.title, x0, baseline, cap * 1.05, printed, "typed", x1 - x0)
        rows.append(DrawnRow("title", t.text, "", "", None, t.box_px, t.baseline_px, t.cap_height_px, (t,),
                             ("typed",)))
        baseline += pitch
    style = "hand" if hand else "typed"
    label = piece("MAIN", x0, baseline, cap, printed if hand else ink, "typed", None)
    value = piece(f"{card.main_amps}A", label.box_px[2] + 0.4 * pitch, baseline, cap * 1.1, ink, style, None)
    rows.append(DrawnRow("main", f"{label.text} {value.text}", "", "", _amps_from_text(value.text),
                         union([label.box_px, value.box_px]), baseline, cap, (label, value), ("typed", style)))
    # ruled lines under each entry row, a heavier one under the heading block
    first = baseline + pitch * 1.5
    draw.rectangle([x0, baseline + 0.5 * pitch - line_w, x1, baseline + 0.5 * pitch + line_w], fill=rule)
    for i in range(len(card.entries)):
        y = first + i * pitch + 0.22 * pitch
        draw.rectangle([x0, y - line_w / 2, x1, y + line_w / 2], fill=rule)
    top_rule = baseline + 0.5 * pitch
    bottom_rule = first + (len(card.entries) - 1) * pitch + 0.22 * pitch
    draw.rectangle([x0 + slot_w - 0.15 * pitch - line_w / 2, top_rule, x0 + slot_w - 0.15 * pitch + line_w / 2,
                    bottom_rule], fill=rule)
    draw.rectangle([x1 - amps_w - line_w / 2, top_rule, x1 - amps_w + line_w / 2, bottom_rule], fill=rule)
    for i, (slot, name, amps) in enumerate(card.entries):
        base = first + i * pitch
        s = piece(slot, x0, base, cap * 0.85, printed if hand else ink, "typed", slot_w - 0.4 * pitch)
        n = piece(name, x0 + slot_w + 0.05 * pitch, base, cap, ink, style,
                  x1 - amps_w - 0.15 * pitch - (x0 + slot_w + 0.05 * pitch))
        a = piece(f"{amps}A", x1 - amps_w + 0.15 * pitch, base, cap, ink, style, amps_w - 0.2 * pitch)
        rows.append(DrawnRow("entry", f"{s.text} {n.text} {a.text}", s.text, n.text, _amps_from_text(a.text),
                             union([s.box_px, n.box_px, a.box_px]), base, cap, (s, n, a), ("typed", style, style)))
    layout = CardLayout(w, h, card.width_m, card.height_m, tuple(rows))
    pixels = np.asarray(img).copy()
    pixels.setflags(write=False)  # cached and shared: nobody may draw on it
    return pixels, layout


def card_layout(card: CardPlan) -> CardLayout:
    return card_texture(card)[1]

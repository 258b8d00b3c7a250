"""A tape measure standing on the roof: its geometry (pure) and its blade's printed scale.

The blade's zero is the hook, resting on the shingles; the blade rises along `axis`
(the roof normal leaned by `lean_deg` towards `lean_dir_deg`, measured in the roof plane
from +u) with its printed face towards `face`. The scale is generated at true size:
1/16 in ticks, a number every inch.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from .roof import INCH, RoofPlan

if TYPE_CHECKING:
    from .product_shapes import RoundedRect

BLADE_WIDTH_M = INCH  # a 1 in blade
BLADE_THICKNESS_M = 0.00015
PX_PER_INCH = 160  # texture resolution: 10 px per 1/16 in tick


@dataclass(frozen=True)
class TapePlan:
    col: int
    u: float  # hook position along the eave
    v: float  # hook position up the slope (just in front of the module's lower edge)
    lean_deg: float
    lean_dir_deg: float
    yaw_deg: float  # the printed face turned about the blade's axis, from facing straight downslope
    length_m: float  # hook to case

    @property
    def tilted(self) -> bool:
        return self.lean_deg > 5.0

    def to_dict(self) -> dict:
        return asdict(self)


def blade_axes(plan: RoofPlan, tape: TapePlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(axis, face, width) in roof coordinates (u, v, h): unit vectors along the blade, out of its
    printed face, and across it."""
    lean, direction = math.radians(tape.lean_deg), math.radians(tape.lean_dir_deg)
    axis = np.array([math.sin(lean) * math.cos(direction), math.sin(lean) * math.sin(direction), math.cos(lean)])
    face = np.array([0.0, -1.0, 0.0])  # towards the eave, where the worker stands
    face = face - np.dot(face, axis) * axis
    face /= np.linalg.norm(face)
    width = np.cross(axis, face)
    yaw = math.radians(tape.yaw_deg)
    face, width = face * math.cos(yaw) + width * math.sin(yaw), -face * math.sin(yaw) + width * math.cos(yaw)
    return axis, face, width


def hook_v_clear_of_module(plan: RoofPlan, lean_deg: float, lean_dir_deg: float, yaw_deg: float) -> float:
    """The largest hook position v that keeps the whole blade in front of the module's lower edge."""
    probe = TapePlan(0, 0.0, 0.0, lean_deg, lean_dir_deg, yaw_deg, 0.3)
    axis, face, width = blade_axes(plan, probe)
    top_h = plan.module_bottom_h + plan.module_thickness_m
    s_top = top_h / axis[2]
    reach = max(0.0, s_top * axis[1]) + 0.5 * BLADE_WIDTH_M * abs(width[1]) + BLADE_THICKNESS_M
    return plan.array_v0 - 0.004 - reach


def draw_tape(plan: RoofPlan, rng: np.random.Generator) -> TapePlan:
    """Half the tapes are seated flush (lean under 5 degrees), half lean 5-25 degrees, any direction."""
    col = int(rng.integers(max(plan.installed_cols, 1)))
    u0, _ = plan.module_origin(0, col)
    u = float(u0 + rng.uniform(0.15, plan.module_width_m - 0.15))
    lean = float(rng.uniform(0.0, 4.5)) if rng.random() < 0.5 else float(rng.uniform(5.5, 25.0))
    lean_dir = float(rng.uniform(0.0, 360.0))
    yaw = float(rng.normal(0.0, 12.0))
    v = hook_v_clear_of_module(plan, lean, lean_dir, yaw) - float(rng.uniform(0.0, 0.02))
    length = plan.module_bottom_h + float(rng.uniform(0.12, 0.3))
    return TapePlan(col, u, v, lean, lean_dir, yaw, length)


def module_front_edge(plan: RoofPlan) -> tuple[np.ndarray, np.ndarray]:
    """The lower row's front-bottom edge (roof coordinates): where the module's underside meets its front."""
    h = plan.module_bottom_h
    return np.array([plan.array_u0, plan.array_v0, h]), np.array([plan.array_u1, plan.array_v0, h])


@dataclass(frozen=True)
class ScaleMark:
    position_in: float  # from the hook, inches
    length_frac: float  # tick length as a fraction of the blade width
    label: str  # the printed number at inch marks, else ""


def scale_marks(length_in: float) -> list[ScaleMark]:
    marks = []
    for k in range(1, int(length_in * 16) + 1):
        pos = k / 16
        if k % 16 == 0:
            marks.append(ScaleMark(pos, 0.42, str(k // 16)))
        elif k % 8 == 0:
            marks.append(ScaleMark(pos, 0.32, ""))
        elif k % 4 == 0:
            marks.append(ScaleMark(pos, 0.24, ""))
        elif k % 2 == 0:
            marks.append(ScaleMark(pos, 0.18, ""))
        else:
            marks.append(ScaleMark(pos, 0.12, ""))
    return marks


def blade_texture(length_in: float, px_per_inch: int = PX_PER_INCH) -> np.ndarray:
    """The printed blade as an RGB uint8 image: x along the blade from the hook, y across it.

    Ticks hang from both edges; each inch number sits centred across the blade, just past its line.
    """
    from PIL import Image, ImageDraw, ImageFont

    width_px = int(math.ceil(length_in * px_per_inch))
    height_px = px_per_inch
    img = Image.new("RGB", (width_px, height_px), (222, 170, 20))
    draw = ImageDraw.Draw(img)
    try:
        font = ImageFont.load_default(size=int(px_per_inch * 0.36))
    except TypeError:  # Pillow < 10.1 has only its small bitmap font
        font = ImageFont.load_default()
    line = max(2, px_per_inch // 80)
    for mark in scale_marks(length_in):
        x = mark.position_in * px_per_inch
        tick = mark.length_frac * height_px
        draw.rectangle([x - line / 2, 0, x + line / 2, tick], fill=(15, 12, 10))
        draw.rectangle([x - line / 2, height_px - tick, x + line / 2, height_px], fill=(15, 12, 10))
        if mark.label:
            box = draw.textbbox((0, 0), mark.label, font=font)
            tw, th = box[2] - box[0], box[3] - box[1]
            draw.text((x - tw - 0.06 * px_per_inch - box[0], (height_px - th) / 2 - box[1]), mark.label,
                      fill=(15, 12, 10), font=font)
    return np.asarray(img)


# The case as a product (pure geometry in the blade's frame: X across the blade, Y out of its printed face,
# Z along it from the hook; the case sits on the blade's end at Z = length). Every part except the belt clip
# lies inside the box the case used to be (X +-18 mm, Y -45..+30 mm, Z 0..75 mm above the blade's end), so
# the moulded case hides no more of the blade or the roof than the box did.
CASE_HALF_THICKNESS_M = 0.018
CASE_Y = (-0.045, 0.03)
CASE_HEIGHT_M = 0.075
# corner radii of the case's side outline (Y, Z): back-bottom, front-bottom (the mouth), front-top, back-top
CASE_RADII_M = (0.010, 0.008, 0.018, 0.024)
SHELL_INSET_M = 0.0012  # the hard shell sits this far inside the rubber outline
SHELL_HALF_THICKNESS_M = 0.0165
RIM_WIDTH_M = 0.005  # the rubber overmould framing each side
BRAND = "HOLTVEX"  # an invented maker
CASE_PRINT = ("HOLTVEX", "25FT / 7.5M")


def case_outline(length_m: float) -> "RoundedRect":
    """The case's side outline (a = Y, b = Z): a rounded square, tightest at the mouth where the blade leaves."""
    from .product_shapes import RoundedRect

    return RoundedRect(CASE_Y[0], CASE_Y[1], length_m, length_m + CASE_HEIGHT_M, CASE_RADII_M)


def case_parts(length_m: float) -> dict:
    """The case's parts as (vertices, faces) in the blade's frame: the moulded shell, the rubber overmould
    (a rim on each side and the bumper over the mouth), the belt clip on the -X side, the slot the blade
    leaves by."""
    from .product_shapes import RoundedRect, merge, place, rim, rounded_slab, strip

    outline = case_outline(length_m)
    shell_rect = outline.inset(SHELL_INSET_M)
    shell = rounded_slab(shell_rect, -SHELL_HALF_THICKNESS_M, SHELL_HALF_THICKNESS_M, bevel=0.0015)
    opening = shell_rect.inset(RIM_WIDTH_M)
    rims = [rim(shell_rect, opening, 0.0158, 0.0178), rim(shell_rect, opening, -0.0178, -0.0158)]
    bumper_rect = RoundedRect(0.003, CASE_Y[1], length_m, length_m + 0.024, (0.004, CASE_RADII_M[1], 0.004, 0.004))
    bumper = rounded_slab(bumper_rect, -0.0175, 0.0175, bevel=0.002)
    # the clip: spring steel riveted near the top of the -X side, running down it, its tip flared out
    top = length_m + CASE_HEIGHT_M - 0.012
    clip_path = np.array([[-0.0160, top], [-0.0202, top], [-0.0212, top - 0.004], [-0.0212, length_m + 0.022],
                          [-0.0222, length_m + 0.014], [-0.0240, length_m + 0.010]])
    clip = strip(clip_path, 0.0012, -0.026, -0.010)  # (a = X, b = Y, c = Z)
    slot = rounded_slab(RoundedRect(-0.003, 0.0035, length_m, length_m + 0.0015, (0.0006,) * 4), -0.0136, 0.0136)
    return {"shell": place(shell, "yzx"), "overmould": merge(*(place(r, "yzx") for r in rims), place(bumper, "yzx")),
            "clip": clip, "slot": place(slot, "yzx")}


def hook_parts() -> dict:
    """The hook at the blade's zero: the foot lying on the shingles (rounded, as stamped) and the tab riveted
    to the blade's back (behind the printed face, so it hides none of it), with two rivet heads."""
    from .product_shapes import RoundedRect, merge, place, rounded_slab

    half = BLADE_WIDTH_M / 2
    foot = rounded_slab(RoundedRect(-half, half, -0.012, 0.004, (0.002,) * 4), 0.0, 0.0012)  # (X, Y, Z)
    tab = rounded_slab(RoundedRect(-0.011, 0.011, 0.0, 0.02, (0.001, 0.001, 0.004, 0.004)),
                       -BLADE_THICKNESS_M - 0.001, -BLADE_THICKNESS_M)  # (X, Z, Y)
    rivets = [rounded_slab(RoundedRect(x - 0.0018, x + 0.0018, 0.0118, 0.0154, (0.0018,) * 4),
                           -BLADE_THICKNESS_M - 0.0016, -BLADE_THICKNESS_M - 0.001) for x in (-0.006, 0.006)]
    return {"hook": merge(foot, place(tab, "xzy"), *(place(r, "xzy") for r in rivets))}


def case_print_texture(px_per_mm: float = 10.0) -> np.ndarray:
    """The print on the case's side inside the overmould (Y across, Z up): the maker's name and the blade's
    length in black on the shell's yellow. RGB uint8, row 0 at the top (the case's top)."""
    from PIL import Image

    from . import lettering

    w_m, h_m = case_print_size_m()
    w, h = int(round(w_m * 1000 * px_per_mm)), int(round(h_m * 1000 * px_per_mm))
    image = Image.new("RGB", (w, h), CASE_PRINT_BACKGROUND)
    cap = lettering.fit_cap_height(CASE_PRINT[0], 0.84 * w, 0.24 * h)
    x = (w - lettering.text_width(CASE_PRINT[0], cap)) / 2
    lettering.draw_text(image, CASE_PRINT[0], x, 0.42 * h, cap, color=(22, 22, 24), stroke_px=0.2 * cap)
    small = lettering.fit_cap_height(CASE_PRINT[1], 0.6 * w, 0.1 * h)
    x = (w - lettering.text_width(CASE_PRINT[1], small)) / 2
    lettering.draw_text(image, CASE_PRINT[1], x, 0.6 * h, small, color=(22, 22, 24))
    return np.asarray(image)


CASE_PRINT_BACKGROUND = (225, 195, 39)  # the shell's yellow (linear 0.75, 0.55, 0.02) as sRGB


def case_print_size_m() -> tuple[float, float]:
    """The printed panel's size (Y, Z): the opening inside the overmould rim, less a millimetre each side."""
    inner = case_outline(0.0).inset(SHELL_INSET_M + RIM_WIDTH_M + 0.001)
    return inner.a1 - inner.a0, inner.b1 - inner.b0

"""breaker_label: the circuit directory card beside a house's load center.

Ground truth: `main_amps`, the main breaker's rating, and `entries`, every circuit row the
card's texture generator actually drew ({"name", "amps"}, in card order), read from the
card's drawn layout (`core.directory_card.card_texture`), never from a render.

Target: the card. Terms: blur at the card's centre, card samples in frame / unoccluded (the
open door and the box can hide it), the card's row pitch projected at its worst drawn row
(px per text row), the view angle at the card, its bounding-box share, and from the render
the Weber contrast and the saturated share inside the card's mask.

Field poses: an electrician standing in front of the panel, mostly aiming at the panel or
its breakers from a step or two back, sometimes stepping in to the card.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import image_terms
from ..core.directory_card import card_layout
from ..core.doc_fields import FieldRule, READING
from ..core.feasibility import Chord
from ..core.load_center import LoadCenterPlan, draw_load_center_plan
from ..core.optics import px_per_unit, view_angle_deg
from ..core.prompt import DocKey, PromptParts
from ..core.rng import log_uniform, pick, stage_rng
from .base import Environment, FieldPose, FrameContext
from .measurements import (WrittenField, WrittenSurface, capture_terms, field_contrast_terms, glyph_terms,
                           group_measurements)
from .poses import Posture, aim_with_error

CARD = "Panel_Card"
AIMS = ("card", "panel", "breakers", "main")


@dataclass(frozen=True)
class LoadCenterPoseModel:
    postures: tuple[Posture, ...]  # distance_m from the aimed point; height_m, or height_sd_m around its height
    aim_shares: dict  # aim -> share
    azimuth_sd_deg: float  # spread of where the worker stands, around square-on to the wall
    aim_sd_deg: float
    roll_sd_deg: float = 4.0
    height_m: tuple[float, float] = (1.2, 1.8)  # the phone's height range in the room


EYE_LEVEL_M = (1.2, 1.8)  # standing back, the phone at eye level: the room's whole height range
POSES = LoadCenterPoseModel(
    postures=(Posture("standing back for the whole panel", 0.55, height_m=EYE_LEVEL_M, distance_m=(1.0, 3.0)),
              Posture("at arm's length", 0.3, distance_m=(0.5, 1.1), height_sd_m=0.15),
              Posture("stepped in close", 0.15, distance_m=(0.28, 0.6), height_sd_m=0.1)),
    aim_shares={"card": 0.3, "panel": 0.35, "breakers": 0.25, "main": 0.1},
    azimuth_sd_deg=22.0, aim_sd_deg=4.0)


def aim_point(plan: LoadCenterPlan, aim: str) -> np.ndarray:
    if aim == "card":
        return plan.card_frame()[0]
    if aim == "panel":
        return plan.panel_center()
    if aim == "breakers":
        return plan.breakers_center()
    if aim == "main":
        return plan.main_breaker_center()
    raise ValueError(f"unknown aim {aim!r}; expected one of {', '.join(AIMS)}")


def draw_load_center_pose(plan: LoadCenterPlan, aim: str, model: LoadCenterPoseModel, rng: np.random.Generator) -> FieldPose:
    """Where the electrician holds the phone: in the room, in front of the wall, at a stance's distance
    from the aimed point; aimed there with a hand's error."""
    target = aim_point(plan, aim)
    posture = pick(rng, model.postures)
    center_az = 0.0
    if aim == "card":  # facing a card on the open door, people turn a little towards it
        n = plan.card_frame()[3]
        center_az = 0.6 * math.degrees(math.atan2(n[0], -n[1]))
    lo_h, hi_h = model.height_m
    for _attempt in range(64):
        d = log_uniform(rng, *posture.distance_m)
        az = math.radians(center_az + rng.normal(0.0, model.azimuth_sd_deg))
        if posture.height_m is not None:
            z = float(rng.uniform(*posture.height_m))
        else:
            z = float(np.clip(target[2] + rng.normal(0.0, posture.height_sd_m), lo_h, hi_h))
        dz = z - target[2]
        horizontal = math.sqrt(max(d * d - dz * dz, (0.25 * d) ** 2))
        position = np.array([target[0] + horizontal * math.sin(az), target[1] - horizontal * math.cos(az), z])
        inside = (plan.room_x0 + 0.2 <= position[0] <= plan.room_x1 - 0.2
                  and -plan.room_depth_m + 0.2 <= position[1] <= -0.15)
        if inside:
            break
    else:  # nothing in the room drawn: step straight back from the aimed point
        position = np.array([target[0], max(target[1] - posture.distance_m[0], -plan.room_depth_m + 0.3),
                             float(np.clip(target[2], lo_h, hi_h))])
    aimed = aim_with_error(rng, position, target, model.aim_sd_deg)
    return FieldPose(tuple(map(float, position)), tuple(map(float, aimed)), float(rng.normal(0.0, model.roll_sd_deg)),
                     f"{posture.name}, aiming at the {AIM_WORDS[aim]}")


AIM_WORDS = {"card": "directory card", "panel": "panel", "breakers": "breaker rows", "main": "main breaker"}


# The pixel-size terms core/feasibility.py bounds over every pose, so an export refuses a positive stratum
# that no frame could pass at its --resolution.
# core/load_center.py: card height = (1.2 margins + header rows (>= 1) + 0.5 + entries) row pitches, and
# draw_circuits draws at least 8 circuits. text_row_px is the smallest row's: at most the row whose
# text box centre lies within one pitch of the card's centre.
_ROW_SIGMA = 1.0 / (1.2 + 1 + 0.5 + 8)
FEATURES = (Chord("text_row_px", "card_in_frame", _ROW_SIGMA, 0.5 - _ROW_SIGMA),)


class BreakerLabel(Environment):
    name = "breaker_label"
    features = FEATURES
    subject = "the directory card"
    # field_contrast_min reads rows a few pixels tall: at half size their ink blurs into the paper
    quick_render_scale = 1.0
    scene_kind = "panel"
    outdoor = False  # a utility room: the sun comes in through a window, the sky is never in frame
    poses_per_scene = 4
    prompt_parts = PromptParts(
        worker="an electrician",
        work="the circuit directory of a house's electrical panel (load center)",
        requirement=("a sharp photo taken close to, and nearly square-on to, the circuit directory card beside the "
                     "breakers, with the whole card in the frame and every circuit name and amperage on it readable. "
                     "A photo of the whole panel in which the card's writing cannot be read, or of the breakers "
                     "without the card, does not meet it."),
        question=("What is the main breaker's rating, and which circuits does the directory card list, each with its "
                  "name and amperage?"),
        keys=(DocKey("main_amps", "number", "the main breaker's rating in amperes, as a JSON number (for example 200)",
                     skill=READING),
              DocKey("entries", "array",
                     'a JSON array with one object per circuit row on the card, in the order the card lists them; '
                     'each object has exactly two keys: "name", the circuit\'s name as written on the card (a JSON '
                     'string, without the space numbers), and "amps", its amperage as a JSON number (for example '
                     '[{"name": "DRYER", "amps": 30}, {"name": "KITCHEN COUNTER", "amps": 20}])',
                     skill=READING, rule=FieldRule("rows", row_keys=(("name", "string"), ("amps", "number"))))),
    )

    def draw_scene(self, rng) -> LoadCenterPlan:
        return draw_load_center_plan(stage_rng(rng, "panel"))

    def build(self, scene, plan: LoadCenterPlan, rng):
        from ..bl.load_center import build_load_center_scene

        return build_load_center_scene(scene, plan, stage_rng(rng, "panel-cosmetic"))

    def describe_scene(self, plan: LoadCenterPlan) -> dict:
        return {"kind": "panel", "wall_finish": plan.wall_finish, "wall_color": plan.wall_color, "mount": plan.mount,
                "main_amps": plan.main_amps, "spaces": plan.spaces, "circuits": len(plan.circuits),
                "hinge_side": "left" if plan.hinge_side < 0 else "right",
                "door_angle_deg": round(plan.door_angle_deg, 1), "card_placement": plan.card_placement,
                "card_style": plan.card.style, "card_size_mm": [round(plan.card.width_m * 1000, 1),
                                                                round(plan.card.height_m * 1000, 1)],
                "card_row_pitch_mm": round(plan.card.row_pitch_m * 1000, 2), "card_ink": plan.card.ink,
                "card_paper": plan.card.paper, "card_glossy": plan.card.glossy,
                "window": {0: "none", -1: "left", 1: "right"}[plan.window_side]}

    def draw_target(self, plan: LoadCenterPlan, rng) -> dict:
        return {"card": CARD, "aim": str(pick(rng, list(POSES.aim_shares), list(POSES.aim_shares.values())))}

    def target_point(self, plan: LoadCenterPlan, target: dict) -> np.ndarray:
        """The point the phone focuses on: the aimed point (the card, the panel, its breakers or the main)."""
        return aim_point(plan, target.get("aim", "card"))

    def draw_pose(self, plan: LoadCenterPlan, target: dict, rng) -> FieldPose:
        return draw_load_center_pose(plan, target.get("aim", "card"), POSES, rng)

    def pose_space(self, plan: LoadCenterPlan, target: dict):
        """Suggest a Pose frames the card, whatever the photo was aimed at: the requirement is the card's."""
        from ..core.phone import MIN_FOCUS_M
        from ..core.pose_search import OrbitSpace

        return OrbitSpace(aim_point(plan, "card"), MIN_FOCUS_M)

    def pose_feasible(self, plan: LoadCenterPlan, target: dict, position):
        """In the room, in front of the wall, between knee height and a raised arm."""
        from ..core.phone import PHONE_REACH_M

        x, y, z = (float(c) for c in position)
        if not (plan.room_x0 + 0.1 <= x <= plan.room_x1 - 0.1 and -plan.room_depth_m + 0.1 <= y <= -0.03):
            return "outside the room, or in the wall"
        if not 0.3 <= z <= PHONE_REACH_M:
            return f"not between knee height and a raised arm (0.3 to {PHONE_REACH_M} m above the floor)"
        return None

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return [CARD]

    @staticmethod
    def layout(ctx: FrameContext):
        built = ctx.built
        layout = getattr(built, "layout", None)
        return layout if layout is not None else card_layout(ctx.plan.card)

    def row_points(self, plan: LoadCenterPlan, layout) -> np.ndarray:
        """World centres of the entry rows actually drawn (their text boxes' centres)."""
        return np.array([plan.card_point((r.box_px[0] + r.box_px[2]) / 2, (r.box_px[1] + r.box_px[3]) / 2,
                                         layout) for r in layout.entries])

    def written_surface(self, ctx: FrameContext) -> WrittenSurface:
        """The main amperage and every entry's name and amperage; each character's size is the row pitch,
        the unit of text_row_px."""
        layout = self.layout(ctx)
        pitch = layout.row_pitch_m
        return WrittenSurface(ctx.plan.card_frame(), (CARD,), tuple(WrittenField(name, text, boxes, pitch)
                                                                  for name, text, boxes in layout.documented_fields_m()))

    def measure(self, ctx: FrameContext) -> dict:
        plan: LoadCenterPlan = ctx.plan
        group = group_measurements(ctx, [CARD], n_samples=900)
        camera = group["camera"]
        center, right, up, normal = plan.card_frame()
        layout = self.layout(ctx)
        pitch = layout.row_pitch_m
        row_px = [px_per_unit(camera, p, up, pitch) for p in self.row_points(plan, layout)]
        return {
            **glyph_terms(ctx, self.written_surface(ctx)),
            **capture_terms(ctx, "card", center, group["in_frame"], group["unoccluded"]),
            "text_row_px": float(min(row_px)),
            "view_angle": view_angle_deg(camera.position, center, normal),
            "card_bbox": group["bbox"],
            "camera_distance_m": float(np.linalg.norm(camera.position - center)),
            "row_pitch_mm": pitch * 1000.0,
            "card_rows": len(layout.entries),
        }

    def measure_image(self, ctx: FrameContext, frame, display) -> dict:
        mask = frame.mask([CARD])
        return {"weber_contrast": image_terms.weber_contrast(frame.linear_rgb, mask),
                "saturated_fraction": image_terms.saturated_fraction(display, mask),
                "paper_luminance": image_terms.paper_luminance(frame.linear_rgb, mask),
                **field_contrast_terms(ctx, self.written_surface(ctx), display, mask)}

    def ground_truth(self, ctx: FrameContext) -> dict:
        layout = self.layout(ctx)
        return {"main_amps": layout.main_amps, "entries": layout.ground_truth_entries()}


ENVIRONMENT = BreakerLabel()

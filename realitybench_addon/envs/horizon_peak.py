"""horizon_peak: photos of the surrounding skyline from a house's roof peak, turning in place.

Scene: a house drawn from `core/house.py`'s shapes (re-covered with the roof scene's shingles)
inside a full 360-degree surrounding (`core/surroundings.py`). The photographer's spot is drawn
per scene (`Station`): mostly at the main ridge (standing, crouching or kneeling), sometimes
lower on a slope or on a ladder at the eave, where the camera falls below the ridge. The
frames of one scene are one turn in place: frame k of the scene looks towards the scene's
start azimuth + k x 45 degrees (hand jitter added), with its own pitch and roll.

Measurements are analytic (`core/skyline.py`): the true skyline per image column from the
surroundings' triangles, own-house occlusion by ray/triangle tests against the house's own
roof planes, caps, walls and chimney; `tests/test_horizon_peak.py` checks both against
Blender ray casts on the built scene.

Ground truth: `horizon_visible` (the skyline is in the frame and not hidden by the own roof
across at least half the image width), `level` (|roll| <= 10 degrees: the horizon tilts by the
roll), `own_roof_blocks` (the own roof hides more than 10% of the horizon arc in the frame: the
`own_roof_hides_horizon` term's threshold).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import skyline as sk
from ..core.doc_fields import JUDGMENT
from ..core.house import (HousePlan, footprint_radius, occluder_triangles, ridge_line, roof_height_at, roof_planes,
                          slope_planes)
from ..core.house_draw import draw_house
from ..core.prompt import DocKey, PromptParts
from ..core.rng import pick, stage_rng
from ..core.surroundings import SurroundingsPlan, draw_surroundings
from ..core.surroundings_meshes import skyline_edges
from .base import Environment, FieldPose, FrameContext
from .poses import Posture

TURN_STEP_DEG = 45.0
LEVEL_ROLL_DEG = 10.0  # `level`: the horizon tilts by at most this much
VISIBLE_SHARE = 0.5  # `horizon_visible`: the skyline shows across at least this share of the width
BLOCKS_SHARE = 0.1  # `own_roof_blocks`: the own roof hides more than this share of the horizon arc


@dataclass(frozen=True)
class Station:
    """Where the photographer turns in place: the phone's nominal position and the turn's start."""

    kind: str  # ridge | slope | ladder
    posture: str
    eye: tuple[float, float, float]
    turn_start_deg: float


STATION_KINDS = (("ridge", 0.65), ("slope", 0.2), ("ladder", 0.15))
RIDGE_POSTURES = (Posture("standing at the ridge", 0.5, (1.35, 1.62)),
                  Posture("crouching at the ridge", 0.3, (0.85, 1.1)),
                  Posture("kneeling at the ridge", 0.2, (0.55, 0.75)))
SLOPE_POSTURES = (Posture("standing on the slope", 0.4, (1.35, 1.62)),
                  Posture("crouching on the slope", 0.35, (0.85, 1.1)),
                  Posture("kneeling on the slope", 0.25, (0.55, 0.75)))
# (share, mean, sd) of the view's pitch in degrees: at the skyline, down at the roof and the yard, up at
# the treetops and the sky, steeply down at the roof underfoot
PITCH_MIX = ((0.3, -6.0, 11.0), (0.35, -32.0, 12.0), (0.25, 17.0, 10.0), (0.1, -55.0, 8.0))
ROLL_STEADY_SD_DEG = 3.0
ROLL_TILTED_SHARE = 0.22
ROLL_TILTED_DEG = (12.0, 30.0)
YAW_JITTER_SD_DEG = 7.0
EYE_JITTER_SD_M = 0.03
RIDGE_STANDING_EYE_M = 1.45  # a worker standing at the ridge holds the phone this far above it


@dataclass(frozen=True)
class HorizonScene:
    house: HousePlan
    surroundings: SurroundingsPlan
    station: Station
    sun_elevation_deg: float
    sun_azimuth_deg: float
    sun_strength: float


def draw_station(house: HousePlan, rng: np.random.Generator) -> Station:
    """The photographer's spot: at the main ridge, lower on one of its slopes, or on a ladder at an eave."""
    kind = pick(rng, STATION_KINDS, [share for _, share in STATION_KINDS])[0]
    start = float(rng.uniform(0.0, 360.0))
    a, b = ridge_line(house)
    length = float(np.linalg.norm(b - a))
    chim = house.chimney

    def ridge_point():
        for _ in range(32):
            s = float(rng.uniform(0.15, 0.85)) if length > 1.0 else 0.5
            p = a + s * (b - a)
            if chim is None or math.hypot(p[0] - chim.center[0], p[1] - chim.center[1]) > 1.4:
                return p
        return a + 0.5 * (b - a)

    if kind == "ridge":
        posture = pick(rng, RIDGE_POSTURES)
        p = ridge_point()
        eye = p + np.array([0.0, 0.0, float(rng.uniform(*posture.height_m)) - 0.05])
        return Station("ridge", posture.name, tuple(map(float, eye)), start)
    planes = slope_planes(house)
    plane = planes[int(rng.integers(len(planes)))]
    down = -plane.axes[:, 1].copy()
    down[2] = 0.0
    down /= np.linalg.norm(down)  # horizontal, away from the ridge
    run_to_eave = float(plane.top_v * math.cos(math.radians(plane.pitch_deg)))
    if kind == "slope":
        posture = pick(rng, SLOPE_POSTURES)
        for _ in range(32):
            p = ridge_point()
            run = float(rng.uniform(1.2, 3.0))
            run = min(run, max(0.6, run_to_eave - 0.8))
            xy = p[:2] + run * down[:2]
            if plane.contains_xy(xy[None], margin=0.3)[0]:
                break
        feet_z = float(roof_height_at(house, xy[None])[0])  # the top roof there (another wing may join)
        eye = np.array([xy[0], xy[1], feet_z + float(rng.uniform(*posture.height_m))])
        return Station("slope", posture.name, tuple(map(float, eye)), start)
    # on a ladder leaning on an eave of the main wing: head and phone just above the eave, outside it
    eaves = [q for q in roof_planes(house) if q.wing == house.main.name and q.edges[0] == "eave"]
    for _ in range(32):  # not where another wing's roof joins the eave
        plane = eaves[int(rng.integers(len(eaves)))]
        u0, u1 = plane.polygon_uv[0][0], plane.polygon_uv[1][0]
        at = plane.to_world([[u0 + float(rng.uniform(0.25, 0.75)) * (u1 - u0), 0.0, 0.0]])[0]
        out = -plane.axes[:, 1].copy()
        out[2] = 0.0
        out /= np.linalg.norm(out)
        xy = at[:2] + 0.45 * out[:2]
        if np.isnan(roof_height_at(house, xy[None])[0]):
            break
    eye = np.array([xy[0], xy[1], at[2] + float(rng.uniform(0.3, 1.2))])
    return Station("ladder", "on a ladder at the eave", tuple(map(float, eye)), start)


def _draw_pitch(rng: np.random.Generator) -> float:
    _, mean, sd = pick(rng, PITCH_MIX, [m[0] for m in PITCH_MIX])
    return float(np.clip(rng.normal(mean, sd), -70.0, 70.0))


def _draw_roll(rng: np.random.Generator) -> float:
    if rng.random() < ROLL_TILTED_SHARE:
        return float(rng.choice([-1.0, 1.0]) * rng.uniform(*ROLL_TILTED_DEG))
    return float(np.clip(rng.normal(0.0, ROLL_STEADY_SD_DEG), -8.0, 8.0))


class HorizonPeak(Environment):
    name = "horizon_peak"
    subject = "the skyline"
    scene_kind = "house"
    poses_per_scene = 8  # one turn in place: 8 x 45 degrees
    prompt_parts = PromptParts(
        worker="a solar installer",
        work="a shading survey from the peak of a roof: a turn in place at the ridge, one photo per direction",
        requirement=("one photo of that set, taken from the height of the roof's ridge, showing the skyline of "
                     "the surroundings (trees, hills, buildings against the sky) running across the frame well "
                     "away from its top and bottom edges, with sky above the skyline and the surroundings below "
                     "it across most of the width, the roof the photo is taken from hiding little or none of the "
                     "skyline, and a strip of that roof along the bottom of the frame to show where it was taken."),
        question=("Is the skyline visible in this photo, is the photo level, and does the roof it was taken from "
                  "block much of the skyline?"),
        keys=(DocKey("horizon_visible", "boolean", "true if the skyline, where the surroundings meet the sky, shows "
                                                   "across at least half of the photo's width", skill=JUDGMENT),
              DocKey("level", "boolean", "true if the horizon runs level in the photo (tilted by at most 10 "
                                         "degrees)", skill=JUDGMENT),
              DocKey("own_roof_blocks", "boolean", "true if the roof the photo was taken from hides more than a tenth "
                                                   "of the skyline across the photo")),
    )

    # -- pure draws ------------------------------------------------------------------------------------------

    def draw_scene(self, rng: np.random.Generator) -> HorizonScene:
        house = draw_house(stage_rng(rng, "house"))
        surroundings = draw_surroundings(stage_rng(rng, "surroundings"), footprint_radius(house))
        station = draw_station(house, stage_rng(rng, "station"))
        sun = stage_rng(rng, "sun")
        return HorizonScene(house, surroundings, station, float(sun.uniform(20.0, 65.0)),
                            float(sun.uniform(0.0, 360.0)), float(sun.uniform(2.5, 4.5)))

    def draw_target_for_shot(self, plan: HorizonScene, shot: int, rng: np.random.Generator) -> dict:
        """Frame `shot` of the scene's turn: the direction it faces (the pipeline passes the frame's
        position within its scene)."""
        if not 0 <= shot < self.poses_per_scene:
            raise ValueError(f"shot must be in 0..{self.poses_per_scene - 1}, got {shot}")
        yaw = (plan.station.turn_start_deg + shot * TURN_STEP_DEG) % 360.0
        return {"shot": int(shot), "yaw_deg": round(float(yaw), 6)}

    def draw_target(self, plan: HorizonScene, rng: np.random.Generator) -> dict:
        return self.draw_target_for_shot(plan, int(rng.integers(self.poses_per_scene)), rng)

    def draw_pose(self, plan: HorizonScene, target: dict, rng: np.random.Generator) -> FieldPose:
        eye = np.asarray(plan.station.eye) + rng.normal(0.0, EYE_JITTER_SD_M, 3)
        yaw = math.radians(target["yaw_deg"] + rng.normal(0.0, YAW_JITTER_SD_DEG))
        pitch = math.radians(_draw_pitch(rng))
        roll = _draw_roll(rng)
        direction = np.array([math.cos(pitch) * math.cos(yaw), math.cos(pitch) * math.sin(yaw), math.sin(pitch)])
        return FieldPose(tuple(map(float, eye)), tuple(map(float, eye + 10.0 * direction)), roll,
                         plan.station.posture)

    def pose_space(self, plan: HorizonScene, target: dict):
        """The photographer turns in place: Suggest a Pose changes where the phone points and how high it is
        held (standing, crouching). From below the ridge (a slope, a ladder) it first climbs to the nearest
        point of the ridge and stands there, since the set's photos are taken from the peak."""
        from ..core.pose_search import AimSpace

        eye = np.asarray(plan.station.eye, float)
        if eye[2] < plan.house.peak_z:
            a, b = ridge_line(plan.house)
            ab = b - a
            t = float(np.clip((eye - a)[:2] @ ab[:2] / max(ab[:2] @ ab[:2], 1e-9), 0.0, 1.0))
            eye = a + t * ab + np.array([0.0, 0.0, RIDGE_STANDING_EYE_M])
            return AimSpace(eye, walk_words="climb to the ridge and stand there")
        return AimSpace(eye)

    def pose_feasible(self, plan: HorizonScene, target: dict, position):
        """Held between a kneeling worker's chest and a standing worker's raised arm above the roof under it
        (on the ladder, within a metre of the station's height)."""
        from ..core.phone import PHONE_REACH_M

        roof_z = float(roof_height_at(plan.house, np.asarray(position, float)[None, :2])[0])
        if np.isnan(roof_z):
            return None if abs(float(position[2]) - plan.station.eye[2]) <= 1.0 else "out of reach on the ladder"
        above = float(position[2]) - roof_z
        if not 0.4 <= above <= PHONE_REACH_M:
            return f"not between 0.4 and {PHONE_REACH_M} m above the roof under the phone"
        return None

    def target_point(self, plan: HorizonScene, target: dict) -> np.ndarray:
        """The skyline straight ahead of the turn's nominal direction, seen from the station."""
        return sk.skyline_point(plan.station.eye, target["yaw_deg"], skyline_edges(plan.surroundings))

    # -- Blender ------------------------------------------------------------------------------------------------

    def build(self, scene, plan: HorizonScene, rng: np.random.Generator):
        from ..bl.house import build_house
        from ..bl.sky import add_sky_and_sun, sun_direction
        from ..bl.surroundings import build_surroundings

        sun_dir = sun_direction(plan.sun_elevation_deg, plan.sun_azimuth_deg)
        add_sky_and_sun(scene, sun_dir, plan.sun_strength)
        house = build_house(scene, plan.house, stage_rng(rng, "house-cosmetic"))
        surroundings = build_surroundings(scene, plan.surroundings)
        return BuiltHorizon(house.roof, house.parts, surroundings.objects, tuple(sun_dir.tolist()))

    def _frame_skyline(self, ctx: FrameContext) -> tuple[sk.FrameSkyline, "object"]:
        camera = ctx.pinhole()
        key = tuple(np.asarray(camera.camera_to_world).round(9).ravel()) + (camera.focal_px, camera.width,
                                                                            camera.height)
        cached = ctx.extras.get("skyline")
        if cached is None or cached[0] != key:
            fs = measure_view(ctx.plan, camera)
            ctx.extras["skyline"] = (key, fs, camera)
            cached = ctx.extras["skyline"]
        return cached[1], cached[2]

    def measure(self, ctx: FrameContext) -> dict:
        from .measurements import capture_terms

        plan: HorizonScene = ctx.plan
        fs, camera = self._frame_skyline(ctx)
        azimuth, pitch, roll = sk.camera_attitude(camera.camera_to_world)
        point = fs.center_point
        if not np.all(np.isfinite(point)):
            point = sk.skyline_point(camera.position, azimuth, skyline_edges(plan.surroundings))
        above = float(camera.position[2] - plan.house.peak_z)
        return {
            **capture_terms(ctx, "skyline", point),  # sharp at the skyline; its own terms say where it is
            "horizon_in_band": fs.horizon_in_band,
            "own_roof_hides_horizon": fs.hidden_fraction,
            "sky_and_ground_width": fs.sky_ground_fraction,
            "own_roof_bottom": fs.own_bottom_fraction,
            "camera_at_or_above_ridge": above >= 0.0,
            "camera_above_ridge_m": above,
            "horizon_row_fraction": float(np.clip(fs.horizon_row_fraction, -1.0, 2.0)),
            "skyline_visible_fraction": fs.visible_fraction,
            "skyline_distance_m": float(np.linalg.norm(point - camera.position)),
            "view_azimuth_deg": azimuth,
            "pitch_deg": pitch,
            "roll_deg": roll,
        }

    def ground_truth(self, ctx: FrameContext) -> dict:
        fs, camera = self._frame_skyline(ctx)
        _, _, roll = sk.camera_attitude(camera.camera_to_world)
        return {"horizon_visible": bool(fs.visible_fraction >= VISIBLE_SHARE),
                "level": bool(abs(roll) <= LEVEL_ROLL_DEG),
                "own_roof_blocks": bool(fs.hidden_fraction > BLOCKS_SHARE)}

    def describe_scene(self, plan: HorizonScene) -> dict:
        h = plan.house
        return {"kind": "house", "house_shape": h.shape, "wings": len(h.wings),
                "roofs": sorted({w.roof for w in h.wings}), "ridge_z_m": round(h.peak_z, 3),
                "chimney": h.chimney is not None, "shingle_color": h.shingle_color, "siding": h.siding,
                "station": plan.station.kind, "posture": plan.station.posture,
                "turn_start_deg": round(plan.station.turn_start_deg, 2),
                "surroundings": plan.surroundings.summary(),
                "sun_elevation_deg": round(plan.sun_elevation_deg, 1),
                "sun_azimuth_deg": round(plan.sun_azimuth_deg, 1)}

    def mask_targets(self, ctx: FrameContext) -> list[str]:
        return list(ctx.built.roof)

    # -- the set --------------------------------------------------------------------------------------------------

    @staticmethod
    def set_check(records: list[dict]) -> dict:
        """The set-level check over frame records of one scene (one turn): `turn_coverage` of the view
        azimuths of the accepted frames (four or more directions, no gap over 120 degrees)."""
        if not records:
            raise ValueError("set_check needs at least one frame record")
        scenes = {(r["environment"], r["stratum"], r["set_seed"], r["scene_index"]) for r in records}
        if len(scenes) != 1:
            raise ValueError(f"set_check takes the frames of one scene; got {len(scenes)} scenes")
        yaws = [r["measurements"]["view_azimuth_deg"] for r in records]
        accepted = [r["verdict"] == "accept" for r in records]
        return sk.turn_coverage(yaws, accepted)


@dataclass
class BuiltHorizon:
    roof: list[str]  # the own roof's objects (the mask target)
    house: list[str]
    surroundings: list[str]
    sun_direction: tuple[float, float, float]


def measure_view(plan: HorizonScene, camera) -> sk.FrameSkyline:
    """The skyline terms of `plan` seen by a PinholeCamera (pure: no Blender needed)."""
    v, t = occluder_triangles(plan.house)
    return sk.measure_frame(camera, skyline_edges(plan.surroundings), v, t)


ENVIRONMENT = HorizonPeak()

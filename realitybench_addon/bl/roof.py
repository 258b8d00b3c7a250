"""Build the roof scene of a `RoofPlan` in Blender: house, shingles, array, attachments, wires, sky.

Parts are separate objects with stable names (`Attachment03_Foot`, `Lead_r0c2_pos`, ...)
so environments can name their targets; the plan keeps what each part *is*.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..core.roof import (BRICK_COLORS, FLASHING_TOP, FOOT_PLATE_LENGTH, FOOT_PLATE_THICKNESS, RAIL_HALF_WIDTH,
                         SHINGLE_COLORS, SIDING_COLORS, WALL_INSET_M, RoofFrame, RoofPlan, bolt_spot_uvh)
from ..core.ridge_caps import cap_rows, level_ridge_sides
from ..core.roof_weathering import roof_wear
from ..core.facade import GUTTER_SIZE_M, WallFrame, footprint_details, local_boxes
from ..core.shingles import SHINGLE_THICKNESS, shingle_courses
from ..core.surroundings import clear_of_sun, draw_surroundings
from ..core.surroundings_meshes import ground_mesh
from ..core.grass import GrassPatch, scatter_patch, tuft_variants
from ..core.vegetation import conifer_tree, deciduous_tree, merge_plants, shrub
from . import facade, lawn_dress, lot_ground, vegetation
from .grass import add_grass, grass_material
from . import materials as mats
from .meshes import boxes, curve_object, mesh_object, ngon_object, prism
from .sky import add_sky_and_sun, sun_direction
from .surroundings import build_surroundings


@dataclass
class AttachmentParts:
    foot: str
    flashing: str | None
    bolt: str | None
    hole: str | None
    bolt_spot_uvh: tuple[float, float, float]  # centre of the spot where the lag bolt sits (or would)

    @property
    def target(self) -> list[str]:
        return [n for n in (self.foot, self.flashing, self.bolt, self.hole) if n]


@dataclass
class BuiltRoof:
    plan: RoofPlan
    frame: RoofFrame
    attachments: dict[int, AttachmentParts] = field(default_factory=dict)
    wires: dict[str, str] = field(default_factory=dict)  # wire name -> object name
    modules: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)  # (row, col) -> (frame, glass)
    rails: list[str] = field(default_factory=list)
    sun_direction: tuple[float, float, float] = (0.0, 0.0, 1.0)
    extras: dict = field(default_factory=dict)  # what an environment adds (the tape, the gauge, the equipment)
    grass: list = field(default_factory=list)  # core.grass.GrassPatch: where blades stand


def _roof_matrix(frame: RoofFrame) -> np.ndarray:
    return frame.matrix(0.0, 0.0, 0.0)


def build_roof_scene(scene, plan: RoofPlan, rng: np.random.Generator) -> BuiltRoof:
    """Populate `scene` (expected empty) with the roof of `plan`. `rng` only drives cosmetic jitter."""
    col = scene.collection
    frame = plan.frame
    roof_m = _roof_matrix(frame)
    built = BuiltRoof(plan, frame)
    p = math.radians(plan.pitch_deg)
    L, S = plan.eave_length_m, plan.slope_length_m
    rake, over = 0.3, plan.overhang_m

    # sky and sun, aligned
    sun_dir = sun_direction(plan.sun_elevation_deg, plan.sun_azimuth_deg)
    built.sun_direction = tuple(sun_dir.tolist())
    add_sky_and_sun(scene, sun_dir, plan.sun_strength)

    # shingles on the array's plane, and on the back plane of a gable
    shingle_mat, back_mat = _shingle_materials(plan)
    v, q, shade = shingle_courses(rng, -rake, L + rake, -over, S, plan.shingle_exposure_m, plan.shingle_tab_m)
    mesh_object("Shingles", v, q, col, matrix=roof_m, materials=[shingle_mat], face_attributes={"tab_shade": shade})
    deck_v, deck_q = boxes([-rake, -over, -0.03], [L + rake, S, -SHINGLE_THICKNESS - 0.0005])
    trim = mats.principled("RB_Trim", (0.75, 0.75, 0.73), roughness=0.5)
    # shows through the joints between strips: the laminate's darker lower layer, so a joint reads as one more gap
    felt = mats.principled("RB_RoofingFelt", tuple(c * 0.4 for c in SHINGLE_COLORS[plan.shingle_color]), roughness=0.9)
    mesh_object("RoofDeck", deck_v, deck_q, col, matrix=roof_m, materials=[felt])
    ridge_y, ridge_z = S * math.cos(p), plan.eave_height_m + S * math.sin(p)
    if plan.style == "gable":
        back = RoofFrame((L, 2 * ridge_y, plan.eave_height_m), plan.pitch_deg)
        back_m = back.matrix(0, 0, 0)
        back_m[:3, 0] *= -1  # u runs the other way along the eave...
        back_m[:3, 1] = [0.0, -math.cos(p), math.sin(p)]  # ...and the slope rises towards -Y
        back_m[:3, 2] = [0.0, math.sin(p), math.cos(p)]
        v, q, shade = shingle_courses(rng, -rake, L + rake, -over, S, plan.shingle_exposure_m, plan.shingle_tab_m)
        mesh_object("ShinglesBack", v, q, col, matrix=back_m, materials=[back_mat], face_attributes={"tab_shade": shade})
        mesh_object("RoofDeckBack", deck_v, deck_q, col, matrix=back_m, materials=[felt])
        # a row of cap pieces over the ridge (`core.ridge_caps`; a thin bar read as a "flat" ridge)
        ridge = level_ridge_sides([-rake, ridge_y, ridge_z], [L + rake, ridge_y, ridge_z], plan.pitch_deg)
        cap_v, cap_t, cap_tone = cap_rows(ridge)
        mesh_object("RidgeCap", cap_v, cap_t, col, face_attributes={"tab_shade": cap_tone},
                    materials=[mats.shingle("RB_RidgeCap", SHINGLE_COLORS[plan.shingle_color])])
    # fascia along the eave
    fascia_v, fascia_q = boxes([-rake, -over - FASCIA_M, -0.2], [L + rake, -over, -0.0])
    mesh_object("Fascia", fascia_v, fascia_q, col, matrix=roof_m, materials=[trim])

    _build_house(scene, plan, ridge_y, ridge_z)
    _build_chimney(scene, plan, frame)
    _build_ladder(scene, plan)
    _build_array(scene, plan, built)
    _build_attachments(scene, plan, built)
    _build_wires(scene, plan, built)

    built.grass = _build_yard(scene, plan, ridge_y)
    return built


def _shingle_materials(plan: RoofPlan):
    """The front (array) slope's and the back slope's shingle materials: laminated courses aligned with the
    courses `shingle_courses` draws, each slope's own wear, algae streaks only on a slope turned from the sun
    (`core.roof_weathering.roof_wear`, fixed by the plan's cosmetic seed: no draws from the scene's generator)."""
    color = SHINGLE_COLORS[plan.shingle_color]
    wear = roof_wear(_plan_seed(plan), plan.style, plan.sun_azimuth_deg, plan.slope_length_m)
    courses = (plan.shingle_exposure_m, -plan.overhang_m)
    out = []
    for slope, name in (("front", "RB_Shingle"), ("back", "RB_ShingleBack")):
        w = wear.get(slope)
        if w is None:
            out.append(None)
            continue
        out.append(mats.shingle(name, color, courses=courses, algae=w.algae.as_tuple() if w.algae else None,
                                wear=(w.wear_offset, w.wear)))
    return tuple(out)


def _build_house(scene, plan: RoofPlan, ridge_y: float, ridge_z: float) -> None:
    col = scene.collection
    p = math.radians(plan.pitch_deg)
    inset = WALL_INSET_M
    x0, x1 = inset, plan.eave_length_m - inset
    depth = 2 * ridge_y if plan.style == "gable" else ridge_y
    y0, y1 = inset, depth - inset
    z_at = (lambda y: plan.eave_height_m + min(y, 2 * ridge_y - y) * math.tan(p)) if plan.style == "gable" else \
        (lambda y: plan.eave_height_m + y * math.tan(p))
    if plan.siding == "lap":  # weathered: dirt splashed up, streaks, a tint
        wall = facade.weathered("RB_Siding", mats.lap_siding, (SIDING_COLORS[plan.wall_color],), seed=_plan_seed(plan))
    else:
        wall = facade.weathered("RB_Brick", mats.brick, (BRICK_COLORS[plan.brick_color],), seed=_plan_seed(plan))
    verts = [(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0),
             (x0, y0, z_at(y0)), (x1, y0, z_at(y0)), (x1, y1, z_at(y1)), (x0, y1, z_at(y1))]
    faces = [(0, 1, 5, 4), (2, 3, 7, 6)]
    if plan.style == "gable":
        verts += [(x0, ridge_y, ridge_z - 0.05), (x1, ridge_y, ridge_z - 0.05)]
        faces += [(3, 0, 4, 8, 7), (1, 2, 6, 9, 5)]
    else:
        faces += [(3, 0, 4, 7), (1, 2, 6, 5)]
    ngon_object("HouseWalls", verts, faces, col, materials=[wall])
    _build_facade(scene, plan, wall, x0, x1, y0, y1)


FASCIA_M = 0.025  # the fascia board's thickness, out from the roof's edge


def eave_gutter(plan: RoofPlan) -> tuple[float, float]:
    """(y, z) of the front eave gutter: its inner face (against the fascia) and its top, a centimetre under the
    roof's edge. The facade hangs the gutter there and the ladder leans on it."""
    p = math.radians(plan.pitch_deg)
    return -(plan.overhang_m * math.cos(p) + FASCIA_M), plan.eave_height_m - plan.overhang_m * math.sin(p) - 0.01


def _plan_seed(plan: RoofPlan) -> int:
    """A seed for cosmetic choices fixed by the plan's own numbers (no draws from the scene's generator, so
    everything drawn after the house stays as it was)."""
    return int(plan.eave_length_m * 7919 + plan.ladder_u * 104729 + plan.pitch_deg * 1299709) % (2 ** 31)


def _build_facade(scene, plan: RoofPlan, wall, x0: float, x1: float, y0: float, y1: float) -> None:
    """Windows with casings and sills, a door, corner boards, a foundation strip, gutters and downspouts on the
    house, the siding weathered; the ladder's span of the eave wall is kept clear of windows."""
    col = scene.collection
    seed = _plan_seed(plan)
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    gutter_y, gutter_z = eave_gutter(plan)
    details = footprint_details(corners, plan.eave_height_m, seed=seed,
                                gutter_edges=(0, 2) if plan.style == "gable" else (0,),
                                gutter_projection_m=y0 - gutter_y, gutter_z=gutter_z,
                                door_edge=0, avoid=[(0, plan.ladder_u - x0, 0.45)], corner_boards=plan.siding == "lap")
    details["foundation"] = [local_boxes(WallFrame.from_edge(corners[e], corners[(e + 1) % 4]),
                                         [-0.02, 0.0, -0.05], [np.hypot(*np.subtract(corners[(e + 1) % 4], corners[e]))
                                                               + 0.02, 0.02, FOUNDATION_TOP_M]) for e in range(4)]
    door_colors = [(0.25, 0.04, 0.03), (0.03, 0.07, 0.12), (0.7, 0.7, 0.68), (0.05, 0.1, 0.06)]
    materials = {"glass": facade.window_glass_material("RB_HouseWindowGlass", seed=seed),
                 "frame": facade.trim_material("RB_HouseWindowTrim", (0.78, 0.78, 0.76), seed=seed),
                 "door": facade.trim_material("RB_HouseDoor", door_colors[seed % len(door_colors)], seed=seed + 1,
                                              roughness=0.4),
                 "gutter": facade.gutter_material("RB_HouseGutter"),
                 "foundation": facade.weathered("RB_HouseFoundation", mats.principled, ((0.36, 0.35, 0.33), 0.95),
                                                seed=seed, ground_dirt_m=0.25, streaks=0.3)}
    facade.add_details(col, "House", details, materials)


GRASS_BAND_M = 5.0  # grass blades stand within this of the house's walls
YARD_RADIUS_M = 22.0  # the surroundings start this far beyond the house's corners: clear of its own yard trees
SURROUNDINGS_STREAM = 0x5111  # the surroundings' generator: (the plan's cosmetic seed, this)
# the foundation strip's top, a centimetre under the door's 0.2 m step: two tops at one height render black where
# they overlap (each shades in the other's shadow)
FOUNDATION_TOP_M = 0.19


def _build_yard(scene, plan: RoofPlan, ridge_y: float) -> list[GrassPatch]:
    """The lawn (mown stripes, patches, dry spots), shrubs along the walls and a few trees on the side away
    from the sun, so that their shadows never fall on the house or the array."""
    col = scene.collection
    L = plan.eave_length_m
    depth = 2 * ridge_y if plan.style == "gable" else ridge_y
    seed = _plan_seed(plan)
    rng = np.random.default_rng(seed)
    lawn = vegetation.lawn_material("RB_Lawn", (0.085, 0.125, 0.045), stripe_azimuth_deg=float(rng.uniform(0, 180)),
                                    seed=seed, stripe_center=(L / 2, depth / 2), stripe_radius_m=18.0)
    lawn = lawn_dress.dress_lawn(lawn, seed)  # clumps, soil showing, clover (issue 41)
    centre = np.array([L / 2, depth / 2])
    surroundings = _surroundings(plan, seed, float(np.hypot(L, depth) / 2))
    gv, gt = ground_mesh(surroundings.terrain)  # the flat yard, out to where the terrain starts rising
    mesh_object("Ground", gv + [*centre, 0.0], gt, col, materials=[lawn])
    # leaf cards on every band of crowns (`core.vegetation.SURROUNDINGS_CARDS`), as in the other outdoor scenes
    build_surroundings(scene, surroundings, origin=tuple(centre), skip_kinds=("ground",))
    plants = []
    # foundation shrubs: in front of the gable walls and the back wall (the eave wall has the ladder and door)
    spots = [(WALL_INSET_M - 0.75, WALL_INSET_M + 0.8 + t * (depth - 1.6)) for t in (0.15, 0.55, 0.9)]
    spots += [(L - WALL_INSET_M + 0.75, WALL_INSET_M + 0.8 + t * (depth - 1.6)) for t in (0.2, 0.7)]
    spots += [(WALL_INSET_M + 1.0 + t * (L - 2.0), depth - WALL_INSET_M + 0.75) for t in (0.1, 0.45, 0.8)]
    for k, (x, y) in enumerate(spots):
        if rng.random() < 0.75:
            plants.append(shrub(x, y, 0.0, rng.uniform(0.45, 0.7), rng.uniform(0.6, 1.1), seed + 31 * k))
    sun = math.radians(plan.sun_azimuth_deg)  # azimuth 0 is -Y, 90 is +X (bl.sky.sun_direction)
    away = -np.array([math.sin(sun), -math.cos(sun)])
    for k in range(int(rng.integers(2, 4))):
        ang = math.atan2(away[1], away[0]) + rng.uniform(-1.1, 1.1)
        dist = max(L, depth) / 2 + rng.uniform(7.0, 16.0)
        x, y = centre + dist * np.array([math.cos(ang), math.sin(ang)])
        height = rng.uniform(6.5, 11.0)
        if rng.random() < 0.7:
            plants.append(deciduous_tree(x, y, 0.0, height, height * rng.uniform(0.28, 0.36), height * 0.3,
                                         seed + 97 * k))
        else:
            plants.append(conifer_tree(x, y, 0.0, height, height * 0.22, 0.6, seed + 97 * k))
    if plants:
        vegetation.add_plants(col, "Yard", merge_plants(plants), vegetation.leaf_material("RB_YardLeaves"),
                              vegetation.bark_material("RB_YardBark"))
    # blades where a worker on the ground (equipment_label) stands: a band around the walls
    b = GRASS_BAND_M
    patch = GrassPatch((-b, -b, L + b, depth + b),
                       holes=((WALL_INSET_M, WALL_INSET_M, L - WALL_INSET_M, depth - WALL_INSET_M),))
    add_grass(col, "YardGrass", scatter_patch(seed, patch), tuft_variants(seed),
              grass_material("RB_YardGrass", (0.085, 0.125, 0.045)))
    return [patch]


def _surroundings(plan: RoofPlan, seed: int, house_radius_m: float):
    """Neighbouring houses, a street with poles, tree lines and hills around the yard (issue 41: the open lawn
    to the horizon read as a video game), drawn from the plan's cosmetic seed, less anything whose shadow could
    reach the house or the ground a worker stands on: none of it is measured, and the light on the roof is."""
    drawn = draw_surroundings(np.random.default_rng([seed, SURROUNDINGS_STREAM]), house_radius_m + YARD_RADIUS_M)
    return clear_of_sun(drawn, house_radius_m + GRASS_BAND_M, plan.sun_azimuth_deg, plan.sun_elevation_deg)


def _build_chimney(scene, plan: RoofPlan, frame: RoofFrame) -> None:
    if plan.chimney is None:
        return
    cu, cv, w, d, height = plan.chimney
    low = frame.to_world([cu, cv, 0.0])
    high = frame.to_world([cu, cv + d, 0.0])
    v, q = boxes([cu, low[1], low[2] - 0.4], [cu + w, high[1], high[2] + height])
    mesh_object("Chimney", v, q, scene.collection, materials=[mats.brick("RB_ChimneyBrick", (0.3, 0.1, 0.06))])
    cap_v, cap_q = boxes([cu - 0.04, low[1] - 0.04, high[2] + height], [cu + w + 0.04, high[1] + 0.04, high[2] + height + 0.06])
    mesh_object("ChimneyCap", cap_v, cap_q, scene.collection, materials=[lot_ground.crown_concrete("RB_ChimneyCrown")])


LADDER_LEAN = 0.25  # a ladder stands out a quarter of its working height (the 4-to-1 rule)
LADDER_ABOVE_M = 0.9  # it reaches this far past the gutter it rests on (three rungs)
LADDER_RAIL_M = 0.04  # half a rail's depth: the rails' back faces touch the gutter's lip


def _build_ladder(scene, plan: RoofPlan) -> None:
    """An aluminium ladder at `plan.ladder_u`, its rails resting on the eave gutter's outer lip, leaning 4 to 1 and
    reaching LADDER_ABOVE_M past it. (It stood 0.3-0.4 m off the eave, its top in the air: "floating ladder".)"""
    inner_y, lip_z = eave_gutter(plan)
    lip_y = inner_y - GUTTER_SIZE_M  # the gutter's outer face
    rise = np.array([0.0, LADDER_LEAN, 1.0]) / math.hypot(LADDER_LEAN, 1.0)  # up the ladder, towards the house
    out = np.array([0.0, -1.0, LADDER_LEAN]) / math.hypot(LADDER_LEAN, 1.0)  # away from the house, square to it
    contact = np.array([plan.ladder_u, lip_y, lip_z]) + LADDER_RAIL_M * out  # the rails' centre line at the lip
    base = contact - (contact[2] / rise[2]) * rise
    top = contact + LADDER_ABOVE_M * rise
    axis = top - base
    length = float(np.linalg.norm(axis))
    z = axis / length
    x = np.array([1.0, 0.0, 0.0])
    y = np.cross(z, x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = x, y, z, base
    lows = [[-0.24, -0.04, 0], [0.21, -0.04, 0]]
    highs = [[-0.21, 0.04, length], [0.24, 0.04, length]]
    for k in range(1, int(length / 0.3)):
        lows.append([-0.21, -0.015, k * 0.3])
        highs.append([0.21, 0.015, k * 0.3 + 0.03])
    v, q = boxes(np.array(lows), np.array(highs))
    mesh_object("Ladder", v, q, scene.collection, matrix=m,
                materials=[mats.principled("RB_LadderAluminum", (0.6, 0.6, 0.62), roughness=0.35, metallic=1.0)])


def _build_array(scene, plan: RoofPlan, built: BuiltRoof) -> None:
    col = scene.collection
    frame = built.frame
    aluminum = mats.principled("RB_Aluminum", (0.55, 0.56, 0.58), roughness=0.3, metallic=1.0)
    black = mats.principled("RB_BlackPlastic", (0.02, 0.02, 0.02), roughness=0.5)
    backsheet = mats.principled("RB_Backsheet", (0.8, 0.8, 0.78), roughness=0.6)
    glass = mats.module_glass("RB_ModuleGlass")
    ml, mw, t = plan.module_length_m, plan.module_width_m, plan.module_thickness_m
    h0 = plan.module_bottom_h
    bar = 0.035
    for row in range(plan.rows):
        for rail in range(2):
            v = plan.rail_v(row, rail)
            rv, rq = boxes([plan.array_u0 - 0.06, v - 0.02, plan.foot_height_m],
                           [plan.array_u1 + 0.06, v + 0.02, plan.foot_height_m + plan.rail_height_m])
            name = f"Rail_r{row}_{rail}"
            mesh_object(name, rv, rq, col, matrix=frame.matrix(0, 0, 0), materials=[aluminum])
            built.rails.append(name)
        for c in range(plan.cols):
            if not plan.installed(row, c):
                continue
            u, v = plan.module_origin(row, c)
            m = frame.matrix(u, v, h0)
            fv, fq = boxes(np.array([[0, 0, 0], [0, ml - bar, 0], [0, bar, 0], [mw - bar, bar, 0]]),
                           np.array([[mw, bar, t], [mw, ml, t], [bar, ml - bar, t], [mw, ml - bar, t]]))
            frame_name = f"Module_r{row}c{c}_Frame"
            mesh_object(frame_name, fv, fq, col, matrix=m, materials=[aluminum])
            lv, lq = boxes([bar, bar, t - 0.006], [mw - bar, ml - bar, t - 0.002])
            glass_name = f"Module_r{row}c{c}_Glass"
            mesh_object(glass_name, lv, lq, col, matrix=m, materials=[glass, backsheet],
                        face_materials=[1, 0, 1, 1, 1, 1])
            built.modules[(row, c)] = (frame_name, glass_name)
            # End clamps at the array's ends; one mid clamp spans each gap and belongs to the module on its left,
            # so no two modules put a clamp (and coplanar faces) in the same place.
            sides = [(mw - 0.012, mw + 0.012 + (plan.module_gap_m if plan.installed(row, c + 1) else 0.0))]
            if c == 0:
                sides.append((-0.012, 0.012))
            clamp_l, clamp_h = [], []
            for rail in range(2):
                rv = plan.rail_offsets[rail] * ml
                for lo, hi in sides:
                    clamp_l.append([lo, rv - 0.022, t - 0.004])
                    clamp_h.append([hi, rv + 0.022, t + 0.006])
            cv, cq = boxes(np.array(clamp_l), np.array(clamp_h))
            mesh_object(f"Clamps_r{row}c{c}", cv, cq, col, matrix=m, materials=[aluminum])
    for row, c, ju, jv in plan.junction_boxes:
        bv, bq = boxes([ju - 0.06, jv - 0.05, h0 - 0.025], [ju + 0.06, jv + 0.05, h0])
        mesh_object(f"JunctionBox_r{row}c{c}", bv, bq, col, matrix=frame.matrix(0, 0, 0), materials=[black])


def _build_attachments(scene, plan: RoofPlan, built: BuiltRoof) -> None:
    col = scene.collection
    frame = built.frame
    aluminum = bpy.data.materials["RB_Aluminum"]
    galvanized = mats.galvanized("RB_Flashing", (0.5, 0.5, 0.5))
    steel = mats.principled("RB_Steel", (0.42, 0.42, 0.44), roughness=0.25, metallic=1.0)
    hole_mat = mats.principled("RB_Hole", (0.005, 0.005, 0.005), roughness=1.0, specular=0.0)
    e = plan.shingle_exposure_m
    for a in plan.attachments:
        i = a.index
        base_h = FLASHING_TOP if a.flashing_present else 0.0
        rail_low_edge = a.v - RAIL_HALF_WIDTH
        # the L-bracket: a base plate on the roof and a leg up against the rail's lower side
        plate_v0, plate_v1 = rail_low_edge - FOOT_PLATE_LENGTH, rail_low_edge
        leg_top = plan.foot_height_m + 0.8 * plan.rail_height_m
        t = FOOT_PLATE_THICKNESS
        fv, fq = boxes(np.array([[a.u - 0.025, plate_v0, base_h], [a.u - 0.025, rail_low_edge - t, base_h]]),
                       np.array([[a.u + 0.025, plate_v1, base_h + t], [a.u + 0.025, rail_low_edge, leg_top]]))
        foot = f"Attachment{i:02d}_Foot"
        mesh_object(foot, fv, fq, col, matrix=frame.matrix(0, 0, 0), materials=[aluminum])
        spot = bolt_spot_uvh(a)
        flashing = bolt = hole = None
        if a.flashing_present:
            # its upper part is slipped under the course above the bolt: what shows ends at that butt line
            top = math.ceil((spot[1] + 0.01) / e) * e
            lv, lq = boxes([a.u - 0.115, plate_v0 - 0.08, 0.0002], [a.u + 0.115, top, FLASHING_TOP])
            flashing = f"Attachment{i:02d}_Flashing"
            mesh_object(flashing, lv, lq, col, matrix=frame.matrix(0, 0, 0), materials=[galvanized])
        if a.lag_present:
            wv, wf = prism(0.014, 0.002, 20, z0=0.0)
            hv, hf = prism(0.0115, 0.008, 6, z0=0.002)
            bolt = f"Attachment{i:02d}_LagBolt"
            ngon_object(bolt, np.concatenate([wv, hv]), wf + [[x + len(wv) for x in f] for f in hf], col,
                        matrix=frame.matrix(*spot), materials=[steel])
        else:
            hv, hf = prism(0.0065, 0.0004, 16, z0=0.0)
            hole = f"Attachment{i:02d}_EmptyHole"
            ngon_object(hole, hv, hf, col, matrix=frame.matrix(*spot), materials=[hole_mat])
        built.attachments[i] = AttachmentParts(foot, flashing, bolt, hole, spot)


def _build_wires(scene, plan: RoofPlan, built: BuiltRoof) -> None:
    col = scene.collection
    rubber = mats.principled("RB_CableJacket", (0.015, 0.015, 0.015), roughness=0.45)
    connector = mats.principled("RB_Connector", (0.03, 0.03, 0.035), roughness=0.4)
    m = built.frame.matrix(0, 0, 0)
    for w in plan.wires:
        pts = np.asarray(w.points_uvh)
        curve_object(w.name, pts, w.radius_m, col, material=rubber, matrix=m)
        built.wires[w.name] = w.name
        if w.kind == "lead":
            end = pts[-1]
            cv, cq = boxes([end[0] - 0.011, end[1] - 0.05, end[2] - 0.011], [end[0] + 0.011, end[1], end[2] + 0.011])
            mesh_object(f"{w.name}_Connector", cv, cq, col, matrix=m, materials=[connector])

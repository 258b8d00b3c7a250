"""Build a `HousePlan` in Blender: every roof plane re-covered with the roof scene's 3-tab shingle
courses (clipped to the plane's polygon), ridge and hip caps, fascia and rake boards, roof deck,
walls (lap siding or brick, weathered: `bl.facade.weather`) and a chimney.

Object names (stable, one object per part for the whole house):
  HouseShingles, HouseRoofDeck, HouseRidgeCaps, HouseFascia, HouseWalls, HouseChimney
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.house import (HousePlan, RoofPlane, TRIM_EDGES, cap_sides, chimney_polygons, fan_triangles,
                          roof_planes, wall_polygons)
from ..core.ridge_caps import cap_rows
from ..core.roof import BRICK_COLORS, SHINGLE_COLORS, SIDING_COLORS
from ..core.shingles import SHINGLE_THICKNESS, shingle_courses
from . import facade
from . import materials as mats
from .meshes import mesh_object, set_vertex_uv

FASCIA_DEPTH_M = 0.18
DECK_THICKNESS_M = 0.025


@dataclass
class BuiltHouse:
    plan: HousePlan
    roof: list[str] = field(default_factory=list)  # shingles, caps: the "own roof" a photo shows
    parts: list[str] = field(default_factory=list)  # every object of the house


def clipped_shingles(rng: np.random.Generator, plane: RoofPlane, exposure: float,
                     tab: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`shingle_courses` over the plane's bounding rectangle, each tab clipped to the polygon: a tab's
    corners are clamped to the polygon's u span at their course line, so hip edges are followed
    exactly. Tabs left narrower than 4 mm are dropped. Roof (u, v, h) vertices, quads, shades."""
    poly = np.asarray(plane.polygon_uv, float)
    verts, quads, shade = shingle_courses(rng, float(poly[:, 0].min()), float(poly[:, 0].max()), 0.0,
                                          float(poly[:, 1].max()), exposure, tab)
    if len(verts) == 0:
        return verts, quads, shade
    tabs = verts.reshape(-1, 6, 3).copy()
    lo, hi = plane.span(tabs[:, :, 1].ravel())
    lo, hi = lo.reshape(-1, 6), hi.reshape(-1, 6)
    hi = np.maximum(hi, lo)
    tabs[:, :, 0] = np.clip(tabs[:, :, 0], lo, hi)
    width_bottom = tabs[:, 1, 0] - tabs[:, 0, 0]
    width_top = tabs[:, 4, 0] - tabs[:, 5, 0]
    keep = np.maximum(width_bottom, width_top) >= 0.004
    kept = np.nonzero(keep)[0]
    new_verts = tabs[keep].reshape(-1, 3)
    new_quads = np.array([[0, 1, 2, 3], [3, 2, 4, 5]])[None] + 6 * np.arange(len(kept))[:, None, None]
    shade = shade.reshape(-1, 2)[keep].ravel()
    return new_verts, new_quads.reshape(-1, 4), shade


def _slab(plane: RoofPlane, h_top: float, h_bottom: float) -> list[np.ndarray]:
    """A plate under a roof plane's polygon: top, bottom and edge faces (world polygons)."""
    top = plane.world_polygon(h_top)
    bottom = plane.world_polygon(h_bottom)
    faces = [top, bottom[::-1]]
    n = len(top)
    for i in range(n):
        j = (i + 1) % n
        faces.append(np.array([bottom[i], bottom[j], top[j], top[i]]))
    return faces


def _trims(plane: RoofPlane) -> list[np.ndarray]:
    """Fascia (eaves) and rake boards: vertical boards hanging from the plane's free edges."""
    poly = np.asarray(plane.polygon_uv, float)
    out = []
    for i, label in enumerate(plane.edges):
        if label not in TRIM_EDGES:
            continue
        a, b = poly[i], poly[(i + 1) % len(poly)]
        wa, wb = plane.to_world([[*a, 0.002], [*b, 0.002]])
        drop = np.array([0.0, 0.0, FASCIA_DEPTH_M])
        out.append(np.array([wa - drop, wb - drop, wb, wa]))
    return out


def build_house(scene, house: HousePlan, rng: np.random.Generator) -> BuiltHouse:
    """Populate `scene` with the house of `house`. `rng` only drives the shingles' cosmetic jitter."""
    col = scene.collection
    built = BuiltHouse(house)
    shingle_mat = mats.shingle("RB_HouseShingle", SHINGLE_COLORS[house.shingle_color])
    felt = mats.principled("RB_HouseFelt", (0.02, 0.02, 0.02), roughness=0.9)
    trim = mats.principled("RB_HouseTrim", house.trim_color, roughness=0.5)
    seed = int(house.main.length_m * 7919) % 100003
    if house.siding == "lap":  # weathered: splash dirt, rain streaks, a tint
        wall = facade.weathered("RB_HouseSiding", mats.lap_siding, (SIDING_COLORS[house.wall_color],), seed=seed)
    else:
        wall = facade.weathered("RB_HouseBrick", mats.brick, (BRICK_COLORS[house.brick_color],), seed=seed)

    verts, quads, shades, plane_uv, offset = [], [], [], [], 0
    for plane in roof_planes(house):
        v, q, s = clipped_shingles(rng, plane, house.shingle_exposure_m, house.shingle_tab_m)
        if len(v) == 0:
            continue
        verts.append(plane.to_world(v))
        plane_uv.append(v[:, :2])
        quads.append(q + offset)
        shades.append(s)
        offset += len(v)
    # laminated teeth and the shadow lines under each course's butt (a third panel saw the house's roof as "a flat
    # grey plane with painted slits"): laid out in each plane's own (u, v), carried by a UV map
    laminate = mats.shingle("RB_HouseLaminate", SHINGLE_COLORS[house.shingle_color],
                            courses=(house.shingle_exposure_m, 0.0), plane_coords="UV")
    shingles = mesh_object("HouseShingles", np.concatenate(verts), np.concatenate(quads), col, materials=[laminate],
                           face_attributes={"tab_shade": np.concatenate(shades)})
    set_vertex_uv(shingles, np.concatenate(plane_uv))
    deck = [f for plane in roof_planes(house) for f in _slab(plane, -SHINGLE_THICKNESS - 0.0005,
                                                            -SHINGLE_THICKNESS - DECK_THICKNESS_M)]
    _polygons_object("HouseRoofDeck", deck, col, felt)
    # rows of cap pieces on the measured cap strips (a smooth strip read as a "flat" ridge)
    cv, ct, tone = cap_rows(cap_sides(house))
    mesh_object("HouseRidgeCaps", cv, ct, col, materials=[shingle_mat], face_attributes={"tab_shade": tone})
    _polygons_object("HouseFascia", [t for plane in roof_planes(house) for t in _trims(plane)], col, trim)
    _polygons_object("HouseWalls", list(wall_polygons(house)), col, wall)
    built.roof += ["HouseShingles", "HouseRidgeCaps"]
    built.parts += ["HouseShingles", "HouseRoofDeck", "HouseRidgeCaps", "HouseFascia", "HouseWalls"]
    if house.chimney is not None:
        faces = chimney_polygons(house)  # the top first, then the sides
        v, t = fan_triangles(faces)
        mesh_object("HouseChimney", v, t, col, materials=[mats.brick("RB_ChimneyBrick", (0.3, 0.1, 0.06)),
                                                         mats.principled("RB_ChimneyCrown", (0.22, 0.21, 0.2),
                                                                         roughness=0.9)],
                    face_materials=[1] * (len(faces[0]) - 2) + [0] * (len(t) - len(faces[0]) + 2))
        built.roof.append("HouseChimney")
        built.parts.append("HouseChimney")
    return built


def _polygons_object(name: str, polygons, collection, material):
    v, t = fan_triangles(polygons)
    return mesh_object(name, v, t, collection, materials=[material])

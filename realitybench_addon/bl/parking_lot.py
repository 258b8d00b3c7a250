"""Build a `LotPlan` in Blender: worn asphalt with repair patches and painted stalls, curbs, a sidewalk
and lawn, the building's front (framed windows, doors, gutter), light poles, trees and shrubs, the sky
with its sun (`RB_Sun`, aligned with the sky's sun), every parked vehicle with its plates, and the neighbourhood
beyond the site (`core.lot_site`, built by `bl.surroundings`). Ground materials come from `lot_ground`, facade and
plant materials from `facade` and `vegetation`.

Cars are `Car<i>_<part>` (Car0 is the subject); plates `Car<i>_plate_<end>` on
`Car<i>_plate_mount_<end>`. After building, `intersecting_pairs` checks the built meshes: a car
whose triangles overlap another car's, or the curbs, poles, trees or building, raises
`SceneIntersection` (render sanity: such a scene never reaches the camera).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix
from mathutils.bvhtree import BVHTree

from ..core import facade as core_facade
from ..core.facade import WallFrame
from ..core.parking_lot import (CURB_HEIGHT_M, CURB_WIDTH_M, LotPlan, SceneIntersection,
                                 asphalt_patches, facade_layout, layout_seed, shrub_plants, tree_plants)
from ..core.grass import FADE_M, GrassPatch, scatter_patch, tuft_variants
from ..core.lot_site import PAVED_PAST_ROWS_M, PLANTED_STRIP_M, lot_surroundings, paved_area, site_circle
from ..core.plate import PLATE_PX_PER_MM, plate_texture
from ..core.surroundings_meshes import ground_mesh
from ..core.vehicle_details import MOUNT_SIZE_M, PLATE_SIZE_M
from ..core.vehicle_geometry import vehicle_geometry
from . import compat, facade, lawn_dress, lot_ground, vegetation
from . import materials as mats
from .grass import add_grass, grass_material
from .meshes import boxes, mesh_object, textured_quad
from .scene_data import world_triangles
from .surroundings import build_surroundings
from .vehicle import BuiltVehicle, build_vehicle
from .material_cache import reused

GRASS_OVERHANG_M = 4.0  # grass blades reach this far past the lot's ends
GRASS_STRIP_M = 4.0  # and this deep into the planted strip
OTHER_PLATE_PX_PER_MM = 1.5  # plates of the other cars: legible up close, light on memory


@dataclass
class BuiltLot:
    plan: LotPlan
    cars: list[BuiltVehicle] = field(default_factory=list)
    plates: dict[tuple[int, str], str] = field(default_factory=dict)  # (car, end) -> plate object
    plate_layouts: dict = field(default_factory=dict)  # (car, end) -> PlateLayout as drawn
    scenery: list[str] = field(default_factory=list)  # standing things a car must not touch
    ground: list[str] = field(default_factory=list)
    sun_direction: tuple[float, float, float] = (0.0, 0.0, 1.0)
    extras: dict = field(default_factory=dict)  # object names an environment's build_extras adds, under its keys
    standing: dict = field(default_factory=dict)  # name -> object names: more things a car must not intersect
    cache: dict = field(default_factory=dict)  # what measurements compute once per built scene (surface samples)
    grass: list = field(default_factory=list)  # core.grass.GrassPatch: where blades stand
    surroundings: list[str] = field(default_factory=list)  # the neighbourhood beyond the site: never measured

    @property
    def subject(self) -> BuiltVehicle:
        return self.cars[0]


def sun_direction(plan: LotPlan) -> np.ndarray:
    el, az = math.radians(plan.sun_elevation_deg), math.radians(plan.sun_azimuth_deg)
    return np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])


def _sun_matrix(direction: np.ndarray) -> Matrix:
    z = direction / np.linalg.norm(direction)
    x = np.cross([0.0, 0.0, 1.0], z)
    x = x / np.linalg.norm(x) if np.linalg.norm(x) > 1e-6 else np.array([1.0, 0.0, 0.0])
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x, np.cross(z, x), z
    return Matrix(m.tolist())


@reused
def _noise_material(name: str, dark, light, scale: float, roughness: float = 0.9):
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = 4.0
    links.new(coord.outputs["Object"], noise.inputs["Vector"])
    ramp = mats.color_ramp(nodes, links, noise.outputs["Fac"], [(0.35, dark), (0.65, light)])
    links.new(ramp.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.2
    mat.diffuse_color = (*dark, 1.0)
    return mat


def plate_frame(position, normal, up) -> np.ndarray:
    """Quad matrix for a plate: local X = reading right, Y = up, Z = out of the print (r = up x n)."""
    n = np.asarray(normal, float)
    n /= np.linalg.norm(n)
    u = np.asarray(up, float)
    u = u - np.dot(u, n) * n
    u /= np.linalg.norm(u)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = np.cross(u, n), u, n, position
    return m


def build_lot(scene, plan: LotPlan, *, replace_parts: dict | None = None, extra_materials: dict | None = None,
              check: bool = True) -> BuiltLot:
    """Populate `scene` (expected empty) with the lot of `plan`.

    `replace_parts` / `extra_materials` go to the subject car's builder (a damaged panel)."""
    col = scene.collection
    built = BuiltLot(plan)
    direction = sun_direction(plan)
    built.sun_direction = tuple(direction.tolist())
    scene.world = mats.sky_world("RB_Sky", direction, strength=1.0)
    sun = bpy.data.lights.new("RB_Sun", "SUN")
    sun.energy = plan.sun_strength
    sun.angle = math.radians(0.55)
    sun_obj = bpy.data.objects.new("RB_Sun", sun)
    sun_obj.matrix_world = _sun_matrix(direction)
    col.objects.link(sun_obj)

    _build_ground(scene, plan, built)
    _build_building(scene, plan, built)
    _build_poles(scene, plan, built)
    _build_trees(scene, plan, built)
    _build_surroundings(scene, plan, built)
    for i, car in enumerate(plan.cars):
        prefix = f"Car{i}"
        bv = build_vehicle(scene, car.vehicle, prefix, car.matrix(),
                           replace_parts=replace_parts if i == 0 else None,
                           extra_materials=extra_materials if i == 0 else None)
        built.cars.append(bv)
        _build_plates(scene, plan, i, bv, built)
    if check:
        pairs = intersecting_pairs(built)
        if pairs:
            raise SceneIntersection(f"cars intersect: {pairs}")
    return built


def _build_ground(scene, plan: LotPlan, built: BuiltLot) -> None:
    """Asphalt with repair patches, worn stall lines, curbs, a jointed sidewalk and lawn in front of the
    building, and the planted strip behind row B (materials: `lot_ground`)."""
    col = scene.collection
    x0, y0, x1, y1 = paved_area(plan)  # the neighbourhood's lawn beyond (`_build_surroundings`)
    gv, gq = boxes([x0, y0, -0.1], [x1, y1, 0.0])
    mesh_object("Asphalt", gv, gq, col, materials=[lot_ground.asphalt("RB_Asphalt", plan)])
    built.ground.append("Asphalt")
    for k, patch in enumerate(asphalt_patches(plan)):
        pv, pq = boxes([patch.x0, patch.y0, 0.0], [patch.x1, patch.y1, patch.top_m])
        mesh_object(f"AsphaltPatch{k}", pv, pq, col,
                    materials=[lot_ground.patch_asphalt(f"RB_AsphaltPatch{k}", plan, patch.age)])
        built.ground.append(f"AsphaltPatch{k}")
    paint = (0.75, 0.75, 0.72) if plan.line_color == "white" else (0.75, 0.55, 0.06)
    line_mat = lot_ground.stall_paint("RB_StallPaint", paint, plan)
    lows, highs = [], []
    W, D, A = plan.stall_width_m, plan.stall_depth_m, plan.aisle_width_m
    for k in range(plan.stalls_per_row + 1):
        x = plan.x0 + k * W
        lows += [[x - 0.05, -D, 0.0], [x - 0.05, A, 0.0]]
        highs += [[x + 0.05, -0.2, 0.003], [x + 0.05, A + D - 0.2 + 0.2, 0.003]]
    lv, lq = boxes(np.array(lows), np.array(highs))
    mesh_object("StallLines", lv, lq, col, materials=[line_mat])
    built.ground.append("StallLines")
    concrete = lot_ground.curb_concrete("RB_Concrete")  # the poles' bases take it by name
    walk = lot_ground.sidewalk_concrete("RB_Sidewalk")
    lawn = lawn_dress.dress_lawn(vegetation.lawn_material("RB_Lawn", (0.075, 0.125, 0.032), seed=layout_seed(plan)),
                                 seed=layout_seed(plan))  # clumps, soil, clover (issue 41)
    for curb in plan.curbs():
        lo = [curb.x - curb.half_l, curb.y - curb.half_w, 0.0]
        hi = [curb.x + curb.half_l, curb.y + curb.half_w, CURB_HEIGHT_M]
        v, q = boxes(lo, hi)
        mesh_object(curb.owner, v, q, col, materials=[concrete])
        built.scenery.append(curb.owner)
    xa, xb = plan.x0 - PAVED_PAST_ROWS_M, plan.x1 + PAVED_PAST_ROWS_M  # the sidewalk and lawn run as far as the asphalt
    head_a = plan.row_a_head_y - CURB_WIDTH_M
    front = plan.building_front_y
    walk_v, walk_q = boxes([xa, head_a - 2.0, 0.0], [xb, head_a, CURB_HEIGHT_M - 0.01])
    mesh_object("Sidewalk", walk_v, walk_q, col, materials=[walk])
    lawn_v, lawn_q = boxes([xa, front, 0.0], [xb, head_a - 2.0, CURB_HEIGHT_M - 0.02])
    mesh_object("LawnFront", lawn_v, lawn_q, col, materials=[lawn])
    head_b = plan.row_b_head_y + CURB_WIDTH_M
    strip_v, strip_q = boxes([xa, head_b, 0.0], [xb, head_b + PLANTED_STRIP_M, CURB_HEIGHT_M - 0.02])
    mesh_object("PlantedStrip", strip_v, strip_q, col, materials=[lawn])
    built.ground += ["Sidewalk", "LawnFront", "PlantedStrip"]
    # blades where a camera can stand close to the lawn: along the lot, the front lawn up to the building and
    # the planted strip's first metres; the ends fade into the flat lawn
    top, fade = CURB_HEIGHT_M - 0.02, FADE_M
    built.grass = [GrassPatch((plan.x0 - GRASS_OVERHANG_M, front, plan.x1 + GRASS_OVERHANG_M, head_a - 2.0), top,
                              fade=(fade, 0.0, fade, 0.0)),
                   GrassPatch((plan.x0 - GRASS_OVERHANG_M, head_b, plan.x1 + GRASS_OVERHANG_M, head_b + GRASS_STRIP_M),
                              top, fade=(fade, 0.0, fade, fade))]
    seed = layout_seed(plan)
    blades = grass_material("RB_LotGrass", (0.075, 0.125, 0.032))
    for k, patch in enumerate(built.grass):
        add_grass(col, f"LotGrass{k}", scatter_patch(seed + k, patch), tuft_variants(seed), blades)


def _build_plates(scene, plan: LotPlan, i: int, bv: BuiltVehicle, built: BuiltLot) -> None:
    car = plan.cars[i]
    mounts = vehicle_geometry(car.vehicle).plate_mounts
    mount_mat = bpy.data.materials.get("RB_Car_trim")
    px = PLATE_PX_PER_MM if i == 0 else OTHER_PLATE_PX_PER_MM
    image_rgb, layout = plate_texture(car.plate, px_per_mm=px)
    image = mats.packed_image(f"Car{i}_PlateImage", image_rgb)
    plate_mat = mats.image_material(f"Car{i}_PlateMaterial", image, roughness=0.35)
    for end in ("front", "rear"):
        mount = mounts[end]
        n_world = car.direction(mount.normal)
        center = car.to_world(mount.center)
        mname = f"Car{i}_plate_mount_{end}"
        quad = textured_quad(mname, MOUNT_SIZE_M[0], MOUNT_SIZE_M[1], scene.collection, mount_mat,
                             matrix=plate_frame(center + 0.009 * n_world, n_world, (0, 0, 1)))
        bv.objects[f"plate_mount_{end}"] = quad.name
        if end == "front" and not car.front_plate:
            continue
        name = f"Car{i}_plate_{end}"
        obj = textured_quad(name, PLATE_SIZE_M[0], PLATE_SIZE_M[1], scene.collection, plate_mat,
                            matrix=plate_frame(center + 0.013 * n_world, n_world, (0, 0, 1)))
        bv.objects[f"plate_{end}"] = obj.name
        built.plates[(i, end)] = obj.name
        built.plate_layouts[(i, end)] = layout


def _build_building(scene, plan: LotPlan, built: BuiltLot) -> None:
    """The building's front toward the lot: a weathered wall with framed storefront windows (sky reflections
    over a dim interior or blinds), roll-up bay doors and personnel doors in casings, a coping, a gutter and
    downspouts (`core.facade` geometry, `bl.facade` materials)."""
    col = scene.collection
    box = plan.building_box()
    seed = layout_seed(plan)
    weathering = {"seed": seed, "ground_dirt_m": 0.6, "streaks": 0.8}
    if plan.building_finish == "brick":
        wall = facade.weathered("RB_BuildingWall", mats.brick, (plan.building_color,), **weathering)
    elif plan.building_finish == "stucco":
        c = plan.building_color
        wall = facade.weathered("RB_BuildingWall", _noise_material, (tuple(x * 0.85 for x in c), c, 12.0), **weathering)
    else:
        wall = facade.weathered("RB_BuildingWall", mats.lap_siding, (plan.building_color, 0.6), **weathering)
    v, q = boxes([box.x - box.half_l, box.y - box.half_w, 0.0], [box.x + box.half_l, box.y + box.half_w, box.z1])
    mesh_object("Building", v, q, col, materials=[wall])
    built.scenery.append("Building")
    y = plan.building_front_y
    front = WallFrame.from_edge((box.x + box.half_l, y), (box.x - box.half_l, y))  # outward +Y, a = x0 - x
    a_of = box.x + box.half_l  # a = a_of - x
    layout = facade_layout(plan)
    parts = {"glass": [], "frame": [], "bay": [], "leaf": [], "gutter": []}
    for x, width, sill, height in layout.windows:
        w = core_facade.window(front, a_of - x, sill, width, height, mullions=1 if width < 2.0 else 2)
        parts["glass"].append(w["glass"])
        parts["frame"] += [w["frame"], w["sill"]]
    for x, width, height in layout.bays:
        d = core_facade.door(front, a_of - x, width=width, height=height)
        parts["bay"].append(d["leaf"])
        parts["frame"].append(d["frame"])
    for x in layout.doors:
        d = core_facade.door(front, a_of - x, height=2.1)
        parts["leaf"].append(d["leaf"])
        parts["frame"].append(d["frame"])
    gutter = core_facade.gutter(front, 0.0, 2 * box.half_l, box.z1 - 0.05, projection_m=0.06,
                                downspout_at=tuple(a_of - x for x in layout.downspouts))
    parts["gutter"] += list(gutter.values())
    trim_rgb = (0.78, 0.77, 0.73) if plan.building_finish == "brick" else (0.18, 0.19, 0.2)
    materials = {"glass": facade.window_glass_material("RB_StoreGlass", seed=seed, blinds_share=0.5),
                 "frame": facade.trim_material("RB_StoreTrim", trim_rgb, seed=seed),
                 "bay": facade.weathered("RB_BayDoor", mats.lap_siding, ((0.6, 0.6, 0.58), 0.25), seed=seed + 2,
                                         ground_dirt_m=0.4, streaks=0.6),
                 "leaf": facade.trim_material("RB_ServiceDoor", (0.32, 0.34, 0.36), seed=seed + 1, roughness=0.4),
                 "gutter": facade.gutter_material("RB_Gutter", (0.7, 0.7, 0.68))}
    built.scenery += facade.add_details(col, "Building", parts, materials)
    trim = mats.principled("RB_Coping", (0.3, 0.3, 0.3), roughness=0.5)
    cv, cq = boxes([box.x - box.half_l, y - 0.08, box.z1], [box.x + box.half_l, y + 0.3, box.z1 + 0.25])
    mesh_object("BuildingCoping", cv, cq, col, materials=[trim])
    built.scenery.append("BuildingCoping")


def _build_poles(scene, plan: LotPlan, built: BuiltLot) -> None:
    col = scene.collection
    steel = mats.principled("RB_PoleSteel", (0.3, 0.31, 0.32), roughness=0.45, metallic=0.8)
    base_mat = bpy.data.materials.get("RB_Concrete")
    lamp = mats.principled("RB_Luminaire", (0.05, 0.05, 0.05), roughness=0.4)
    for i, p in enumerate(plan.poles):
        parts_v, parts_f = [], []

        def add(v, f):
            parts_f.append(np.asarray(f) + sum(len(x) for x in parts_v))
            parts_v.append(np.asarray(v))

        add(*_cylinder((p.x, p.y), 0.1, 0.0, p.height_m, 10))
        a = math.radians(p.arm_deg)
        ax, ay = math.cos(a), math.sin(a)
        arm_lo = [min(p.x, p.x + 1.4 * ax) - 0.04, min(p.y, p.y + 1.4 * ay) - 0.04, p.height_m - 0.15]
        arm_hi = [max(p.x, p.x + 1.4 * ax) + 0.04, max(p.y, p.y + 1.4 * ay) + 0.04, p.height_m - 0.07]
        add(*boxes(arm_lo, arm_hi))
        v = np.vstack(parts_v)
        f = np.vstack(parts_f)
        mesh_object(f"Pole{i}", v, f, col, materials=[steel])
        hx, hy = p.x + 1.5 * ax, p.y + 1.5 * ay
        lv, lq = boxes([hx - 0.35, hy - 0.25, p.height_m - 0.25], [hx + 0.35, hy + 0.25, p.height_m - 0.08])
        mesh_object(f"Pole{i}_Head", lv, lq, col, materials=[lamp])
        bv, bq = _cylinder((p.x, p.y), 0.3, 0.0, 0.6, 10)
        mesh_object(f"Pole{i}_Base", bv, bq, col, materials=[base_mat])
        built.scenery += [f"Pole{i}", f"Pole{i}_Head", f"Pole{i}_Base"]


def _cylinder(center, radius, z0, z1, sides):
    a = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    ring = np.column_stack([center[0] + radius * np.cos(a), center[1] + radius * np.sin(a)])
    v = np.vstack([np.column_stack([ring, np.full(sides, z0)]), np.column_stack([ring, np.full(sides, z1)])])
    quads = [[j, (j + 1) % sides, sides + (j + 1) % sides, sides + j] for j in range(sides)]
    # caps as fans of quads (an even number of sides: each quad takes two more corners)
    for j in range(1, sides - 1, 2):
        k2 = min(j + 2, sides - 1)
        quads.append([0, j, j + 1, k2])
        quads.append([sides, sides + k2, sides + j + 1, sides + j])
    return v, np.array(quads)


def _build_trees(scene, plan: LotPlan, built: BuiltLot) -> None:
    """Trees with trunks, branches and leaf clusters, and the shrubs on the lawn and the planted strip
    (`core.parking_lot.tree_plants` / `shrub_plants`; materials from `bl.vegetation`)."""
    col = scene.collection
    bark = vegetation.bark_material("RB_Bark")
    leaves = vegetation.leaf_material("RB_Leaves")
    for i, plant in enumerate(tree_plants(plan)):
        built.scenery += vegetation.add_plants(col, f"Tree{i}", plant, leaves, bark)
    plants = shrub_plants(plan)
    if len(plants["leaves"][1]):
        shrub_leaves = vegetation.leaf_material("RB_ShrubLeaves", leaf_scale=14.0)
        built.scenery += vegetation.add_plants(col, "Shrubs", plants, shrub_leaves, bark)


SURROUNDINGS_SINK_M = 0.03  # the neighbourhood's ground lies this far under the asphalt's top: no shared plane


def _build_surroundings(scene, plan: LotPlan, built: BuiltLot) -> None:
    """The neighbourhood round the lot (`core.lot_site`): a lawn out to hills, houses along a street with poles,
    tree lines and woods. Set dressing: none of it is measured, comes near a camera or shades a stall."""
    (cx, cy), _ = site_circle(plan)
    plan_around = lot_surroundings(plan)
    origin = (cx, cy, -SURROUNDINGS_SINK_M)
    gv, gt = ground_mesh(plan_around.terrain)
    lawn = bpy.data.objects["LawnFront"].active_material  # the lot's own lawn, out to where the hills rise
    mesh_object("SurroundingsGround", gv + np.array(origin), gt, scene.collection, materials=[lawn])
    around = build_surroundings(scene, plan_around, origin=origin, skip_kinds=("ground",))
    built.surroundings = ["SurroundingsGround", *around.objects]


def _bvh(names: list[str], depsgraph) -> BVHTree | None:
    verts, tris, offset = [], [], 0
    for n in names:
        obj = bpy.data.objects.get(n)
        if obj is None or obj.type != "MESH":
            continue
        v, t = world_triangles(obj, depsgraph)
        if len(t) == 0:
            continue
        verts.append(v)
        tris.append(t + offset)
        offset += len(v)
    if not verts:
        return None
    return BVHTree.FromPolygons(np.concatenate(verts).tolist(), np.concatenate(tris).tolist(), all_triangles=True)


def intersecting_pairs(built: BuiltLot, extra: dict[str, list[str]] | None = None) -> list[tuple[str, str]]:
    """Car prefixes whose built triangles overlap another car's, or the standing scenery
    (curbs, building, poles, trees, and `extra` groups such as the technician). Ground-level
    objects (asphalt, lines, sidewalk) are left out: tyres stand on them."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    cars = [(bv.prefix, _bvh([n for k, n in bv.objects.items() if not k.startswith("plate")], depsgraph))
            for bv in built.cars]
    others = [(n, _bvh([n], depsgraph)) for n in built.scenery]
    others += [(k, _bvh(v, depsgraph)) for k, v in (extra or {}).items()]
    pairs = []
    for i, (a, ta) in enumerate(cars):
        if ta is None:
            continue
        for b, tb in cars[i + 1:] + others:
            if tb is not None and ta.overlap(tb):
                pairs.append((a, b))
    return pairs

"""Build a `LotPlan` in Blender: asphalt with painted stalls, curbs, a sidewalk and lawn, the building
edge, light poles, trees, the sky with its sun (`RB_Sun`, aligned with the sky's sun), and every
parked vehicle with its plates.

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

from ..core.parking_lot import CURB_HEIGHT_M, CURB_WIDTH_M, LotPlan, SceneIntersection, tree_mesh
from ..core.plate import PLATE_PX_PER_MM, plate_texture
from ..core.vehicle_details import MOUNT_SIZE_M, PLATE_SIZE_M
from ..core.vehicle_geometry import vehicle_geometry
from . import compat
from . import materials as mats
from .meshes import boxes, mesh_object, textured_quad
from .scene_data import world_triangles
from .vehicle import BuiltVehicle, build_vehicle

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
    extras: dict = field(default_factory=dict)  # what an environment adds (the damage, the board)

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


def asphalt(name: str, shade: float):
    """Worn asphalt: dark grey aggregate noise with patches, rough."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    fine = nodes.new("ShaderNodeTexNoise")
    fine.inputs["Scale"].default_value = 60.0
    fine.inputs["Detail"].default_value = 6.0
    links.new(coord.outputs["Object"], fine.inputs["Vector"])
    patch = nodes.new("ShaderNodeTexNoise")
    patch.inputs["Scale"].default_value = 0.15
    patch.inputs["Detail"].default_value = 3.0
    links.new(coord.outputs["Object"], patch.inputs["Vector"])
    mix = mats.weighted_sum(nodes, links, fine.outputs["Fac"], patch.outputs["Fac"], 0.5)
    base = 0.055 * shade
    ramp = mats.color_ramp(nodes, links, mix, [(0.3, (base * 0.6,) * 3), (0.5, (base,) * 3),
                                                     (0.75, (base * 1.6, base * 1.55, base * 1.5))])
    links.new(ramp.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = 0.92
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.25
    mats.bump_normal(nodes, links, bsdf, fine.outputs["Fac"], 0.25, 0.003)
    mat.diffuse_color = (base, base, base, 1.0)
    return mat


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

    # ground: asphalt, stall lines, curbs, sidewalk and lawn in front of the building, planted strip
    gv, gq = boxes([-300, -300, -0.1], [300, 300, 0.0])
    mesh_object("Asphalt", gv, gq, col, materials=[asphalt("RB_Asphalt", plan.asphalt_shade)])
    built.ground.append("Asphalt")
    paint = (0.75, 0.75, 0.72) if plan.line_color == "white" else (0.75, 0.55, 0.06)
    line_mat = _noise_material("RB_StallPaint", tuple(c * 0.8 for c in paint), paint, 8.0, roughness=0.7)
    lows, highs = [], []
    W, D, A = plan.stall_width_m, plan.stall_depth_m, plan.aisle_width_m
    for k in range(plan.stalls_per_row + 1):
        x = plan.x0 + k * W
        lows += [[x - 0.05, -D, 0.0], [x - 0.05, A, 0.0]]
        highs += [[x + 0.05, -0.2, 0.003], [x + 0.05, A + D - 0.2 + 0.2, 0.003]]
    lv, lq = boxes(np.array(lows), np.array(highs))
    mesh_object("StallLines", lv, lq, col, materials=[line_mat])
    built.ground.append("StallLines")
    concrete = _noise_material("RB_Concrete", (0.36, 0.35, 0.33), (0.5, 0.49, 0.46), 3.0)
    lawn = _noise_material("RB_Lawn", (0.05, 0.09, 0.025), (0.1, 0.16, 0.04), 4.0, roughness=1.0)
    for curb in plan.curbs():
        lo = [curb.x - curb.half_l, curb.y - curb.half_w, 0.0]
        hi = [curb.x + curb.half_l, curb.y + curb.half_w, CURB_HEIGHT_M]
        v, q = boxes(lo, hi)
        mesh_object(curb.owner, v, q, col, materials=[concrete])
        built.scenery.append(curb.owner)
    xa, xb = plan.x0 - 40.0, plan.x1 + 40.0
    head_a = plan.row_a_head_y - CURB_WIDTH_M
    front = plan.building_front_y
    walk_v, walk_q = boxes([xa, head_a - 2.0, 0.0], [xb, head_a, CURB_HEIGHT_M - 0.01])
    mesh_object("Sidewalk", walk_v, walk_q, col, materials=[concrete])
    lawn_v, lawn_q = boxes([xa, front, 0.0], [xb, head_a - 2.0, CURB_HEIGHT_M - 0.02])
    mesh_object("LawnFront", lawn_v, lawn_q, col, materials=[lawn])
    head_b = plan.row_b_head_y + CURB_WIDTH_M
    strip_v, strip_q = boxes([xa, head_b, 0.0], [xb, head_b + 8.0, CURB_HEIGHT_M - 0.02])
    mesh_object("PlantedStrip", strip_v, strip_q, col, materials=[lawn])
    built.ground += ["Sidewalk", "LawnFront", "PlantedStrip"]

    _build_building(scene, plan, built)
    _build_poles(scene, plan, built)
    _build_trees(scene, plan, built)
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
    col = scene.collection
    box = plan.building_box()
    if plan.building_finish == "brick":
        wall = mats.brick("RB_BuildingWall", plan.building_color)
    elif plan.building_finish == "stucco":
        c = plan.building_color
        wall = _noise_material("RB_BuildingWall", tuple(x * 0.85 for x in c), c, 12.0)
    else:
        wall = mats.lap_siding("RB_BuildingWall", plan.building_color, board_m=0.6)
    v, q = boxes([box.x - box.half_l, box.y - box.half_w, 0.0], [box.x + box.half_l, box.y + box.half_w, box.z1])
    mesh_object("Building", v, q, col, materials=[wall])
    built.scenery.append("Building")
    y = plan.building_front_y
    glass = mats.principled("RB_StoreGlass", (0.02, 0.025, 0.03), roughness=0.05, specular=0.8)
    door = mats.lap_siding("RB_BayDoor", (0.6, 0.6, 0.58), board_m=0.25)
    trim = mats.principled("RB_Coping", (0.3, 0.3, 0.3), roughness=0.5)
    lows, highs = [], []
    x = plan.x0 - 6.0
    k = 0
    while x < plan.x1 + 6.0:
        if k % 3 == 1:
            bay_lo, bay_hi = [x, y - 0.02, 0.0], [x + 3.6, y + 0.0, min(3.8, box.z1 - 1.0)]
            bv, bq = boxes(bay_lo, bay_hi)
            mesh_object(f"BayDoor{k}", bv, bq, col, materials=[door])
            built.scenery.append(f"BayDoor{k}")
        else:
            lows.append([x + 0.3, y - 0.02, 1.0])
            highs.append([x + 3.3, y, min(2.6, box.z1 - 1.2)])
        x += 4.4
        k += 1
    wv, wq = boxes(np.array(lows), np.array(highs))
    mesh_object("BuildingWindows", wv, wq, col, materials=[glass])
    cv, cq = boxes([box.x - box.half_l, y - 0.08, box.z1], [box.x + box.half_l, y + 0.3, box.z1 + 0.25])
    mesh_object("BuildingCoping", cv, cq, col, materials=[trim])
    built.scenery += ["BuildingWindows", "BuildingCoping"]


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
    col = scene.collection
    bark = mats.principled("RB_Bark", (0.06, 0.045, 0.03), roughness=0.9)
    leaves = _noise_material("RB_Leaves", (0.02, 0.05, 0.012), (0.06, 0.11, 0.025), 2.5, roughness=0.85)
    for i, t in enumerate(plan.trees):
        tv, tt, cv, ct = tree_mesh(t)
        mesh_object(f"Tree{i}_Trunk", tv, tt, col, materials=[bark])
        mesh_object(f"Tree{i}_Crown", cv, ct, col, materials=[leaves], smooth=True)
        built.scenery += [f"Tree{i}_Trunk", f"Tree{i}_Crown"]


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

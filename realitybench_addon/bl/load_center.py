"""Build the load-center scene of a `LoadCenterPlan`: a room, the panel wall, the box with its dead front,
main and branch breakers (handles with their ratings), the open door, and the directory card
as a textured quad at true size. Lights: a ceiling fixture and the sun (`RB_Sun`) through a
window when the room has one.

Object names are stable (`Panel_Card`, `Panel_Door`, ...); the plan keeps what each part is.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np

from ..core.directory_card import CardLayout, card_texture
from ..core.load_center import (BOX_WIDTH_M, COLUMN_OFFSET_M, INCH, SLOT_M, WALL_COLORS, LoadCenterPlan,
                                sun_direction)
from . import compat
from . import materials as mats
from .material_cache import reused
from .meshes import boxes, curve_object, mesh_object, ngon_object, prism
from .sky import add_sky_and_sun

CARD = "Panel_Card"
DOOR = "Panel_Door"
COVER = "Panel_Cover"
BOX = "Panel_Box"
BREAKERS = "Panel_Breakers"
HANDLES = "Panel_Handles"
MARKINGS = "Panel_HandleMarkings"
WALL = "Room_PanelWall"
ATLAS_VALUES = (15, 20, 30, 40, 50, 60, 100, 125, 150, 200)
HANDLE_LEN_M = 0.022  # along X, towards the centre spine
HANDLE_H_M = 0.0095
HANDLE_PROTRUDE_M = 0.013
# A breaker's face stands 1 mm proud of the box front it sits in (the cover is 3 mm): a face flush with the box's
# would share its plane, and the two materials would fight in the render.
BODY_PROUD_M = 0.002


@dataclass
class BuiltLoadCenter:
    plan: LoadCenterPlan
    card: str = CARD
    door: str = DOOR
    layout: CardLayout | None = None
    objects: list[str] = field(default_factory=list)
    sun_direction: tuple[float, float, float] = (0.0, 0.0, 1.0)


def _textured_quads(name: str, corners: np.ndarray, uvs: np.ndarray, material, collection):
    """Quads (N, 4, 3) in world space, corners counter-clockwise seen from the front, with UVs (N, 4, 2)."""
    corners = np.asarray(corners, float).reshape(-1, 4, 3)
    faces = np.arange(len(corners) * 4).reshape(-1, 4)
    obj = mesh_object(name, corners.reshape(-1, 3), faces, collection, materials=[material])
    uv = obj.data.uv_layers.new(name="UVMap")
    uv.data.foreach_set("uv", np.asarray(uvs, np.float32).reshape(-1).copy())
    return obj


# ---------------------------------------------------------------------------------------------
# materials
# ---------------------------------------------------------------------------------------------

def _noise_bump(mat, scale: float, strength: float, distance: float = 0.001, color_mix: float = 0.0):
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = 4.0
    mats.bump_normal(nodes, links, bsdf, noise.outputs["Fac"], strength, distance)
    if color_mix > 0:
        base = compat.principled_input(bsdf, "Base Color").default_value[:3]
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = (*(c * (1 - color_mix) for c in base), 1.0)
        ramp.color_ramp.elements[1].color = (*(min(1.0, c * (1 + color_mix)) for c in base), 1.0)
        links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
    return mat


POWDER_PEEL_PER_M = 700.0  # the powder coat's orange peel: bumps of a millimetre or two
GRIME_PER_M = 12.0  # handled, dusty patches some 8 cm across


@reused
def panel_steel_material(name: str, color, roughness: float):
    """Powder-coated enclosure steel: an orange-peel bump, the paint's gloss varying by +/- 0.08 in patches,
    and patches of dust and handling grime (up to 8 % darker). A blind panel called the plain grey steel
    "spotless", "no texture or wear". Object coordinates (the panel's are the world's)."""
    mat = mats.principled(name, color, roughness=roughness, specular=0.5)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    grime = mats.map_range(nodes, links, mats.noise_fac(nodes, links, coord, GRIME_PER_M, 5.0), 0.45, 0.75)
    dirty = mats.mix_rgb(nodes, links, grime, tuple(color), tuple(0.92 * c for c in color))
    links.new(dirty, compat.principled_input(bsdf, "Base Color"))
    gloss = mats.map_range(nodes, links, mats.noise_fac(nodes, links, coord, 30.0, 2.0), 0.3, 0.7,
                           roughness - 0.08, roughness + 0.08)
    links.new(gloss, compat.principled_input(bsdf, "Roughness"))
    mats.bump_normal(nodes, links, bsdf, mats.noise_fac(nodes, links, coord, POWDER_PEEL_PER_M, 2.0), 0.06, 0.0005)
    return mat


COVER_SCREW_INSET_M = 0.75 * INCH  # the dead front's four screws, in from its corners
COVER_SCREW_RADIUS_M, COVER_SCREW_HEAD_M = 0.0045, 0.0025


def _build_cover_screws(scene, cx: float, half_width: float, z_bottom: float, z_top: float, front: float) -> None:
    """The dead front's four screw heads (zinc, a low cylinder standing out of the cover towards the room)."""
    verts, faces = [], []
    inset = COVER_SCREW_INSET_M
    for x in (cx - half_width + inset, cx + half_width - inset):
        for z in (z_bottom + inset, z_top - inset):
            v, f = prism(COVER_SCREW_RADIUS_M, COVER_SCREW_HEAD_M, 12)
            offset = sum(len(a) for a in verts)
            verts.append(np.column_stack([v[:, 0] + x, front - v[:, 2], v[:, 1] + z]))  # the prism's axis along -y
            faces.extend([[i + offset for i in face] for face in f])
    zinc = mats.principled("RB_CoverScrew", (0.55, 0.56, 0.55), roughness=0.35, metallic=1.0)
    ngon_object("Panel_CoverScrews", np.concatenate(verts), faces, scene.collection, materials=[zinc])


def wall_material(plan: LoadCenterPlan):
    color = WALL_COLORS[plan.wall_finish][plan.wall_color]
    if plan.wall_finish == "drywall":
        return _noise_bump(mats.principled("RB_Drywall", color, roughness=0.85, specular=0.3), 400.0, 0.08)
    if plan.wall_finish == "plywood":
        mat = mats.principled("RB_Plywood", color, roughness=0.8, specular=0.3)
        nodes, links = mat.node_tree.nodes, mat.node_tree.links
        bsdf = nodes.get("Principled BSDF")
        coord = nodes.new("ShaderNodeTexCoord")
        mapping = nodes.new("ShaderNodeMapping")  # grain streaks along X: the noise varies fast up the wall
        mapping.inputs["Scale"].default_value = (1.2, 1.2, 22.0)
        links.new(coord.outputs["Object"], mapping.inputs["Vector"])
        grain = nodes.new("ShaderNodeTexNoise")
        grain.inputs["Scale"].default_value = 3.0
        grain.inputs["Detail"].default_value = 6.0
        grain.inputs["Distortion"].default_value = 1.5
        links.new(mapping.outputs["Vector"], grain.inputs["Vector"])
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].position = 0.3
        ramp.color_ramp.elements[0].color = (*(c * 0.72 for c in color), 1.0)
        ramp.color_ramp.elements[1].position = 0.7
        ramp.color_ramp.elements[1].color = (*color, 1.0)
        links.new(grain.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
        return mat
    return block_material(color)


BLOCK_MORTAR_M = 0.01  # a 3/8 in joint
BLOCK_PORES_PER_M = 120.0  # the face's open pores: 2-3 mm holes in cells of 8 mm ...
BLOCK_VOIDS_PER_M = 40.0  # ... and rarer voids up to 6 mm in cells of 25 mm
BLOCK_PORE_CLUSTERS_PER_M = 9.0  # both come in patches: dense over a hand's width, then almost none
BLOCK_AGGREGATE_PER_M = 260.0  # grit: 4 mm grains


def _block_pores(nodes, links, coord):
    """How open the face is at each point (0..1): pores and voids in the cells of two Voronoi scales, a cell
    open where its random value beats a threshold that a low noise moves from 1.0 (none open) to 0.1 (dense);
    the voids' threshold sits 0.45 higher, so they are rarer.
    A blind viewer called one scale of pores in every cell alike "an even speckle"."""
    cluster = mats.map_range(nodes, links, mats.noise_fac(nodes, links, coord, BLOCK_PORE_CLUSTERS_PER_M, 2.0),
                             0.42, 0.58, 1.0, 0.1)
    pit = None
    for label, scale, edge, threshold_shift in (("block_pores", BLOCK_PORES_PER_M, (0.15, 0.3), 0.0),
                                                ("block_voids", BLOCK_VOIDS_PER_M, (0.08, 0.2), 0.45)):
        cells = nodes.new("ShaderNodeTexVoronoi")
        cells.label = label
        cells.inputs["Scale"].default_value = scale
        links.new(coord, cells.inputs["Vector"])
        hole = mats.map_range(nodes, links, cells.outputs["Distance"], edge[0], edge[1], 1.0, 0.0)
        open_cell = mats.math_node(nodes, links, "GREATER_THAN", cells.outputs["Color"],
                                   mats.math_node(nodes, links, "ADD", cluster, threshold_shift))
        this = mats.math_node(nodes, links, "MULTIPLY", hole, open_cell)
        pit = this if pit is None else mats.math_node(nodes, links, "MAXIMUM", pit, this)
    return pit


def block_material(color):
    """Concrete block (16 x 8 in, running bond): each block a tone of its own, a face of open pores and sand
    grain, joints tooled concave and darker, grime towards the floor. A blind panel called the old flat blocks
    with drawn-on joints "flat painted brick lines"; object coordinates, x along the wall, z up."""
    mat = mats.principled("RB_Block", color, roughness=0.95, specular=0.2)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    sep = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord, sep.inputs[0])
    combine = nodes.new("ShaderNodeCombineXYZ")
    links.new(sep.outputs["X"], combine.inputs["X"])
    links.new(sep.outputs["Z"], combine.inputs["Y"])
    tex = nodes.new("ShaderNodeTexBrick")
    tex.label = "blocks"
    tex.inputs["Color1"].default_value = (*color, 1.0)
    tex.inputs["Color2"].default_value = (*(c * 0.84 for c in color), 1.0)  # block to block: one batch, not one tone
    tex.inputs["Mortar"].default_value = (*(c * 0.82 for c in color), 1.0)
    tex.inputs["Scale"].default_value = 1.0
    tex.inputs["Mortar Size"].default_value = BLOCK_MORTAR_M
    tex.inputs["Mortar Smooth"].default_value = 0.6  # a tooled joint rounds into the block's edge
    tex.inputs["Brick Width"].default_value = 0.406
    tex.inputs["Row Height"].default_value = 0.203
    links.new(combine.outputs["Vector"], tex.inputs["Vector"])
    # the face: mottled over a few cm and over half a block, sand grain, and open pores (dark, recessed)
    mottle = mats.math_node(nodes, links, "MULTIPLY_ADD", mats.noise_fac(nodes, links, coord, 18.0, 4.0), 0.6,
                            mats.math_node(nodes, links, "MULTIPLY", mats.noise_fac(nodes, links, coord, 2.5, 3.0),
                                           0.4))
    grain = mats.noise_fac(nodes, links, coord, 900.0, 2.0)
    pit = _block_pores(nodes, links, coord)
    shade = mats.math_node(nodes, links, "MULTIPLY_ADD", mottle, 0.28, 0.86)  # +-14 % about the block's tone
    shade = mats.math_node(nodes, links, "MULTIPLY_ADD", grain, 0.12, mats.math_node(nodes, links, "SUBTRACT",
                                                                                      shade, 0.06))
    aggregate = nodes.new("ShaderNodeTexVoronoi")  # the face's sand and grit: grains of their own tone, +-8 %
    aggregate.label = "block_aggregate"
    aggregate.inputs["Scale"].default_value = BLOCK_AGGREGATE_PER_M
    links.new(coord, aggregate.inputs["Vector"])
    shade = mats.math_node(nodes, links, "MULTIPLY", shade, mats.map_range(nodes, links, aggregate.outputs["Color"],
                                                                            0.0, 1.0, 0.92, 1.08))
    col = mats.scaled_color(nodes, links, tex.outputs["Color"], shade)
    col = mats.mix_rgb(nodes, links, mats.math_node(nodes, links, "MULTIPLY", pit, 0.7), col,
                       tuple(c * 0.35 for c in color))
    # grime: darker and browner towards the floor, ragged
    low = mats.map_range(nodes, links, mats.math_node(nodes, links, "MULTIPLY_ADD", mottle, 0.15, sep.outputs["Z"]),
                         0.05, 0.45, 0.45, 0.0)
    col = mats.mix_rgb(nodes, links, low, col, (color[0] * 0.55, color[1] * 0.5, color[2] * 0.42))
    links.new(col, compat.principled_input(bsdf, "Base Color"))
    # relief: joints struck 6 mm back, the face's grain and its pores
    height = mats.math_node(nodes, links, "MULTIPLY_ADD", tex.outputs["Fac"], -0.6,
                            mats.math_node(nodes, links, "MULTIPLY_ADD", grain, 0.15,
                                           mats.math_node(nodes, links, "MULTIPLY", pit, -0.25)))
    mats.bump_normal(nodes, links, bsdf, height, 0.6, 0.01)
    return mat


def _handle_atlas():
    """One texture with every rating printed white on black, a cell per value (for the handle ends)."""
    from PIL import Image

    from ..core import lettering

    cell_w, cell_h = 96, 40
    img = Image.new("RGB", (cell_w * len(ATLAS_VALUES), cell_h), (14, 14, 15))
    for i, value in enumerate(ATLAS_VALUES):
        text = str(value)
        cap = min(26.0, lettering.fit_cap_height(text, cell_w - 14, 26.0))
        x = i * cell_w + (cell_w - lettering.text_width(text, cap)) / 2
        lettering.draw_text(img, text, x, (cell_h + cap) / 2, cap, color=(225, 225, 220), style="typed")
    return mats.packed_image("RB_HandleRatings", np.asarray(img)), cell_w, cell_h


# ---------------------------------------------------------------------------------------------
# geometry
# ---------------------------------------------------------------------------------------------

def plate_with_holes(x0: float, x1: float, z0: float, z1: float, holes) -> list[tuple[float, float, float, float]]:
    """Rectangles (x0, x1, z0, z1) covering the plate minus non-overlapping rectangular holes."""
    zs = sorted({z0, z1, *[min(max(v, z0), z1) for h in holes for v in (h[2], h[3])]})
    rects = []
    for za, zb in zip(zs[:-1], zs[1:]):
        if zb - za < 1e-6:
            continue
        zm = (za + zb) / 2
        cuts = sorted((h[0], h[1]) for h in holes if h[2] < zm < h[3])
        x = x0
        for ha, hb in cuts:
            if ha > x + 1e-6:
                rects.append((x, ha, za, zb))
            x = max(x, hb)
        if x1 > x + 1e-6:
            rects.append((x, x1, za, zb))
    return rects


def _build_room(scene, plan: LoadCenterPlan, built: BuiltLoadCenter) -> None:
    col = scene.collection
    x0, x1, d, c = plan.room_x0, plan.room_x1, plan.room_depth_m, plan.ceiling_m
    t = 0.12
    wall = wall_material(plan)
    paint = mats.principled("RB_RoomPaint", (0.62, 0.61, 0.58), roughness=0.9, specular=0.3)
    floor_color = (0.3, 0.3, 0.29) if plan.wall_finish != "drywall" else (0.28, 0.2, 0.13)
    floor = _noise_bump(mats.principled("RB_Floor", floor_color, roughness=0.7, specular=0.3), 30.0, 0.1,
                        color_mix=0.15)
    v, q = boxes([x0 - t, 0.0, -t], [x1 + t, t, c + t])
    mesh_object(WALL, v, q, col, materials=[wall])
    v, q = boxes([x0 - t, -d - t, -t], [x1 + t, 0.0, 0.0])
    mesh_object("Room_Floor", v, q, col, materials=[floor])
    v, q = boxes([x0 - t, -d - t, c], [x1 + t, 0.0, c + t])
    mesh_object("Room_Ceiling", v, q, col, materials=[paint])
    v, q = boxes([x0 - t, -d - t, 0.0], [x1 + t, -d, c])
    mesh_object("Room_BackWall", v, q, col, materials=[paint])
    side_mat = wall if plan.wall_finish != "drywall" else paint
    for side, x_in, x_out in ((-1, x0, x0 - t), (1, x1, x1 + t)):
        lo, hi = min(x_in, x_out), max(x_in, x_out)
        if plan.window_side == side:
            wy0, wy1 = -min(d - 0.4, 2.4), -min(d - 0.5, 1.2)
            rects = plate_with_holes(-d, 0.0, 0.0, c, [(wy0, wy1, 0.95, 2.05)])
            lows = [[lo, r[0], r[2]] for r in rects]
            highs = [[hi, r[1], r[3]] for r in rects]
            v, q = boxes(np.array(lows), np.array(highs))
        else:
            v, q = boxes([lo, -d, 0.0], [hi, 0.0, c])
        mesh_object(f"Room_SideWall{'L' if side < 0 else 'R'}", v, q, col, materials=[side_mat])
    base = mats.principled("RB_Baseboard", (0.7, 0.7, 0.68), roughness=0.5)
    v, q = boxes([x0, -0.015, 0.0], [x1, 0.0, 0.09])
    mesh_object("Room_Baseboard", v, q, col, materials=[base])


def _build_lights(scene, plan: LoadCenterPlan, built: BuiltLoadCenter) -> None:
    col = scene.collection
    sun_dir = sun_direction(plan)
    built.sun_direction = tuple(float(x) for x in sun_dir)
    add_sky_and_sun(scene, sun_dir, plan.sun_strength, sky_strength=0.6)
    light = bpy.data.lights.new("RB_CeilingLight", "AREA")
    light.energy = plan.ceiling_light_w
    light.shape = "SQUARE"
    light.size = plan.ceiling_light_size_m
    light.color = (1.0, 0.95, 0.88)
    obj = bpy.data.objects.new("RB_CeilingLight", light)
    obj.location = (plan.ceiling_light_xy[0], plan.ceiling_light_xy[1], plan.ceiling_m - 0.03)
    col.objects.link(obj)  # an area light faces -Z: straight down
    # the fixture's lens, a glowing panel (not a mesh the ray casts see as an occluder of note)
    glow = mats.principled("RB_FixtureLens", (0.9, 0.9, 0.88), roughness=0.5)
    nodes = glow.node_tree.nodes
    bsdf = nodes.get("Principled BSDF")
    compat.principled_input(bsdf, "Emission Color").default_value = (1.0, 0.96, 0.9, 1.0)
    compat.principled_input(bsdf, "Emission Strength").default_value = 3.0
    s = plan.ceiling_light_size_m / 2
    lx, ly = plan.ceiling_light_xy
    v, q = boxes([lx - s, ly - s, plan.ceiling_m - 0.025], [lx + s, ly + s, plan.ceiling_m])
    mesh_object("Room_LightFixture", v, q, col, materials=[glow])


def _build_box(scene, plan: LoadCenterPlan, built: BuiltLoadCenter, rng: np.random.Generator) -> None:
    col = scene.collection
    steel = panel_steel_material("RB_PanelSteel", (0.5, 0.51, 0.5), roughness=0.38)
    steel_light = panel_steel_material("RB_PanelSteelDoor", (0.55, 0.56, 0.55), roughness=0.4)
    black = mats.principled("RB_BreakerPlastic", (0.018, 0.018, 0.02), roughness=0.45)
    cx = plan.box_center_x
    w2 = plan.cover_width_m / 2
    ztop = plan.box_top_z + plan.cover_margin_m
    zbot = plan.box_bottom_z - plan.cover_margin_m
    front = plan.cover_front_y
    back = -plan.box_depth_m  # the cover's back; the box (or the trim's frame) fills to the wall
    if plan.mount == "surface":
        v, q = boxes([cx - BOX_WIDTH_M / 2, back, plan.box_bottom_z], [cx + BOX_WIDTH_M / 2, 0.0, plan.box_top_z])
    else:
        v, q = boxes([cx - w2, back, zbot], [cx + w2, 0.0, ztop])
    mesh_object(BOX, v, q, col, materials=[steel])
    # the dead front, with an opening for each breaker and the main
    holes, bodies, handles, ties, buttons, marks = [], [], [], [], [], []
    for circuit in plan.circuits:
        first = plan.slot_center(circuit.slot)
        column = -1 if circuit.slot % 2 else 1
        n = circuit.poles
        z_hi = first[2] + SLOT_M / 2 - 0.0008
        z_lo = first[2] - SLOT_M / 2 - (n - 1) * SLOT_M + 0.0008
        inner = cx + column * 0.45 * INCH
        outer = cx + column * 2.55 * INCH
        hx0, hx1 = min(inner, outer), max(inner, outer)
        holes.append((hx0, hx1, z_lo, z_hi))
        bodies.append(([hx0, front + BODY_PROUD_M, z_lo], [hx1, front + 0.03, z_hi]))
        for p in range(n):
            zc = first[2] - p * SLOT_M
            hx = cx + column * COLUMN_OFFSET_M
            handles.append(([hx - HANDLE_LEN_M / 2, front - HANDLE_PROTRUDE_M, zc - HANDLE_H_M / 2],
                            [hx + HANDLE_LEN_M / 2, front + 0.003, zc + HANDLE_H_M / 2]))
            marks.append((hx, front - HANDLE_PROTRUDE_M - 0.0003, zc, HANDLE_LEN_M * 0.8, HANDLE_H_M * 0.8,
                          circuit.amps))
        if n == 2:
            hx = cx + column * COLUMN_OFFSET_M
            ties.append(([hx - 0.004, front - HANDLE_PROTRUDE_M + 0.002, first[2] - SLOT_M],
                         [hx + 0.004, front - HANDLE_PROTRUDE_M + 0.006, first[2]]))
        if circuit.breaker != "standard":
            bx = cx + column * 2.1 * INCH
            buttons.append((circuit.breaker, [bx - 0.004, front - 0.003, first[2] - 0.003],
                            [bx + 0.004, front + 0.003, first[2] + 0.003]))
    main = plan.main_breaker_center()
    mw, mh = 2.1 * INCH, 1.5 * INCH
    holes.append((cx - mw, cx + mw, main[2] - mh, main[2] + mh))
    bodies.append(([cx - mw, front + BODY_PROUD_M, main[2] - mh], [cx + mw, front + 0.035, main[2] + mh]))
    handles.append(([cx - 1.3 * INCH, front - 0.02, main[2] - 0.3 * INCH], [cx + 1.3 * INCH, front + 0.003,
                                                                           main[2] + 0.3 * INCH]))
    marks.append((cx, front - 0.0203, main[2], 1.2 * INCH, 0.5 * INCH, plan.main_amps))
    rects = plate_with_holes(cx - w2, cx + w2, zbot, ztop, holes)
    v, q = boxes(np.array([[r[0], front, r[2]] for r in rects]), np.array([[r[1], back, r[3]] for r in rects]))
    mesh_object(COVER, v, q, col, materials=[steel])
    _build_cover_screws(scene, cx, w2, zbot, ztop, front)
    v, q = boxes(np.array([b[0] for b in bodies]), np.array([b[1] for b in bodies]))
    mesh_object(BREAKERS, v, q, col, materials=[black])
    lows = [h[0] for h in handles] + [t[0] for t in ties]
    highs = [h[1] for h in handles] + [t[1] for t in ties]
    v, q = boxes(np.array(lows), np.array(highs))
    mesh_object(HANDLES, v, q, col, materials=[black])
    if buttons:
        colors = {"gfci": (0.75, 0.72, 0.6), "afci": (0.1, 0.25, 0.6), "dual": (0.55, 0.55, 0.55)}
        button_mats = [mats.principled(f"RB_TestButton_{k}", c, roughness=0.4) for k, c in colors.items()]
        order = list(colors)
        v, q = boxes(np.array([b[1] for b in buttons]), np.array([b[2] for b in buttons]))
        face_mats = np.repeat([order.index(b[0]) for b in buttons], 6)
        mesh_object("Panel_TestButtons", v, q, col, materials=button_mats, face_materials=face_mats)
    _build_markings(scene, marks)
    _build_door(scene, plan, steel, steel_light)
    if plan.mount == "surface":
        _build_conduits(scene, plan, rng)


def _build_markings(scene, marks) -> None:
    """The rating on each handle's end: quads facing the room, UV-mapped into the ratings atlas."""
    atlas, cell_w, cell_h = _handle_atlas()
    material = mats.image_material("RB_HandleRatings", atlas, roughness=0.5)
    n_cells = len(ATLAS_VALUES)
    corners, uvs = [], []
    for x, y, z, w, h, amps in marks:
        if amps not in ATLAS_VALUES:
            continue
        i = ATLAS_VALUES.index(amps)
        # the cell keeps its aspect: fit it inside the handle end
        hh = min(h, w * cell_h / cell_w) / 2
        hw = hh * cell_w / cell_h
        corners.append([[x - hw, y, z - hh], [x + hw, y, z - hh], [x + hw, y, z + hh], [x - hw, y, z + hh]])
        u0, u1 = i / n_cells, (i + 1) / n_cells
        uvs.append([[u0, 0.0], [u1, 0.0], [u1, 1.0], [u0, 1.0]])
    if corners:
        _textured_quads(MARKINGS, np.array(corners), np.array(uvs), material, scene.collection)


def _build_door(scene, plan: LoadCenterPlan, steel, steel_inner) -> None:
    col = scene.collection
    w, h, t = plan.door_width_m, plan.door_height_m, plan.door_thickness_m
    xa, xb = sorted((0.0, -plan.hinge_side * w))
    # a formed pan: the outer sheet, and a lip round the inside edge
    lows = [[xa, -t, -h / 2]]
    highs = [[xb, -t + 0.0015, h / 2]]
    lip = 0.012
    for (lx0, lx1, lz0, lz1) in ((xa, xb, h / 2 - lip, h / 2), (xa, xb, -h / 2, -h / 2 + lip),
                                 (xa, xa + lip, -h / 2, h / 2), (xb - lip, xb, -h / 2, h / 2)):
        lows.append([lx0, -t + 0.0015, lz0])
        highs.append([lx1, 0.0, lz1])
    v, q = boxes(np.array(lows), np.array(highs))
    faces = np.zeros(len(q), int)
    faces[3::6] = 1  # every +Y face (the door's inside) gets the lighter paint
    mesh_object(DOOR, v, q, col, matrix=plan.door_matrix(), materials=[steel, steel_inner], face_materials=faces)
    # the latch on the outer face, near the free edge
    free = xb - 0.025 if plan.hinge_side < 0 else xa + 0.025
    v, q = boxes([free - 0.008, -t - 0.01, -0.03], [free + 0.008, -t, 0.03])
    mesh_object("Panel_DoorLatch", v, q, col, matrix=plan.door_matrix(),
                materials=[mats.principled("RB_LatchBlack", (0.03, 0.03, 0.03), roughness=0.4)])


def _build_conduits(scene, plan: LoadCenterPlan, rng: np.random.Generator) -> None:
    emt = mats.principled("RB_EMT", (0.6, 0.61, 0.62), roughness=0.3, metallic=1.0)
    n = int(rng.integers(1, 4))
    y = -plan.box_depth_m / 2
    for i in range(n):
        x = plan.box_center_x + (i - (n - 1) / 2) * 0.07
        pts = np.array([[x, y, plan.box_top_z - 0.01], [x, y, plan.ceiling_m + 0.01]])
        curve_object(f"Prop_Conduit{i}", pts, 0.011, scene.collection, material=emt)


def _build_card(scene, plan: LoadCenterPlan, built: BuiltLoadCenter) -> None:
    pixels, layout = card_texture(plan.card)
    built.layout = layout
    image = mats.packed_image("RB_DirectoryCard", pixels)
    material = mats.image_material("RB_DirectoryCard", image, roughness=0.18 if plan.card.glossy else 0.75)
    tl, tr, br, bl = plan.card_corners()
    # counter-clockwise seen from the writing's side: BL, BR, TR, TL; texture v = 1 at the top
    _textured_quads(CARD, np.array([[bl, br, tr, tl]]), np.array([[[0, 0], [1, 0], [1, 1], [0, 1]]]), material,
                    scene.collection)


def build_load_center_scene(scene, plan: LoadCenterPlan, rng: np.random.Generator) -> BuiltLoadCenter:
    """Populate `scene` (expected empty) with the load center of `plan`. `rng` only drives cosmetics."""
    built = BuiltLoadCenter(plan)
    _build_lights(scene, plan, built)
    _build_room(scene, plan, built)
    _build_box(scene, plan, built, rng)
    _build_card(scene, plan, built)
    built.objects = [o.name for o in scene.objects]
    return built

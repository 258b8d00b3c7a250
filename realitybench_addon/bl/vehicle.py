"""Build a `VehiclePlan` in Blender: every part of `core/vehicle_geometry.vehicle_geometry` as its own object
(panels are separate targets), placed by a world matrix, with car-paint, glass, rubber, chrome and
lamp materials.

Object names are `<prefix>_<part>` (`Car0_door_front_left`, `Car0_glass_right`, `Car0_tyres`).
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..core.tyre_sidewall import BAND as SIDEWALL_BAND
from ..core.tyre_sidewall import sidewall_strip
from ..core.vehicle import VehiclePlan
from ..core.vehicle_details import DRESSING_PREFIX
from ..core.vehicle_geometry import vehicle_geometry
from ..core.vehicle_interior import COSMETIC_PREFIX
from ..core.vehicle_loft import Part
from . import compat
from . import materials as mats
from .materials import math_node
from .meshes import mesh_object
from .material_cache import reused

SMOOTH_ANGLE_DEG = 32.0  # loft facets smooth up to this crease angle; sharper edges (caps, boxes) stay sharp
FLAT_PARTS = ("grille", "mirrors", "handles", "roof_rails",
              "trim_strips", "soft_top", "windshield_frame", "underbody", "bed")
CABIN_SMOOTH_DEG = 75.0  # the cabin's rounded blocks are coarse: smooth them across their facets
ROUNDED_PARTS = ("seats",)  # the convertible's cockpit seats: rounded blocks like the cabin's, but targets


@dataclass
class BuiltVehicle:
    prefix: str
    plan: VehiclePlan
    matrix: np.ndarray  # vehicle frame -> world
    objects: dict[str, str] = field(default_factory=dict)  # part -> object name

    def names(self, parts=None) -> list[str]:
        return [self.objects[p] for p in (parts or self.objects) if p in self.objects]

    @property
    def body(self) -> list[str]:
        """Every object of the vehicle's outside (the whole car as a target): the cabin seen through the glass and
        the outside's dressing (rounded mirrors inside the measured mirror boxes) are left out, so the car's
        surface samples are what they were before it was furnished."""
        return [n for k, n in self.objects.items() if not k.startswith((COSMETIC_PREFIX, DRESSING_PREFIX))]


def _object_xyz(nodes, links):
    coord = nodes.new("ShaderNodeTexCoord")
    sep = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["Object"], sep.inputs[0])
    return coord, sep


@reused
def paint_material(name: str, rgb, metallic: float):
    """Car paint: a base coat (metallic flake as partial metalness) under a glossy clear coat, with a little
    road dirt low on the body (object z is the height above the ground: the car's frame has its origin there)."""
    rough = 0.32 if metallic > 0.3 else 0.22
    mat = mats.principled(name, tuple(rgb), roughness=rough, metallic=0.55 * metallic, specular=0.5)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    mats.clear_coat(bsdf, 1.0, 0.03)
    coord, sep = _object_xyz(nodes, links)
    # 1 at the sills, 0 from DIRT_TOP_M up
    low = math_node(nodes, links, "MULTIPLY_ADD", sep.outputs["Z"], -1.0 / DIRT_FADE_M, DIRT_TOP_M / DIRT_FADE_M,
                clamp=True)
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 7.0
    noise.inputs["Detail"].default_value = 4.0
    links.new(coord.outputs["Object"], noise.inputs["Vector"])
    splash = math_node(nodes, links, "MULTIPLY_ADD", noise.outputs["Fac"], 2.6, -0.6)
    dirt = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "POWER", low, 1.6), splash, clamp=True)
    dirt = math_node(nodes, links, "MULTIPLY", dirt, 0.9)
    dirt.node.label = DIRT_NODE_LABEL  # bl/damage.py keeps it off a damage
    ramp = mats.color_ramp(nodes, links, dirt, [(0.0, tuple(rgb)), (1.0, DIRT_RGB)])
    links.new(_panel_shade(nodes, links, coord, ramp.outputs["Color"]), compat.principled_input(bsdf, "Base Color"))
    links.new(math_node(nodes, links, "MULTIPLY_ADD", dirt, 0.6, rough), compat.principled_input(bsdf, "Roughness"))
    coat_socket = mats.coat_input(bsdf, "Weight")
    if coat_socket is not None:  # dirt dulls the clear coat
        links.new(math_node(nodes, links, "MULTIPLY_ADD", dirt, -1.0, 1.0), coat_socket)
    _orange_peel(nodes, links, bsdf, coord)
    return mat


PANEL_RANDOM = "rb_panel_random"  # the object property `_panel_shade` reads: in [0, 1), from the part's name
PANEL_SHADE = 0.07  # panels differ in lightness by up to +-3.5% (refinished, sun-faded, another batch)
PANEL_HUE = 0.008  # and in hue by up to +-0.4%
PEEL_SCALE = 260.0  # orange peel: the clear coat's fine ripple, features of a few mm (1/m)
PEEL_STRENGTH = 0.025  # the ripple's bump strength (0.04 on both layers read as stucco up close)


def _panel_shade(nodes, links, coord, color):
    """`color` shifted a little per panel (each panel is its own object with its own `PANEL_RANDOM` number) and by
    a faint metre-sized mottling, so the paint is not one even colour across the car. A damaged panel's damage
    object carries its panel's number: with Object Info's random (one per object name) its 1 cm cells showed as
    a blocky halo round every scratch."""
    info = nodes.new("ShaderNodeAttribute")
    info.attribute_type = "OBJECT"
    info.attribute_name = PANEL_RANDOM
    mottle = nodes.new("ShaderNodeTexNoise")
    mottle.inputs["Scale"].default_value = 1.3
    mottle.inputs["Detail"].default_value = 2.0
    links.new(coord.outputs["Object"], mottle.inputs["Vector"])
    hsv = nodes.new("ShaderNodeHueSaturation")
    links.new(math_node(nodes, links, "MULTIPLY_ADD", info.outputs["Fac"], PANEL_HUE, 0.5 - PANEL_HUE / 2),
              hsv.inputs["Hue"])
    shade = math_node(nodes, links, "MULTIPLY_ADD", info.outputs["Fac"], PANEL_SHADE, 1.0 - PANEL_SHADE / 2)
    links.new(math_node(nodes, links, "MULTIPLY", shade,
                        math_node(nodes, links, "MULTIPLY_ADD", mottle.outputs["Fac"], 0.08, 0.96)), hsv.inputs["Value"])
    links.new(color, hsv.inputs["Color"])
    return hsv.outputs["Color"]


def _orange_peel(nodes, links, bsdf, coord) -> None:
    """The clear coat's orange peel: a fine, shallow ripple that wobbles the reflections in the coat only. The
    base coat under it is smooth: a third panel saw the peel on both layers, in a close-up under the sun, as
    "exaggerated bump-mapped paint" (a stucco grain in the diffuse shading)."""
    coat_normal = mats.coat_input(bsdf, "Normal")
    if coat_normal is None:  # no coat layer to ripple
        return
    peel = nodes.new("ShaderNodeTexNoise")
    peel.label = "orange peel"
    peel.inputs["Scale"].default_value = PEEL_SCALE
    peel.inputs["Detail"].default_value = 1.0
    links.new(coord.outputs["Object"], peel.inputs["Vector"])
    mats.bump_normal(nodes, links, bsdf, peel.outputs["Fac"], strength=PEEL_STRENGTH, distance=0.002,
                     into=coat_normal)


DIRT_NODE_LABEL = "Road dirt"  # the node whose output is the dirt amount (0 clean .. 0.9)
DIRT_TOP_M = 0.6  # road dirt fades out by this height
DIRT_FADE_M = 0.42
DIRT_RGB = (0.075, 0.062, 0.048)

# Shared materials: key -> (colour, roughness, metallic, specular)
SHARED = {
    "trim": ((0.018, 0.018, 0.02), 0.55, 0.0, 0.3),
    # piano-black B/C-pillar applique: glossy enough to mirror the lot, as the paint beside it does
    "pillar_black": ((0.006, 0.006, 0.007), 0.06, 0.0, 0.5),
    "chassis": ((0.012, 0.012, 0.012), 0.9, 0.0, 0.1),
    "inner": ((0.004, 0.004, 0.004), 1.0, 0.0, 0.0),
    "wheel_dark": ((0.02, 0.02, 0.022), 0.6, 0.3, 0.3),
    "wheel_metal": ((0.55, 0.56, 0.58), 0.28, 1.0, 0.5),
    "interior": ((0.03, 0.03, 0.032), 0.85, 0.0, 0.2),
    "seat": ((0.045, 0.042, 0.04), 0.8, 0.0, 0.3),
    "dash": ((0.02, 0.02, 0.022), 0.55, 0.0, 0.35),
    "wheel_rim": ((0.012, 0.012, 0.013), 0.4, 0.0, 0.4),
    "softtop": ((0.015, 0.015, 0.017), 0.95, 0.0, 0.1),
    "bedliner": ((0.025, 0.025, 0.027), 0.9, 0.0, 0.15),
}


@reused
def glass_material(name: str, tint=(0.5, 0.53, 0.53)):
    """Window glass: see-through (tinted, no refraction: a single pane) with a Fresnel-weighted mirror that only
    camera rays see. The paint's clear coat meets the glass in a concave corner along the beltline: a coat ray
    that bounced off a mirror there onto the sun found a caustic a few samples catch and most miss, the bright
    dots along the beltline; every other ray now passes the pane (the sun's own glint on the glass stays)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    nodes.remove(bsdf)
    see = nodes.new("ShaderNodeBsdfTransparent")
    see.inputs["Color"].default_value = (*tint, 1.0)
    mirror = nodes.new("ShaderNodeBsdfGlossy")
    mirror.inputs["Roughness"].default_value = 0.02
    fresnel = nodes.new("ShaderNodeFresnel")
    fresnel.inputs["IOR"].default_value = 1.52
    mix = nodes.new("ShaderNodeMixShader")
    path = nodes.new("ShaderNodeLightPath")
    links.new(math_node(nodes, links, "MULTIPLY", fresnel.outputs["Fac"], path.outputs["Is Camera Ray"]),
              mix.inputs["Fac"])
    links.new(see.outputs["BSDF"], mix.inputs[1])
    links.new(mirror.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes.get("Material Output").inputs["Surface"])
    mat.diffuse_color = (0.05, 0.06, 0.07, 1.0)
    return mat


@reused
def clear_material(name: str):
    """Fully see-through: the inner shell behind the glass (still geometry for ray casts, invisible in renders)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    nodes.remove(bsdf)
    see = nodes.new("ShaderNodeBsdfTransparent")
    links.new(see.outputs["BSDF"], nodes.get("Material Output").inputs["Surface"])
    return mat


REVERSE_LENS_RGB = (0.95, 0.95, 0.96)  # a tail lamp's clear reversing segment ...
REVERSE_REFLECTOR_RGB = (0.3, 0.31, 0.33)  # ... over a silvered reflector
DIVIDER_HALF_U = 0.012  # the housing's wall between the segments, in the lamp's u (about 5 mm)


@reused
def lamp_material(name: str, lens_rgb, reflector_rgb, cell_m: float, reverse_share: float = 0.0):
    """A lamp without emission: a glossy clear lens (the coat) over a faceted reflector (Voronoi bowls whose
    centres are bright, their rims dark housing). `reverse_share`: the inner end of the lamp (u below it,
    `core.vehicle_lamps.add_lamp`'s u runs from the car's centre round the corner) is a clear reversing
    segment behind a wall of housing, as on a real tail lamp (issue 41: tail lamps read as flat red stickers)."""
    mat = mats.principled(name, reflector_rgb, roughness=0.18, metallic=0.9, specular=0.8)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    mats.clear_coat(bsdf, 1.0, 0.0)
    mats.set_input(bsdf, "Coat Tint", (*lens_rgb, 1.0))
    coord = nodes.new("ShaderNodeTexCoord")
    cells = nodes.new("ShaderNodeTexVoronoi")
    cells.inputs["Scale"].default_value = 1.0 / cell_m
    links.new(coord.outputs["Object"], cells.inputs["Vector"])
    dark = tuple(c * 0.3 for c in reflector_rgb)  # the housing between the bowls
    ramp = mats.color_ramp(nodes, links, cells.outputs["Distance"],
                           [(0.0, reflector_rgb), (0.75, tuple(0.7 * c for c in reflector_rgb)), (1.0, dark)])
    bezel, depth = _lamp_housing(nodes, links, coord)
    lit = mats.mix_rgb(nodes, links, depth, (0.0, 0.0, 0.0), ramp.outputs["Color"])  # the colour times depth
    if reverse_share > 0.0:
        bezel, lit = _reverse_segment(nodes, links, bsdf, coord, bezel, lit, depth, lens_rgb, reverse_share)
    lit = mats.mix_rgb(nodes, links, bezel, lit, HOUSING_RGB)
    links.new(lit, compat.principled_input(bsdf, "Base Color"))
    links.new(math_node(nodes, links, "MULTIPLY_ADD", bezel, 0.4, 0.18), compat.principled_input(bsdf, "Roughness"))
    links.new(math_node(nodes, links, "MULTIPLY_ADD", bezel, -0.9, 0.9), compat.principled_input(bsdf, "Metallic"))
    height = math_node(nodes, links, "MULTIPLY_ADD", bezel, 2.0, cells.outputs["Distance"])
    mats.bump_normal(nodes, links, bsdf, height, strength=0.3, distance=0.01)
    return mat


HOUSING_RGB = (0.012, 0.012, 0.013)  # the lamp's black housing round the lens


def _reverse_segment(nodes, links, bsdf, coord, bezel, lit, depth, lens_rgb, share: float):
    """(bezel, colour) with the lamp's u < `share` made a clear segment: a silvered reflector under a clear
    lens (where this Blender tints the coat), walled off from the rest by a strip of housing."""
    uv = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["UV"], uv.inputs[0])
    u = uv.outputs["X"]
    inner = math_node(nodes, links, "LESS_THAN", u, share)
    wall = mats.map_range(nodes, links, math_node(nodes, links, "ABSOLUTE", math_node(nodes, links, "SUBTRACT", u,
                                                                                        share)),
                          DIVIDER_HALF_U, 0.6 * DIVIDER_HALF_U)
    silver = mats.mix_rgb(nodes, links, depth, (0.0, 0.0, 0.0), REVERSE_REFLECTOR_RGB)
    lit = mats.mix_rgb(nodes, links, inner, lit, silver)
    tint = bsdf.inputs.get("Coat Tint")
    if tint is not None:  # 4.0 on; 3.4's clear coat has no tint, and its lamps keep one lens colour
        links.new(mats.mix_rgb(nodes, links, inner, lens_rgb, REVERSE_LENS_RGB), tint)
    return math_node(nodes, links, "MAXIMUM", bezel, wall), lit


def _lamp_housing(nodes, links, coord):
    """From the lamp's UVs (`core.vehicle_lamps.add_lamp`, 0..1 over each lamp): (bezel: 1 on the housing's
    rim round the lens, 0 inside; depth: the reflector's brightness, darker near the rim, as in a deep bowl)."""
    uv = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["UV"], uv.inputs[0])
    u, v = uv.outputs["X"], uv.outputs["Y"]
    edge_u = math_node(nodes, links, "MINIMUM", u, math_node(nodes, links, "SUBTRACT", 1.0, u))
    edge_v = math_node(nodes, links, "MINIMUM", v, math_node(nodes, links, "SUBTRACT", 1.0, v))
    edge = math_node(nodes, links, "MINIMUM", math_node(nodes, links, "MULTIPLY", edge_u, 2.0), edge_v)  # lamps ~2:1
    bezel = mats.map_range(nodes, links, edge, 0.09, 0.06)
    depth = mats.map_range(nodes, links, edge, 0.07, 0.35, 0.55, 1.0)
    return bezel, depth


GRILLE_MESH_M = (0.022, 0.013)  # a mesh grille's diamond openings: width (across the car) and height
GRILLE_WEB = 0.22  # the share of each diamond's half diagonal that is webbing


def _diamond_mesh(nodes, links, sep, color):
    """(colour, height) of a diamond mesh over the car frame's (y, z): two families of diagonal webs with dark
    openings between them, the webs raised (a staggered brick pattern read as "a brick texture as a grille")."""
    y = math_node(nodes, links, "DIVIDE", sep.outputs["Y"], GRILLE_MESH_M[0])
    z = math_node(nodes, links, "DIVIDE", sep.outputs["Z"], GRILLE_MESH_M[1])
    web = None
    for diagonal in (math_node(nodes, links, "ADD", y, z), math_node(nodes, links, "SUBTRACT", y, z)):
        # 0 in the middle of an opening, 1 on the web's crest
        across = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "ABSOLUTE", math_node(
            nodes, links, "SUBTRACT", math_node(nodes, links, "FRACT", diagonal), 0.5)), 2.0)
        web = across if web is None else math_node(nodes, links, "MAXIMUM", web, across)
    solid = mats.map_range(nodes, links, web, 1.0 - GRILLE_WEB - 0.04, 1.0 - GRILLE_WEB + 0.04)
    hole = (0.002, 0.002, 0.002)
    colour = mats.mix_rgb(nodes, links, solid, hole, color)
    height = math_node(nodes, links, "MULTIPLY", solid, mats.map_range(nodes, links, web, 1.0 - GRILLE_WEB, 1.0, 1.0,
                                                                        0.6))
    return colour, height


SLAT_PITCH_M, SLAT_GAP = 0.05, 0.3  # a truck grille's bars: 5 cm apart, the lowest 30 % of each pitch a dark gap


@reused
def grille_material(name: str, slats: bool):
    """A grille: horizontal slats (trucks, SUVs, vans: satin grey) or a fine black mesh (cars), procedural on
    the car frame's (y, z) with dark holes between."""
    color = (0.09, 0.09, 0.095) if slats else (0.02, 0.02, 0.022)
    mat = mats.principled(name, color, roughness=0.35 if slats else 0.5, metallic=0.6 if slats else 0.0)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    coord, sep = _object_xyz(nodes, links)
    if slats:
        band = math_node(nodes, links, "FRACT", math_node(nodes, links, "DIVIDE", sep.outputs["Z"], SLAT_PITCH_M))
        ramp = mats.color_ramp(nodes, links, band, [(0.0, (0.003, 0.003, 0.003)), (0.3, (0.003, 0.003, 0.003)),
                                                    (0.36, color), (1.0, tuple(0.6 * c for c in color))])
        # each bar round in section (a half sine over its width), not a wedge: a sawtooth bump made every slat
        # a tilted plane with a sharp drop, "stacked box primitives" to a blind panel
        across = mats.map_range(nodes, links, band, SLAT_GAP, 1.0, 0.0, 1.0)
        height = math_node(nodes, links, "SINE", math_node(nodes, links, "MULTIPLY", across, math.pi))
        colour = ramp.outputs["Color"]
    else:
        colour, height = _diamond_mesh(nodes, links, sep, color)
    links.new(colour, compat.principled_input(bsdf, "Base Color"))
    mats.bump_normal(nodes, links, bsdf, height, strength=0.8, distance=0.01)
    return mat


@reused
def tyre_material(name: str):
    """Rubber: a tread of transverse grooves round the running surface, a matt sidewall whose outer edge
    bends away (a rounded shoulder). The tyres' UVs are (cos, sin) of the angle round the axle times the
    radius over the tyre radius (`core.vehicle_details.tyre_uv`); the object-space normal tells the
    sidewall (along y) from the tread."""
    mat = mats.principled(name, (0.02, 0.02, 0.02), roughness=0.8, specular=0.25)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    coord = nodes.new("ShaderNodeTexCoord")
    uv = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["UV"], uv.inputs[0])
    normal = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["Normal"], normal.inputs[0])
    side = math_node(nodes, links, "GREATER_THAN", math_node(nodes, links, "ABSOLUTE", normal.outputs["Y"]), 0.5)
    angle = math_node(nodes, links, "ARCTAN2", uv.outputs["Y"], uv.outputs["X"])
    r2 = math_node(nodes, links, "ADD", math_node(nodes, links, "MULTIPLY", uv.outputs["X"], uv.outputs["X"]),
               math_node(nodes, links, "MULTIPLY", uv.outputs["Y"], uv.outputs["Y"]))
    r = math_node(nodes, links, "SQRT", r2)
    grooves = math_node(nodes, links, "GREATER_THAN", math_node(nodes, links, "SINE",
                                                       math_node(nodes, links, "MULTIPLY", angle, TREAD_BLOCKS)), 0.55)
    tread = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "SUBTRACT", 1.0, side), grooves)
    shoulder = math_node(nodes, links, "MAXIMUM", math_node(nodes, links, "SUBTRACT", r, 0.86), 0.0)
    bulge = math_node(nodes, links, "MULTIPLY", side, math_node(nodes, links, "MULTIPLY", shoulder, shoulder))
    height = math_node(nodes, links, "SUBTRACT", math_node(nodes, links, "MULTIPLY", bulge, -40.0), tread)
    letters = math_node(nodes, links, "MULTIPLY", side, _sidewall_letters(nodes, links, angle, r, normal))
    height = math_node(nodes, links, "MULTIPLY_ADD", letters, LETTER_HEIGHT_M / 0.01, height)
    mats.bump_normal(nodes, links, bsdf, height, strength=0.7, distance=0.01)
    shade = math_node(nodes, links, "ADD", side, math_node(nodes, links, "MULTIPLY", tread, 2))
    ramp = mats.color_ramp(nodes, links, shade,
                           [(0.0, (0.022, 0.022, 0.022)), (0.5, (0.03, 0.029, 0.028)), (1.0, (0.008, 0.008, 0.008))])
    color, dust = _tyre_wear(nodes, links, coord, uv, side, r, ramp.outputs["Color"])
    # the letters' faces: rubbed by kerbs and washes, a little lighter and smoother than the sidewall
    color = mats.mix_rgb(nodes, links, math_node(nodes, links, "MULTIPLY", letters, 0.6), color, LETTER_RGB)
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    rough = math_node(nodes, links, "MULTIPLY_ADD", side, -0.2, 0.85)
    rough = math_node(nodes, links, "MULTIPLY_ADD", letters, -0.15, rough)
    links.new(math_node(nodes, links, "MULTIPLY_ADD", dust, 0.12, rough), compat.principled_input(bsdf, "Roughness"))
    return mat


LETTER_HEIGHT_M = 0.0008  # the sidewall's moulded lettering stands this proud
LETTER_RGB = (0.045, 0.044, 0.043)
LETTERING_IMAGE = "RB_TyreLettering"


def _sidewall_letters(nodes, links, angle, r, normal):
    """The moulded lettering's height (0..1) at (angle round the axle, radius over the tyre's): the strip of
    `core.tyre_sidewall` wrapped round the band, read from the wheel's outside on either side of the car (the
    angle runs the other way on the right, whose sidewall faces -y)."""
    image = bpy.data.images.get(LETTERING_IMAGE)
    if image is None:
        strip = sidewall_strip()
        rows, cols = strip.shape
        image = bpy.data.images.new(LETTERING_IMAGE, cols, rows, alpha=False)
        image.colorspace_settings.name = "Non-Color"  # before the pixels: setting it reloads a generated image
        image.pixels.foreach_set(mats.blender_rgba(np.repeat(strip[..., None], 3, axis=2)).ravel())
        mats.pack_on_save(image)
    facing = math_node(nodes, links, "SIGN", normal.outputs["Y"])
    u = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "MULTIPLY", angle, facing), 1.0 / (2 * math.pi))
    r0, r1 = SIDEWALL_BAND
    v = math_node(nodes, links, "MULTIPLY_ADD", r, 1.0 / (r1 - r0), -r0 / (r1 - r0))
    vector = nodes.new("ShaderNodeCombineXYZ")
    links.new(u, vector.inputs["X"])
    links.new(v, vector.inputs["Y"])
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = image
    tex.interpolation = "Linear"
    tex.extension = "REPEAT"
    links.new(vector.outputs["Vector"], tex.inputs["Vector"])
    inside = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "GREATER_THAN", v, 0.0),
                       math_node(nodes, links, "LESS_THAN", v, 1.0))
    return math_node(nodes, links, "MULTIPLY", tex.outputs["Color"], inside)


TYRE_DUST_RGB = (0.07, 0.062, 0.052)  # dried road dust on the sidewall
TYRE_SCUFF_RGB = (0.05, 0.048, 0.046)  # the shoulder's scuffed, lighter rubber


def _tyre_wear(nodes, links, coord, uv, side, r, color):
    """The rubber's colour worn and dusty: the sidewall's outer ring (the shoulder, where kerbs and cornering
    scuff it) lighter grey; dust on the sidewall, heavier low on the tyre and in blotches; the tread's grooves
    half filled with it. Returns (colour, the dust amount)."""
    shoulder = math_node(nodes, links, "MULTIPLY", side, mats.map_range(nodes, links, r, 0.86, 0.97))
    blotch = mats.noise_fac(nodes, links, coord.outputs["Object"], 9.0, 3.0)
    low = mats.map_range(nodes, links, uv.outputs["Y"], 0.5, -0.9, 0.2, 1.0)  # uv y: height over the axle / r
    dust = math_node(nodes, links, "MULTIPLY", low, mats.map_range(nodes, links, blotch, 0.35, 0.7, 0.05, 0.4))
    dust = math_node(nodes, links, "MULTIPLY", dust, math_node(nodes, links, "MULTIPLY_ADD", side, 0.6, 0.4))
    worn = mats.mix_rgb(nodes, links, math_node(nodes, links, "MULTIPLY", shoulder, 0.7), color, TYRE_SCUFF_RGB)
    return mats.mix_rgb(nodes, links, dust, worn, TYRE_DUST_RGB), dust


TREAD_BLOCKS = 36.0  # transverse grooves round the tyre

# Materials with their own node graphs: key -> builder(name)
SPECIAL = {
    "glass": glass_material,
    "inner_clear": clear_material,
    "headlight": lambda n: lamp_material(n, (0.95, 0.97, 1.0), (0.7, 0.71, 0.73), 0.11),
    "indicator": lambda n: lamp_material(n, (1.0, 0.45, 0.05), (0.7, 0.3, 0.03), 0.04),
    "taillight": lambda n: lamp_material(n, (1.0, 0.05, 0.05), (0.4, 0.012, 0.015), 0.08, reverse_share=0.22),
    "grille_slats": lambda n: grille_material(n, True),
    "grille_mesh": lambda n: grille_material(n, False),
    "tyre": tyre_material,
}


def shared_material(key: str):
    name = f"RB_Car_{key}"
    mat = bpy.data.materials.get(name)
    if mat is None:
        if key in SPECIAL:
            return SPECIAL[key](name)
        color, rough, metal, spec = SHARED[key]
        mat = mats.principled(name, color, roughness=rough, metallic=metal, specular=spec)
    return mat


def panel_random(name: str) -> float:
    """A number in [0, 1) fixed by `name` (the same in every Blender and every run)."""
    return zlib.crc32(name.encode()) / 2.0 ** 32


def part_object(name: str, part: Part, collection, matrix, materials: dict, *, smooth: bool = True,
                uv: np.ndarray | None = None, sharp_deg: float | None = None):
    obj = mesh_object(name, part.vertices, part.triangles, collection, matrix=matrix,
                      materials=[materials[m] for m in part.materials], face_materials=part.face_material,
                      smooth=smooth)
    if smooth:
        compat.smooth_by_angle(obj.data, math.radians(sharp_deg or SMOOTH_ANGLE_DEG))
    if uv is not None:
        layer = obj.data.uv_layers.new(name="UVMap")
        loops = part.triangles.ravel()
        layer.data.foreach_set("uv", np.asarray(uv, np.float32)[loops].ravel())
    return obj


def build_vehicle(scene, plan: VehiclePlan, prefix: str, matrix: np.ndarray, *, replace_parts: dict | None = None,
                  extra_materials: dict | None = None) -> BuiltVehicle:
    """All parts of `plan` as objects `<prefix>_<part>` at `matrix` (vehicle frame -> world).

    `replace_parts`: part name -> list of (suffix, Part, uv) built instead of the plan's part (a damaged
    panel re-meshed finely, split into its damaged and undamaged faces)."""
    col = scene.collection
    geometry = vehicle_geometry(plan)
    materials = {key: shared_material(key) for key in (*SHARED, *SPECIAL)}
    materials["paint"] = paint_material(f"{prefix}_Paint", plan.paint_rgb, plan.metallic)
    materials.update(extra_materials or {})
    built = BuiltVehicle(prefix, plan, np.asarray(matrix, float))
    for name, part in geometry.parts.items():
        if replace_parts and name in replace_parts:
            for suffix, sub, uv in replace_parts[name]:
                obj = part_object(f"{prefix}_{suffix}", sub, col, matrix, materials, uv=uv)
                obj[PANEL_RANDOM] = panel_random(f"{prefix}_{name}")  # the pieces of one panel: one shade
                built.objects[suffix] = obj.name
            continue
        cosmetic = name.startswith((COSMETIC_PREFIX, DRESSING_PREFIX))
        obj = part_object(f"{prefix}_{name}", part, col, matrix, materials, smooth=name not in FLAT_PARTS,
                          uv=part.uv, sharp_deg=CABIN_SMOOTH_DEG if cosmetic or name in ROUNDED_PARTS else None)
        obj[PANEL_RANDOM] = panel_random(obj.name)
        if name in RAY_ONLY_PARTS:
            hide_from_render_rays(obj)
        built.objects[name] = obj.name
    return built


# Measured parts that a cosmetic part dresses inside their volume (core/vehicle_details.add_mirror_dressing,
# add_handle_dressing, core/vehicle_wheels): they stay in the scene, sampled and ray-cast by the measurements, but no
# render ray sees them.
RAY_ONLY_PARTS = ("mirrors", "handles", "tyres", "rims")


def hide_from_render_rays(obj) -> None:
    """Keep `obj` for the measurements (scene ray casts, surface samples) but out of every render ray."""
    for key in ("visible_camera", "visible_diffuse", "visible_glossy", "visible_transmission",
                "visible_volume_scatter", "visible_shadow"):
        if hasattr(obj, key):
            setattr(obj, key, False)


def placement_matrix(x: float, y: float, heading_deg: float) -> np.ndarray:
    """Vehicle frame -> world: the car's nose pointing along `heading_deg` (0 = +X, 90 = +Y)."""
    h = math.radians(heading_deg)
    m = np.eye(4)
    m[:3, 0] = [math.cos(h), math.sin(h), 0.0]
    m[:3, 1] = [-math.sin(h), math.cos(h), 0.0]
    m[:3, 3] = [x, y, 0.0]
    return m

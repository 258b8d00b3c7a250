"""Procedural materials (no downloaded textures): shingles, siding, brick, metals, module glass."""
from __future__ import annotations

import atexit
import math

import bpy
import numpy as np

from . import compat
from .material_cache import reused


def new_material(name: str):
    """(material, nodes, links, principled BSDF) of a fresh node material."""
    mat = bpy.data.materials.new(name)
    compat.use_shader_nodes(mat)
    nodes = mat.node_tree.nodes
    bsdf = nodes.get("Principled BSDF")
    return mat, nodes, mat.node_tree.links, bsdf


@reused
def principled(name: str, color, roughness: float = 0.6, metallic: float = 0.0, specular: float = 0.5):
    mat, _, _, bsdf = new_material(name)
    compat.principled_input(bsdf, "Base Color").default_value = (*color, 1.0)
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Metallic").default_value = metallic
    compat.principled_input(bsdf, "Specular IOR Level").default_value = specular
    mat.diffuse_color = (*color, 1.0)
    return mat


def set_input(bsdf, name: str, value) -> None:
    """Set a BSDF input where this Blender has it (names differ between lines: see `clear_coat`)."""
    socket = bsdf.inputs.get(name)
    if socket is not None:
        socket.default_value = value


def clear_coat(bsdf, weight: float, roughness: float) -> None:
    """A clear coat on any Blender we run on (4.0 renamed Clearcoat to Coat Weight)."""
    set_input(bsdf, "Coat Weight", weight)
    set_input(bsdf, "Clearcoat", weight)
    set_input(bsdf, "Coat Roughness", roughness)
    set_input(bsdf, "Clearcoat Roughness", roughness)


def coat_input(bsdf, name: str):
    """The coat's `name` socket ("Weight", "Roughness", "Normal") on any Blender we run on, or None."""
    return bsdf.inputs.get(f"Coat {name}") or bsdf.inputs.get(f"Clearcoat {name}" if name != "Weight" else "Clearcoat")


def color_ramp(nodes, links, fac_socket, colors):
    """A colour ramp over `fac_socket` with stops [(position, rgb), ...]."""
    ramp = nodes.new("ShaderNodeValToRGB")
    elements = ramp.color_ramp.elements
    for i, (pos, color) in enumerate(colors):
        el = elements[i] if i < len(elements) else elements.new(pos)
        el.position = pos
        el.color = (*color, 1.0)
    links.new(fac_socket, ramp.inputs["Fac"])
    return ramp


def math_node(nodes, links, operation: str, *operands, clamp: bool = False):
    """A math node over `operands` (sockets, numbers, or None to leave an input as it is, in input order);
    returns its output, clamped to 0..1 with `clamp`."""
    node = nodes.new("ShaderNodeMath")
    node.operation = operation
    node.use_clamp = clamp
    for socket, value in zip(node.inputs, operands):
        if value is None:
            continue
        if isinstance(value, (int, float)):
            socket.default_value = float(value)
        else:
            links.new(value, socket)
    return node.outputs[0]


def weighted_sum(nodes, links, a, b, weight_a: float):
    """The socket a * w + b * (1 - w): two factor sockets blended."""
    add = nodes.new("ShaderNodeMath")
    add.operation = "MULTIPLY_ADD"
    add.inputs[1].default_value = weight_a
    links.new(a, add.inputs[0])
    rest = nodes.new("ShaderNodeMath")
    rest.operation = "MULTIPLY"
    rest.inputs[1].default_value = 1.0 - weight_a
    links.new(b, rest.inputs[0])
    links.new(rest.outputs[0], add.inputs[2])
    return add.outputs[0]


def mix_rgb(nodes, links, factor, a, b, blend: str = "MIX"):
    """A colour mix node (ShaderNodeMix, 3.4+): a where factor = 0, b where 1. `a`, `b` are sockets or RGB."""
    mix = nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.blend_type = blend
    if isinstance(factor, (int, float)):
        mix.inputs["Factor"].default_value = factor
    else:
        links.new(factor, mix.inputs["Factor"])
    for socket, value in ((mix.inputs[6], a), (mix.inputs[7], b)):
        if isinstance(value, (tuple, list)):
            socket.default_value = (*value[:3], 1.0)
        else:
            links.new(value, socket)
    return mix.outputs[2]


def map_range(nodes, links, value, from_min, from_max, to_min=0.0, to_max=1.0):
    """`value` mapped linearly from [from_min, from_max] to [to_min, to_max], clamped."""
    node = nodes.new("ShaderNodeMapRange")
    node.clamp = True
    node.inputs["From Min"].default_value = from_min
    node.inputs["From Max"].default_value = from_max
    node.inputs["To Min"].default_value = to_min
    node.inputs["To Max"].default_value = to_max
    links.new(value, node.inputs["Value"])
    return node.outputs["Result"]


def noise_fac(nodes, links, vector, scale: float, detail: float = 2.0):
    """A Perlin noise texture's Fac over `vector`."""
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = detail
    links.new(vector, noise.inputs["Vector"])
    return noise.outputs["Fac"]


def scaled_vector(nodes, links, vector, scale):
    """`vector` multiplied component-wise by the constant `scale`."""
    node = nodes.new("ShaderNodeVectorMath")
    node.operation = "MULTIPLY"
    node.inputs[1].default_value = scale
    links.new(vector, node.inputs[0])
    return node.outputs["Vector"]


def bump_normal(nodes, links, bsdf, height, strength: float | None = None, distance: float | None = None, *,
                into=None):
    """Drive the BSDF's normal (or the socket `into`, e.g. its coat's) by a bump of `height` (Blender's defaults
    where not given)."""
    bump = nodes.new("ShaderNodeBump")
    if strength is not None:
        bump.inputs["Strength"].default_value = strength
    if distance is not None:
        bump.inputs["Distance"].default_value = distance
    links.new(height, bump.inputs["Height"])
    links.new(bump.outputs["Normal"], bsdf.inputs["Normal"] if into is None else into)
    return bump


def weathered(nodes, links, color, scale: float = 1.2, spread: tuple[float, float] = (0.88, 1.07),
              offset: float = 0.0):
    """`color` (a socket) under metre-sized blotches of weathering: granule loss and grime darken it, sun
    bleaching and dust lighten it, by factors in `spread`; the pattern follows the object's own coordinates,
    shifted by `offset` (metres along each axis) so that two objects need not share it."""
    coord = nodes.new("ShaderNodeTexCoord")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.label = "weathering"
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = 3.0
    links.new(_shifted(nodes, links, coord.outputs["Object"], offset), noise.inputs["Vector"])
    factor = nodes.new("ShaderNodeMapRange")
    factor.inputs["From Min"].default_value, factor.inputs["From Max"].default_value = 0.35, 0.65
    factor.inputs["To Min"].default_value, factor.inputs["To Max"].default_value = spread
    links.new(noise.outputs["Fac"], factor.inputs["Value"])
    return scaled_color(nodes, links, color, factor.outputs["Result"])


def _shifted(nodes, links, vector, offset: float):
    """`vector` + (offset, 0.7 offset, 0.3 offset): the same noise pattern elsewhere (the vector as it is at 0)."""
    if not offset:
        return vector
    add = nodes.new("ShaderNodeVectorMath")
    add.operation = "ADD"
    add.inputs[1].default_value = (offset, 0.7 * offset, 0.3 * offset)
    links.new(vector, add.inputs[0])
    return add.outputs["Vector"]


def scaled_color(nodes, links, color, factor):
    """The colour socket `color` times the factor socket `factor` (a vector-valued socket)."""
    scaled = nodes.new("ShaderNodeVectorMath")
    scaled.operation = "SCALE"
    links.new(color, scaled.inputs[0])
    links.new(factor, scaled.inputs["Scale"])
    return scaled.outputs["Vector"]


def _labelled_noise(nodes, links, label: str, scale: float, detail: float = 2.0, vector=None, w=None):
    """A noise texture labelled `label`: 3D over `vector`, or 1D over the float socket `w`."""
    noise = nodes.new("ShaderNodeTexNoise")
    noise.label = label
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = detail
    if w is not None:
        noise.noise_dimensions = "1D"
        links.new(w, noise.inputs["W"])
    else:
        links.new(vector, noise.inputs["Vector"])
    return noise.outputs["Fac"]


def _granules(nodes, links, coord, color):
    """Granule colour: a blend of four granule colours (dark, the body colour, light, a warm accent), one per
    ~2 mm granule, mottled in 2-5 cm clusters. Granules are the cells of a 3D Voronoi of object space: rounded
    grains facing every way (cubes of a snapped grid read as a "pixel mosaic" to a blind panel), nothing tiles.
    Returns (colour, the clusters' noise, each granule's dome: 1 at its centre, 0 at its edge)."""
    grains = nodes.new("ShaderNodeTexVoronoi")
    grains.label = "granules"
    grains.inputs["Scale"].default_value = GRANULES_PER_M
    links.new(coord, grains.inputs["Vector"])
    pick = nodes.new("ShaderNodeSeparateColor")
    links.new(grains.outputs["Color"], pick.inputs[0])
    dark = tuple(c * 0.68 for c in color)
    light = tuple(min(1.0, c * 1.35) for c in color)
    accent = (min(1.0, color[0] * 1.25), color[1] * 1.05, color[2] * 0.85)
    ramp = color_ramp(nodes, links, pick.outputs[0], [(0.0, dark), (0.3, color), (0.62, light), (0.8, accent)])
    ramp.color_ramp.interpolation = "CONSTANT"
    ramp.label = "granule_colour"
    clusters = _labelled_noise(nodes, links, "granule_blend", 38.0, 1.0, vector=coord)
    mottle = map_range(nodes, links, clusters, 0.3, 0.7, 0.8, 1.18)
    dome = map_range(nodes, links, grains.outputs["Distance"], 0.0, 0.75, 1.0, 0.0)
    return scaled_color(nodes, links, ramp.outputs["Color"], mottle), clusters, dome


GRANULES_PER_M = 480.0  # ~2 mm granules


def _voronoi_1d(nodes, links, w, scale: float, feature: str, label: str):
    node = nodes.new("ShaderNodeTexVoronoi")
    node.label = label
    node.voronoi_dimensions = "1D"
    node.feature = feature
    node.inputs["Scale"].default_value = scale
    links.new(w, node.inputs["W"])
    return node


LAMINATE_TOOTH_M = 0.22  # mean width of a laminated shingle's tooth (its cells vary from ~0 to twice this)
# A blind panel read the laminate as "stamped dark blocks", "blocky", "pixelated": short gaps (0.38-0.68 of the
# exposure) at 0.42 of the granules' brightness between teeth toned 0.65-1.35 made a mosaic of small dark
# rectangles. On a real dimensional shingle the upper layer's teeth, trapezoids, run (nearly) the whole exposure,
# the lower layer shows through between them a shade or two darker, and the teeth's blend differs subtly.
LAMINATE_CUT = (0.72, 0.97)  # how far up the exposure a gap between teeth reaches
LAMINATE_GAP = (0.5, 0.66)  # the lower layer's brightness in a gap, against the granules
LAMINATE_TONE = (0.84, 1.16)  # a tooth's tone
LAMINATE_TAPER = 0.8  # a gap is this much wider at the butt edge than at the top of the exposure


def _laminate(nodes, links, sep, exposure: float, v0: float):
    """Dimensional shingle courses from object coordinates (u along the eave, v up the slope): per course a
    row of teeth of irregular width, each its own tone (`LAMINATE_TONE`); between teeth the darker lower
    laminate shows up to an irregular cut height (`LAMINATE_CUT`, shares of the exposure), as dark as
    `LAMINATE_GAP` of its own. Returns sockets (tone, gap, shadow, gap_shade): the tooth's tone factor, 1 in a
    gap, the darkening of the shadow lines (under the course above and under each tooth's cut edge), and the
    gap's brightness factor."""
    c = math_node(nodes, links, "DIVIDE", math_node(nodes, links, "SUBTRACT", sep.outputs["Y"], v0), exposure)
    k = math_node(nodes, links, "FLOOR", c)
    f = math_node(nodes, links, "SUBTRACT", c, k)  # 0 at the course's butt edge, 1 under the next butt
    w = math_node(nodes, links, "MULTIPLY_ADD", k, 3.17, sep.outputs["X"])  # each course's teeth elsewhere
    cell = _voronoi_1d(nodes, links, w, 1.0 / LAMINATE_TOOTH_M, "F1", "laminate_teeth")
    edge = _voronoi_1d(nodes, links, w, 1.0 / LAMINATE_TOOTH_M, "DISTANCE_TO_EDGE", "laminate_edges")
    rgb = nodes.new("ShaderNodeSeparateColor")
    links.new(cell.outputs["Color"], rgb.inputs[0])
    edge_m = math_node(nodes, links, "MULTIPLY", edge.outputs["Distance"], LAMINATE_TOOTH_M)
    gap_half = math_node(nodes, links, "MULTIPLY_ADD", rgb.outputs[0], 0.05, -0.006)
    # the teeth are trapezoids, narrower at the butt: a gap widens towards the butt edge
    taper = math_node(nodes, links, "MULTIPLY_ADD", math_node(nodes, links, "SUBTRACT", 1.0, f), LAMINATE_TAPER, 1.0)
    gap_half = math_node(nodes, links, "MULTIPLY", gap_half, taper)
    cut = math_node(nodes, links, "MULTIPLY_ADD", rgb.outputs[1], LAMINATE_CUT[1] - LAMINATE_CUT[0], LAMINATE_CUT[0])
    gap = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "LESS_THAN", edge_m, gap_half),
                    math_node(nodes, links, "LESS_THAN", f, cut))
    gap.node.label = "laminate_gap"
    under_cut = math_node(nodes, links, "GREATER_THAN", f, math_node(nodes, links, "SUBTRACT", cut, 0.035))
    butt_shadow = math_node(nodes, links, "GREATER_THAN", f, 0.93)
    shadow = math_node(nodes, links, "MAXIMUM", math_node(nodes, links, "MULTIPLY", gap, under_cut), butt_shadow)
    tone = math_node(nodes, links, "MULTIPLY_ADD", rgb.outputs[2], LAMINATE_TONE[1] - LAMINATE_TONE[0],
                     LAMINATE_TONE[0])
    # the gap's own shade from the tooth's red channel folded over (its width uses the red channel as is)
    fold = math_node(nodes, links, "FRACT", math_node(nodes, links, "MULTIPLY", rgb.outputs[0], 7.0))
    gap_shade = math_node(nodes, links, "MULTIPLY_ADD", fold, LAMINATE_GAP[1] - LAMINATE_GAP[0], LAMINATE_GAP[0])
    return tone, gap, shadow, gap_shade


def _wear_mask(nodes, links, coord, amount: float, clusters):
    """Granule loss: patches (tens of cm) where the black asphalt shows, ragged at a few cm (by the granule
    clusters' noise `clusters`); `amount` 0..1 widens them."""
    patches = _labelled_noise(nodes, links, "wear", 2.4, 2.0, vector=coord)
    low = 0.7 - 0.1 * amount
    mask = map_range(nodes, links, patches, low, low + 0.08, 0.0, 0.75)
    ragged = map_range(nodes, links, clusters, 0.35, 0.6)
    return math_node(nodes, links, "MULTIPLY", mask, ragged)


def _algae_mask(nodes, links, sep, coord, algae: tuple):
    """Algae streaks below the ridge: stripes along the eave (1D noise over u) that run down the slope for a
    length of their own (another 1D noise), broken into fine vertical strands, darkest at the ridge."""
    strength, reach, cover, ridge_v, offset = algae
    u = math_node(nodes, links, "ADD", sep.outputs["X"], offset)
    stripes = _labelled_noise(nodes, links, "algae_stripes", 1.6, 2.0, w=u)
    threshold = 0.6 - 0.25 * cover
    streak = map_range(nodes, links, stripes, threshold, threshold + 0.05)
    strand_vec = nodes.new("ShaderNodeCombineXYZ")
    links.new(math_node(nodes, links, "MULTIPLY", sep.outputs["X"], 25.0), strand_vec.inputs[0])
    links.new(math_node(nodes, links, "MULTIPLY", sep.outputs["Y"], 1.2), strand_vec.inputs[1])
    strands = map_range(nodes, links, _labelled_noise(nodes, links, "algae_strands", 1.0, 1.0,
                                                      vector=strand_vec.outputs[0]), 0.3, 0.7, 0.55, 1.0)
    length = _labelled_noise(nodes, links, "algae_length", 2.2, 1.0, w=math_node(nodes, links, "ADD", u, 13.0))
    extent = math_node(nodes, links, "MULTIPLY_ADD", length, reach, 0.35 * reach)
    below = math_node(nodes, links, "DIVIDE", math_node(nodes, links, "SUBTRACT", ridge_v, sep.outputs["Y"]), extent)
    fade = math_node(nodes, links, "POWER", math_node(nodes, links, "SUBTRACT", 1.0, below, clamp=True), 1.2)
    body = math_node(nodes, links, "MULTIPLY_ADD", math_node(nodes, links, "MULTIPLY", streak, strands), 0.95, 0.05)
    mask = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "MULTIPLY", body, fade), strength)
    mask.node.label = "algae"
    return mask


ALGAE_COLOR = (0.012, 0.016, 0.011)  # Gloeocapsa magma's streaks: near black with a green cast


@reused
def shingle(name: str, color, shade_attribute: str = "tab_shade", courses: tuple[float, float] | None = None,
            algae: tuple | None = None, wear: tuple[float, float] = (0.0, 0.5), plane_coords: str = "Object"):
    """Asphalt shingles: a blend of granule colours with fine mottling, per-tab shade (a face attribute), and,
    with `courses` = (exposure, v of the first butt edge), laminated teeth of irregular width with the darker
    lower layer and shadow lines between them; granule loss and grime patches (`wear` = (pattern offset,
    amount 0..1)); `algae` (`core.roof_weathering.AlgaeStreaks.as_tuple()`) draws streaks below the ridge.
    The courses and streaks are laid out in the roof's (u, v): its object coordinates, or with `plane_coords`
    "UV" a UV map (a house's planes in one object, each in its own frame); see docs/realism.md."""
    color = tuple(color)  # any iterable of three
    mat, nodes, links, bsdf = new_material(name)
    coord = _shifted(nodes, links, nodes.new("ShaderNodeTexCoord").outputs["Object"], wear[0])
    sep = nodes.new("ShaderNodeSeparateXYZ")
    links.new(nodes.new("ShaderNodeTexCoord").outputs[plane_coords], sep.inputs[0])
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_name = shade_attribute
    tab = map_range(nodes, links, attr.outputs["Fac"], 0.0, 1.0, 0.9, 1.1)
    granules, clusters, dome = _granules(nodes, links, coord, color)
    col = scaled_color(nodes, links, granules, tab)
    # each granule a little dome, roughened by finer grit
    grit = _labelled_noise(nodes, links, "granule_bump", 900.0, 1.0, vector=coord)
    height = math_node(nodes, links, "MULTIPLY", math_node(nodes, links, "MULTIPLY_ADD", dome, 0.7, grit), 0.25)
    if courses is not None:
        tone, gap, shadow, gap_shade = _laminate(nodes, links, sep, *courses)
        col = scaled_color(nodes, links, col, tone)
        col = mix_rgb(nodes, links, gap, col, scaled_color(nodes, links, col,
                                                           math_node(nodes, links, "DIVIDE", gap_shade, tone)))
        col = scaled_color(nodes, links, col, math_node(nodes, links, "MULTIPLY_ADD", shadow, -0.45, 1.0))
    wear_mask = _wear_mask(nodes, links, coord, wear[1], clusters)
    col = mix_rgb(nodes, links, wear_mask, col, tuple(c * 0.5 for c in color))
    col = weathered(nodes, links, col, spread=(0.8, 1.1), offset=wear[0])
    if algae is not None:
        col = mix_rgb(nodes, links, _algae_mask(nodes, links, sep, coord, algae), col, ALGAE_COLOR)
    links.new(col, compat.principled_input(bsdf, "Base Color"))
    links.new(math_node(nodes, links, "MULTIPLY_ADD", wear_mask, -0.2, 0.95),
              compat.principled_input(bsdf, "Roughness"))
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.25
    bump_normal(nodes, links, bsdf, height, 0.6, 0.002)
    mat.diffuse_color = (*color, 1.0)
    return mat


@reused
def galvanized(name: str, color=(0.5, 0.5, 0.5)):
    """Weathered galvanized sheet (roof flashing): spangle crystals of a few cm in tone and roughness, dull grey
    grime blotches; object coordinates."""
    mat, nodes, links, bsdf = new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    spangle = nodes.new("ShaderNodeTexVoronoi")
    spangle.label = "spangle"
    spangle.inputs["Scale"].default_value = 45.0
    links.new(coord, spangle.inputs["Vector"])
    tone = map_range(nodes, links, spangle.outputs["Distance"], 0.0, 1.0, 0.85, 1.1)
    grime = map_range(nodes, links, _labelled_noise(nodes, links, "grime", 9.0, 4.0, vector=coord), 0.4, 0.65)
    base = nodes.new("ShaderNodeRGB")
    base.outputs[0].default_value = (*color, 1.0)
    col = mix_rgb(nodes, links, grime, scaled_color(nodes, links, base.outputs[0], tone), tuple(c * 0.55 for c in color))
    links.new(col, compat.principled_input(bsdf, "Base Color"))
    links.new(math_node(nodes, links, "MULTIPLY_ADD", grime, 0.3, math_node(nodes, links, "MULTIPLY", tone, 0.35)),
              compat.principled_input(bsdf, "Roughness"))
    compat.principled_input(bsdf, "Metallic").default_value = 1.0
    mat.diffuse_color = (*color, 1.0)
    return mat


@reused
def moulded_plastic(name: str, color, roughness: float = 0.45):
    """A hand tool's injection-moulded shell after some use: the mould's fine stipple (a bump of ~0.3 mm
    grain), grime a few centimetres across that darkens the colour and dulls it, and rubbed patches polished
    glossier (object coordinates, so each tool carries its own pattern)."""
    mat, nodes, links, bsdf = new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    grime = map_range(nodes, links, _labelled_noise(nodes, links, "grime", 28.0, 4.0, vector=coord), 0.42, 0.7)
    rubbed = map_range(nodes, links, _labelled_noise(nodes, links, "rubbed", 60.0, 2.0, vector=coord), 0.55, 0.75)
    stipple = _labelled_noise(nodes, links, "stipple", 3000.0, 0.0, vector=coord)
    base = nodes.new("ShaderNodeRGB")
    base.outputs[0].default_value = (*color, 1.0)
    tint = map_range(nodes, links, _labelled_noise(nodes, links, "tint", 9.0, 1.0, vector=coord), 0.3, 0.7, 0.93,
                     1.04)
    col = mix_rgb(nodes, links, math_node(nodes, links, "MULTIPLY", grime, 0.55),
                  scaled_color(nodes, links, base.outputs[0], tint), tuple(c * 0.45 + 0.012 for c in color))
    links.new(col, compat.principled_input(bsdf, "Base Color"))
    dulled = math_node(nodes, links, "MULTIPLY_ADD", grime, 0.25, roughness)
    links.new(math_node(nodes, links, "MULTIPLY_ADD", rubbed, -0.18, dulled),
              compat.principled_input(bsdf, "Roughness"))
    bump_normal(nodes, links, bsdf, stipple, strength=0.12, distance=0.0004)
    mat.diffuse_color = (*color, 1.0)
    return mat


@reused
def lap_siding(name: str, color, board_m: float = 0.17):
    """Horizontal lap siding: a saw-tooth wave along Z gives each board's shadow line."""
    mat, nodes, links, bsdf = new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    sep = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["Object"], sep.inputs[0])
    wave = nodes.new("ShaderNodeMath")
    wave.operation = "FRACT"
    scale = nodes.new("ShaderNodeMath")
    scale.operation = "DIVIDE"
    scale.inputs[1].default_value = board_m
    links.new(sep.outputs["Z"], scale.inputs[0])
    links.new(scale.outputs[0], wave.inputs[0])
    ramp = color_ramp(nodes, links, wave.outputs[0],
                      [(0.0, tuple(c * 0.55 for c in color)), (0.12, color), (1.0, color)])
    links.new(ramp.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
    bump_normal(nodes, links, bsdf, wave.outputs[0], distance=0.01)
    compat.principled_input(bsdf, "Roughness").default_value = 0.7
    mat.diffuse_color = (*color, 1.0)
    return mat


@reused
def brick(name: str, color):
    mat, nodes, links, bsdf = new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    tex = nodes.new("ShaderNodeTexBrick")
    tex.inputs["Color1"].default_value = (*color, 1.0)
    tex.inputs["Color2"].default_value = (*(c * 0.75 for c in color), 1.0)
    tex.inputs["Mortar"].default_value = (0.36, 0.34, 0.31, 1.0)
    tex.inputs["Scale"].default_value = 1.0
    tex.inputs["Mortar Size"].default_value = 0.01
    tex.inputs["Brick Width"].default_value = 0.2
    tex.inputs["Row Height"].default_value = 0.067
    # brick courses follow the height on every vertical wall: texture coordinates (x + y, z)
    sep = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["Object"], sep.inputs[0])
    along = nodes.new("ShaderNodeMath")
    along.operation = "ADD"
    links.new(sep.outputs["X"], along.inputs[0])
    links.new(sep.outputs["Y"], along.inputs[1])
    combine = nodes.new("ShaderNodeCombineXYZ")
    links.new(along.outputs[0], combine.inputs["X"])
    links.new(sep.outputs["Z"], combine.inputs["Y"])
    links.new(combine.outputs["Vector"], tex.inputs["Vector"])
    # A blind panel saw "flat drawn-on mortar lines": the joints are struck back into the wall (a bump that drops
    # over the mortar, whose edges catch the light), and each brick's fired face is mottled (a few cm) and
    # pitted (a few mm), so neither bricks nor joints are flat colour.
    mottle = _labelled_noise(nodes, links, "brick mottle", BRICK_MOTTLE_SCALE, 3.0, vector=coord.outputs["Object"])
    shade = map_range(nodes, links, mottle, 0.3, 0.7, 1.0 - BRICK_MOTTLE, 1.0 + BRICK_MOTTLE)
    face = mix_rgb(nodes, links, 1.0, tex.outputs["Color"], shade, blend="MULTIPLY")
    links.new(face, compat.principled_input(bsdf, "Base Color"))
    pits = _labelled_noise(nodes, links, "brick pits", BRICK_PIT_SCALE, 2.0, vector=coord.outputs["Object"])
    struck = math_node(nodes, links, "SUBTRACT", 1.0, tex.outputs["Fac"])  # 1 on a brick, 0 in a joint
    height = math_node(nodes, links, "MULTIPLY_ADD", pits, BRICK_PIT_SHARE, struck)
    bump_normal(nodes, links, bsdf, height, strength=0.7, distance=BRICK_JOINT_DEPTH_M)
    compat.principled_input(bsdf, "Roughness").default_value = 0.9
    mat.diffuse_color = (*color, 1.0)
    return mat


BRICK_MOTTLE_SCALE, BRICK_MOTTLE = 18.0, 0.14  # brick face colour: +-14 % over noise of 1/18 m
BRICK_PIT_SCALE, BRICK_PIT_SHARE = 260.0, 0.12  # the face's pitting: noise of ~4 mm, an eighth of the joint's depth
BRICK_JOINT_DEPTH_M = 0.008  # how far the mortar is struck back


# The cell grid's gaps are 2 mm wide: from a few metres away that is under a pixel, and a sub-pixel white line
# on near-black cells is what a few samples and the denoiser turn into bright dots where lines cross. The
# shader widens a gap to at least one pixel's footprint at its distance (a 1600 px frame through the main
# camera: 1/1155 rad a pixel) and fades it by the same ratio, so a gap keeps the light it reflects on average
# but never gets thinner than a pixel.
CELL_GAP_M = 0.002
PIXEL_ANGLE_RAD = 1.0 / 1155.0


BUSBARS, BUSBAR_M = 5, 0.0012  # a mono cell's printed silver busbars: how many, how wide
CELL_CHAMFER = 0.11  # a pseudo-square cell's cut corner: its leg as a share of the cell's side
BUSBAR_COLOR = (0.12, 0.12, 0.13)


def _fraction_of_cell(nodes, links, along, cell_m: float):
    """0..1 across one cell along an object axis (the Brick texture's bricks start at 0 and repeat every cell)."""
    return math_node(nodes, links, "FRACT", math_node(nodes, links, "DIVIDE", along, cell_m))


def _cell_face(nodes, links, coord, distance, cell_m: float, cell, backsheet):
    """A mono cell's face: BUSBARS thin silver lines down each cell (widened to a pixel with distance and
    faded in proportion, as the gaps are, so a far module neither flickers nor brightens), and cut corners
    where the white backsheet shows (pseudo-square wafers). Returns the colour socket for the cells."""
    xyz = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord, xyz.inputs[0])
    u = _fraction_of_cell(nodes, links, xyz.outputs["X"], cell_m)
    v = _fraction_of_cell(nodes, links, xyz.outputs["Y"], cell_m)
    # distance in metres from the nearest busbar's centre line
    spacing = cell_m / BUSBARS
    off = math_node(nodes, links, "ABSOLUTE", math_node(nodes, links, "SUBTRACT", math_node(
        nodes, links, "FRACT", math_node(nodes, links, "MULTIPLY", u, float(BUSBARS))), 0.5))
    to_bar = math_node(nodes, links, "MULTIPLY", off, spacing)
    half = math_node(nodes, links, "MAXIMUM", math_node(nodes, links, "MULTIPLY", distance, 0.5 * PIXEL_ANGLE_RAD),
                     0.5 * BUSBAR_M)
    on_bar = math_node(nodes, links, "LESS_THAN", to_bar, half)
    bar = math_node(nodes, links, "MULTIPLY", on_bar, math_node(nodes, links, "DIVIDE", 0.5 * BUSBAR_M, half))
    # a corner is cut where |u - 1/2| + |v - 1/2| > 1 - chamfer
    corner_u = math_node(nodes, links, "ABSOLUTE", math_node(nodes, links, "SUBTRACT", u, 0.5))
    corner_v = math_node(nodes, links, "ABSOLUTE", math_node(nodes, links, "SUBTRACT", v, 0.5))
    corner = math_node(nodes, links, "GREATER_THAN", math_node(nodes, links, "ADD", corner_u, corner_v),
                       1.0 - CELL_CHAMFER)
    with_bars = nodes.new("ShaderNodeMix")
    with_bars.data_type = "RGBA"
    with_bars.label = "busbars"
    with_bars.inputs[6].default_value = (*cell, 1.0)
    with_bars.inputs[7].default_value = (*BUSBAR_COLOR, 1.0)
    links.new(bar, with_bars.inputs["Factor"])
    cut = nodes.new("ShaderNodeMix")
    cut.data_type = "RGBA"
    cut.label = "cell_corners"
    links.new(with_bars.outputs[2], cut.inputs[6])
    cut.inputs[7].default_value = (*backsheet, 1.0)
    links.new(corner, cut.inputs["Factor"])
    return cut.outputs[2]


@reused
def module_glass(name: str, cell_m: float = 0.166):
    """A solar module's face: dark blue mono cells (busbars, cut corners: `_cell_face`) in a grid of white gaps
    (widened and faded to a pixel with distance), under textured anti-reflective glass (a softer, dimmer sun
    glint than plain glass) with a film of dust, heavier along the lower frame where rain leaves it."""
    mat, nodes, links, bsdf = new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    distance = nodes.new("ShaderNodeCameraData").outputs["View Distance"]
    gap = math_node(nodes, links, "MAXIMUM", math_node(nodes, links, "MULTIPLY", distance, PIXEL_ANGLE_RAD), CELL_GAP_M)
    keep = math_node(nodes, links, "DIVIDE", CELL_GAP_M, gap)  # a true-width gap's share of the widened gap's light
    cell, gap_color = (0.01, 0.015, 0.04), (0.18, 0.18, 0.19)
    gap_mix = nodes.new("ShaderNodeMix")
    gap_mix.data_type = "RGBA"
    gap_mix.inputs[6].default_value = (*cell, 1.0)
    gap_mix.inputs[7].default_value = (*gap_color, 1.0)
    links.new(keep, gap_mix.inputs["Factor"])
    tex = nodes.new("ShaderNodeTexBrick")
    tex.offset = 0.0
    face = _cell_face(nodes, links, coord.outputs["Object"], distance, cell_m, cell, gap_color)
    links.new(face, tex.inputs["Color1"])
    links.new(face, tex.inputs["Color2"])
    links.new(gap_mix.outputs[2], tex.inputs["Mortar"])
    tex.inputs["Scale"].default_value = 1.0
    links.new(gap, tex.inputs["Mortar Size"])
    tex.inputs["Brick Width"].default_value = cell_m
    tex.inputs["Row Height"].default_value = cell_m
    links.new(coord.outputs["Object"], tex.inputs["Vector"])

    # dust: a patchy film everywhere, thicker within a hand's width of the lower frame (local y = 0 there)
    patches = nodes.new("ShaderNodeTexNoise")
    patches.inputs["Scale"].default_value = 4.0
    patches.inputs["Detail"].default_value = 4.0
    links.new(coord.outputs["Object"], patches.inputs["Vector"])
    height = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord.outputs["Object"], height.inputs[0])
    edge = nodes.new("ShaderNodeMapRange")
    edge.interpolation_type = "SMOOTHSTEP"
    edge.inputs["From Min"].default_value, edge.inputs["From Max"].default_value = 0.12, 0.035
    edge.inputs["To Max"].default_value = 0.3
    links.new(height.outputs["Y"], edge.inputs["Value"])
    film = nodes.new("ShaderNodeMapRange")
    film.inputs["From Min"].default_value, film.inputs["From Max"].default_value = 0.35, 0.75
    film.inputs["To Min"].default_value, film.inputs["To Max"].default_value = 0.008, 0.045
    links.new(patches.outputs["Fac"], film.inputs["Value"])
    dust = math_node(nodes, links, "MAXIMUM", film.outputs["Result"], edge.outputs["Result"])
    dusty = nodes.new("ShaderNodeMix")
    dusty.data_type = "RGBA"
    dusty.inputs[7].default_value = (0.36, 0.33, 0.29, 1.0)
    links.new(dust, dusty.inputs["Factor"])
    links.new(tex.outputs["Color"], dusty.inputs[6])
    links.new(dusty.outputs[2], compat.principled_input(bsdf, "Base Color"))
    # the cells' own face under the glass: textured and anti-reflective, a dull sheen
    compat.principled_input(bsdf, "Roughness").default_value = CELL_ROUGHNESS
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.2
    _cover_glass(nodes, links, bsdf, coord, dust)
    mat.diffuse_color = (0.02, 0.03, 0.07, 1.0)
    return mat


CELL_ROUGHNESS = 0.4
# The cover glass as the Principled BSDF's coat (IOR 1.5: 4 % of the sky at normal incidence, most of it at
# grazing angles): its roughness from clean glass to the dustiest film, and its roller wave (tempered glass
# is not flat: reflections of the sky's edges wobble over a module), in waves per metre and bump strength.
GLASS_ROUGHNESS = (0.03, 0.3)
ROLLER_WAVE_SCALE, ROLLER_WAVE_STRENGTH = 2.5, 0.03


def _cover_glass(nodes, links, bsdf, coord, dust) -> None:
    """The module's cover glass: a coat over the cells that mirrors the sky and clouds, dulled where the dust
    film lies (`dust`, a socket: 0 clean .. 0.3 thick)."""
    clear_coat(bsdf, 1.0, GLASS_ROUGHNESS[0])
    weight, roughness = coat_input(bsdf, "Weight"), coat_input(bsdf, "Roughness")
    if weight is None or roughness is None:
        return
    links.new(math_node(nodes, links, "MULTIPLY_ADD", dust, -1.5, 1.0, clamp=True), weight)
    links.new(map_range(nodes, links, dust, 0.0, 0.3, *GLASS_ROUGHNESS), roughness)
    normal = coat_input(bsdf, "Normal")
    if normal is not None:
        wave = _labelled_noise(nodes, links, "roller wave", ROLLER_WAVE_SCALE, 0.0, vector=coord.outputs["Object"])
        bump_normal(nodes, links, bsdf, wave, ROLLER_WAVE_STRENGTH, into=normal)


PACK_ON_SAVE = "rb_pack_on_save"  # a custom property on the images `pack_on_save` marked


def packed_image(name: str, rgb: np.ndarray):
    """A Blender image from an RGB uint8 array (row 0 at the top), packed into any .blend saved with it."""
    h, w = rgb.shape[:2]
    image = bpy.data.images.new(name, w, h, alpha=False)
    image.pixels.foreach_set(blender_rgba(rgb).ravel())
    return pack_on_save(image)


def blender_rgba(rgb: np.ndarray) -> np.ndarray:
    """An RGB uint8 array (row 0 at the top) as Blender's image pixels: float32 RGBA in [0, 1], alpha 1,
    bottom row first; written into one buffer (no float64 step, no concatenation)."""
    h, w = rgb.shape[:2]
    rgba = np.empty((h, w, 4), np.float32)
    np.divide(rgb[::-1], np.float32(255.0), out=rgba[..., :3], dtype=np.float32)
    rgba[..., 3] = 1.0
    return rgba


def pack_on_save(image):
    """Headless, mark a drawn image to be packed (PNG-encoded into the file) when a .blend is saved, not now:
    packing a tape blade's texture takes some 20 ms, and an export builds scenes that are never saved. The
    `pack_before_save` handler (installed here, kept across file loads) packs them on any save. With a
    window, pack now: autosave and crash recovery write the file without running save handlers."""
    image[PACK_ON_SAVE] = True
    if not bpy.app.background:
        image.pack()
        return image
    if not any(getattr(h, "__name__", "") == pack_before_save.__name__ for h in bpy.app.handlers.save_pre):
        bpy.app.handlers.save_pre.append(pack_before_save)
        # bpy 4.5 as a module hangs at interpreter exit while any Python handler is installed
        atexit.register(_remove_pack_handler)
    return image


def _remove_pack_handler() -> None:
    while pack_before_save in bpy.app.handlers.save_pre:
        bpy.app.handlers.save_pre.remove(pack_before_save)


def pack_marked_images() -> list[str]:
    """Pack every image `pack_on_save` marked that is not packed yet; returns the names of those that could
    not be (one that fails does not keep the others out of the file)."""
    failed = []
    for image in bpy.data.images:
        if image.get(PACK_ON_SAVE) and image.packed_file is None:
            try:
                image.pack()
            except RuntimeError:
                failed.append(image.name)
    return failed


@bpy.app.handlers.persistent  # a file load would otherwise drop it
def pack_before_save(*_args) -> None:
    pack_marked_images()


def image_material(name: str, image, roughness: float = 0.4):
    mat, nodes, links, bsdf = new_material(name)
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = image
    tex.interpolation = "Cubic"
    coord = nodes.new("ShaderNodeTexCoord")
    links.new(coord.outputs["UV"], tex.inputs["Vector"])
    links.new(tex.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    return mat


def sky_world(name: str, sun_direction, strength: float = 1.0):
    """A Hosek-Wilkie sky whose sun sits exactly in `sun_direction` (a unit vector towards the sun)."""
    world = bpy.data.worlds.new(name)
    compat.use_shader_nodes(world)
    nodes, links = world.node_tree.nodes, world.node_tree.links
    sky = nodes.new("ShaderNodeTexSky")
    sky.sky_type = "HOSEK_WILKIE"
    sky.sun_direction = tuple(float(c) for c in sun_direction)
    sky.turbidity = 2.5
    bg = nodes["Background"]
    bg.inputs["Strength"].default_value = strength
    links.new(sky.outputs["Color"], bg.inputs["Color"])
    return world

"""Procedural materials (no downloaded textures): shingles, siding, brick, metals, module glass."""
from __future__ import annotations

import atexit

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


def bump_normal(nodes, links, bsdf, height, strength: float | None = None, distance: float | None = None):
    """Drive the BSDF's normal by a bump of `height` (Blender's defaults where not given)."""
    bump = nodes.new("ShaderNodeBump")
    if strength is not None:
        bump.inputs["Strength"].default_value = strength
    if distance is not None:
        bump.inputs["Distance"].default_value = distance
    links.new(height, bump.inputs["Height"])
    links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return bump


def weathered(nodes, links, color, scale: float = 1.2, spread: tuple[float, float] = (0.88, 1.07)):
    """`color` (a socket) under metre-sized blotches of weathering: granule loss and grime darken it, sun
    bleaching and dust lighten it, by factors in `spread`; the pattern follows the object's own coordinates."""
    coord = nodes.new("ShaderNodeTexCoord")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = 3.0
    links.new(coord.outputs["Object"], noise.inputs["Vector"])
    factor = nodes.new("ShaderNodeMapRange")
    factor.inputs["From Min"].default_value, factor.inputs["From Max"].default_value = 0.35, 0.65
    factor.inputs["To Min"].default_value, factor.inputs["To Max"].default_value = spread
    links.new(noise.outputs["Fac"], factor.inputs["Value"])
    scaled = nodes.new("ShaderNodeVectorMath")
    scaled.operation = "SCALE"
    links.new(color, scaled.inputs[0])
    links.new(factor.outputs["Result"], scaled.inputs["Scale"])
    return scaled.outputs["Vector"]


@reused
def shingle(name: str, color, shade_attribute: str = "tab_shade"):
    """Asphalt shingle granules: per-tab shade (a face attribute) times fine granule noise, with bump, under
    metre-sized weathering blotches."""
    mat, nodes, links, bsdf = new_material(name)
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_name = shade_attribute
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 900.0
    noise.inputs["Detail"].default_value = 2.0
    shade = weighted_sum(nodes, links, attr.outputs["Fac"], noise.outputs["Fac"], 0.6)  # tab shade, granules
    dark = tuple(c * 0.6 for c in color)
    light = tuple(min(1.0, c * 1.6) for c in color)
    ramp = color_ramp(nodes, links, shade, [(0.2, dark), (0.5, color), (0.8, light)])
    links.new(weathered(nodes, links, ramp.outputs["Color"]), compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = 0.95
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.2
    bump_normal(nodes, links, bsdf, noise.outputs["Fac"], 0.6, 0.002)
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
    tex.inputs["Mortar"].default_value = (0.45, 0.43, 0.4, 1.0)
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
    links.new(tex.outputs["Color"], compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = 0.9
    mat.diffuse_color = (*color, 1.0)
    return mat


# The cell grid's gaps are 2 mm wide: from a few metres away that is under a pixel, and a sub-pixel white line
# on near-black cells is what a few samples and the denoiser turn into bright dots where lines cross. The
# shader widens a gap to at least one pixel's footprint at its distance (a 1600 px frame through the main
# camera: 1/1155 rad a pixel) and fades it by the same ratio, so a gap keeps the light it reflects on average
# but never gets thinner than a pixel.
CELL_GAP_M = 0.002
PIXEL_ANGLE_RAD = 1.0 / 1155.0


@reused
def module_glass(name: str, cell_m: float = 0.166):
    """A solar module's face: dark blue cells in a grid of white gaps (widened and faded to a pixel with
    distance), under textured anti-reflective glass (a softer, dimmer sun glint than plain glass) with a film
    of dust, heavier along the lower frame where rain leaves it."""
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
    tex.inputs["Color1"].default_value = (*cell, 1.0)
    tex.inputs["Color2"].default_value = (0.012, 0.018, 0.045, 1.0)
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
    rough = nodes.new("ShaderNodeMapRange")
    rough.inputs["To Min"].default_value, rough.inputs["To Max"].default_value = 0.12, 0.5
    links.new(dust, rough.inputs["Value"])
    links.new(rough.outputs["Result"], compat.principled_input(bsdf, "Roughness"))
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.35
    mat.diffuse_color = (0.02, 0.03, 0.07, 1.0)
    return mat


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

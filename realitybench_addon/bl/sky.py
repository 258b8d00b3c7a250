"""The sky and the sun of an outdoor scene: a Hosek-Wilkie sky whose sun sits exactly where the sun lamp
shines from, so shadows and the sky's bright spot agree, and the scene's clouds (`core/clouds.py`) laid
over it. The lamp is named RB_Sun."""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

from ..core.clouds import CLUMP_CELLS, NOISE_DETAIL, NOISE_MEAN, NOISE_ROUGHNESS, CloudPlan, draw_clouds, fade_ranges
from . import materials as mats

SUN = "RB_Sun"
# A cloud's brightness relative to the sky 8 degrees above the horizon on the sun's side: (gain towards the sun,
# gain away from it); measured on renders, cumulus read 1.3-1.8x brighter than the blue between them.
CLOUD_GAIN = (1.4, 2.6)
CLOUD_WHITENESS = 0.75
# A cloud's lumps (a finer noise over the same deck): their scale against the clouds' cell, how far they fray
# the edge (in units of the deck noise's value), and the light they leave on a lump's lit and shaded sides.
BILLOW_SCALE, BILLOW_FRAY, BILLOW_LIGHT = 5.0, 0.2, (0.86, 1.1)


def sun_direction(elevation_deg: float, azimuth_deg: float) -> np.ndarray:
    """Unit vector towards the sun; azimuth 0 is -Y (the roof scene's downslope), 90 is +X."""
    el, az = math.radians(elevation_deg), math.radians(azimuth_deg)
    return np.array([math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az), math.sin(el)])


def sun_matrix(direction: np.ndarray) -> Matrix:
    z = direction / np.linalg.norm(direction)  # a sun lamp shines along its local -Z
    x = np.cross([0.0, 0.0, 1.0], z)
    x = x / np.linalg.norm(x) if np.linalg.norm(x) > 1e-6 else np.array([1.0, 0.0, 0.0])
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x, np.cross(z, x), z
    return Matrix(m.tolist())


def add_sky_and_sun(scene, direction: np.ndarray, strength: float, *, sky_strength: float = 1.0,
                    angle_deg: float = 0.55):
    """Set `scene`'s world to the sky and add the sun lamp; returns the lamp object."""
    scene.world = mats.sky_world("RB_Sky", direction, strength=sky_strength)
    sun = bpy.data.lights.new(SUN, "SUN")
    sun.energy = strength
    sun.angle = math.radians(angle_deg)
    sun_obj = bpy.data.objects.new(SUN, sun)
    sun_obj.matrix_world = sun_matrix(direction)
    scene.collection.objects.link(sun_obj)
    return sun_obj


def _smoothstep(nodes, links, value, edge0: float, edge1: float):
    node = nodes.new("ShaderNodeMapRange")
    node.interpolation_type = "SMOOTHSTEP"
    node.inputs["From Min"].default_value, node.inputs["From Max"].default_value = edge0, edge1
    links.new(value, node.inputs["Value"])
    return node.outputs["Result"]


def _cloud_noise(nodes, links, plan: CloudPlan, direction, z):
    """The cloud deck's value where the view ray meets it: direction * altitude / z (z floored so the
    horizon stays finite), mapped by the plan's offset, wind and cell size, the noise shifted by the plan's
    clumping times a noise `CLUMP_CELLS` coarser; returns the deck value and the finer billows' value (sockets)
    over the same deck."""
    floored = mats.math_node(nodes, links, "MAXIMUM", z.outputs["Z"], 0.03)
    reach = mats.math_node(nodes, links, "DIVIDE", plan.altitude_m, floored)
    deck = nodes.new("ShaderNodeVectorMath")
    deck.operation = "SCALE"
    links.new(direction, deck.inputs[0])
    links.new(reach, deck.inputs["Scale"])
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Location"].default_value = (plan.offset_m[0] / plan.cell_m, plan.offset_m[1] / plan.cell_m, 0.0)
    mapping.inputs["Rotation"].default_value = (0.0, 0.0, math.radians(plan.wind_deg))
    mapping.inputs["Scale"].default_value = (1.0 / (plan.cell_m * plan.stretch), 1.0 / plan.cell_m, 1.0 / plan.cell_m)
    links.new(deck.outputs["Vector"], mapping.inputs["Vector"])
    noise = nodes.new("ShaderNodeTexNoise")
    noise.noise_dimensions = "2D"  # the deck is flat: 2D noise is a quarter of 4D's work on every sky pixel
    noise.inputs["Scale"].default_value = 1.0
    noise.inputs["Detail"].default_value = NOISE_DETAIL
    noise.inputs["Roughness"].default_value = NOISE_ROUGHNESS
    links.new(mapping.outputs["Vector"], noise.inputs["Vector"])
    billows = nodes.new("ShaderNodeTexNoise")  # a cloud's own lumps, a fifth of its size
    billows.label = "cloud_billows"
    billows.noise_dimensions = "2D"
    billows.inputs["Scale"].default_value = BILLOW_SCALE
    billows.inputs["Detail"].default_value = 3.0
    billows.inputs["Roughness"].default_value = 0.6
    links.new(mapping.outputs["Vector"], billows.inputs["Vector"])
    clumps = nodes.new("ShaderNodeTexNoise")  # where clouds gather and where the sky stays clear
    clumps.label = "cloud_clumps"
    clumps.noise_dimensions = "2D"
    clumps.inputs["Scale"].default_value = 1.0 / CLUMP_CELLS
    clumps.inputs["Detail"].default_value = NOISE_DETAIL
    clumps.inputs["Roughness"].default_value = NOISE_ROUGHNESS
    shifted = nodes.new("ShaderNodeVectorMath")  # a pattern of its own: away from the deck noise's
    shifted.operation = "ADD"
    links.new(mapping.outputs["Vector"], shifted.inputs[0])
    shifted.inputs[1].default_value = (plan.offset_m[2] / plan.cell_m, -plan.offset_m[2] / plan.cell_m, 0.0)
    links.new(shifted.outputs["Vector"], clumps.inputs["Vector"])
    value = mats.math_node(nodes, links, "MULTIPLY_ADD", clumps.outputs["Fac"], plan.clumping, noise.outputs["Fac"])
    value = mats.math_node(nodes, links, "SUBTRACT", value, plan.clumping * NOISE_MEAN)
    return value, billows.outputs["Fac"]


def _cloud_coverage(nodes, links, plan: CloudPlan, value, billows, direction, z, sun: np.ndarray):
    """The clouds' coverage (density faded out by `core.clouds.fade_ranges`, its edge frayed by the billows),
    their thick cores, the view direction's cosine to the sun, and the billows' light factor (sockets)."""
    lo, hi = plan.density_ramp()
    # the billows fray a cloud's edge (their spread, about a tenth of the deck noise's, barely moves coverage)
    frayed = mats.math_node(nodes, links, "MULTIPLY_ADD", billows, BILLOW_FRAY, value)
    frayed = mats.math_node(nodes, links, "SUBTRACT", frayed, 0.5 * BILLOW_FRAY)
    density = _smoothstep(nodes, links, frayed, lo, hi)
    core = _smoothstep(nodes, links, value, hi, hi + 3.0 * plan.value_sd)
    (z0, z1), (c0, c1) = fade_ranges()
    toward_sun = nodes.new("ShaderNodeVectorMath")
    toward_sun.operation = "DOT_PRODUCT"
    links.new(direction, toward_sun.inputs[0])
    toward_sun.inputs[1].default_value = tuple(float(c) for c in sun)
    weight = mats.math_node(nodes, links, "MULTIPLY", _smoothstep(nodes, links, z.outputs["Z"], z0, z1),
                            _smoothstep(nodes, links, toward_sun.outputs["Value"], c0, c1))
    coverage = mats.math_node(nodes, links, "MULTIPLY", density, weight)
    # lumps lit and shaded within a cloud: it reads as a volume, not a flat cut-out
    relief = mats.map_range(nodes, links, billows, 0.35, 0.65, *BILLOW_LIGHT)
    return coverage, core, toward_sun.outputs["Value"], relief


def _cloud_colour(nodes, links, plan: CloudPlan, sky, sun: np.ndarray, toward_sun, core, relief):
    """The cloud's light: the sky's colour low on the sun's side, nearly white, lit more towards the sun,
    darker in thick cores (a socket)."""
    lit_sky = nodes.new("ShaderNodeTexSky")
    for attr in ("sky_type", "turbidity"):
        setattr(lit_sky, attr, getattr(sky, attr))
    lit_sky.sun_direction = sky.sun_direction
    horizontal = np.array([sun[0], sun[1], 0.0])
    horizontal = horizontal / max(np.linalg.norm(horizontal), 1e-6)
    low = horizontal * math.cos(math.radians(8.0)) + np.array([0.0, 0.0, math.sin(math.radians(8.0))])
    lit_sky.inputs["Vector"].default_value = tuple(float(c) for c in low)
    white = nodes.new("ShaderNodeMix")  # sunlit water droplets are nearly white: keep a little of the sky's tint
    white.data_type = "RGBA"
    white.inputs["Factor"].default_value = CLOUD_WHITENESS
    gray = nodes.new("ShaderNodeRGBToBW")
    links.new(lit_sky.outputs["Color"], gray.inputs[0])
    links.new(lit_sky.outputs["Color"], white.inputs[6])
    links.new(gray.outputs[0], white.inputs[7])
    forward = _smoothstep(nodes, links, toward_sun, 0.0, 1.0)
    light = mats.math_node(nodes, links, "MULTIPLY", mats.math_node(nodes, links, "MULTIPLY_ADD", forward, *CLOUD_GAIN),
                           mats.math_node(nodes, links, "MULTIPLY_ADD", core, -plan.shade, 1.0))
    light = mats.math_node(nodes, links, "MULTIPLY", light, relief)
    cloud = nodes.new("ShaderNodeVectorMath")
    cloud.operation = "SCALE"
    links.new(white.outputs[2], cloud.inputs[0])
    links.new(light, cloud.inputs["Scale"])
    return cloud.outputs["Vector"]


def _show_clouds(nodes, links, sky, background, coverage, cloud) -> None:
    """Mix the clouds over the sky for what the camera sees directly and in mirror-like reflections only:
    diffuse bounces and shadow rays, most of the rays that reach the sky, keep the plain sky, whose light
    the clouds would barely change. Cycles skips a mix-shader branch of weight 0, so those rays never
    evaluate the noise."""
    mix = nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    links.new(coverage, mix.inputs["Factor"])
    links.new(sky.outputs["Color"], mix.inputs[6])
    links.new(cloud, mix.inputs[7])
    cloudy = nodes.new("ShaderNodeBackground")
    cloudy.inputs["Strength"].default_value = background.inputs["Strength"].default_value
    links.new(mix.outputs[2], cloudy.inputs["Color"])
    path = nodes.new("ShaderNodeLightPath")
    seen = mats.math_node(nodes, links, "MAXIMUM", path.outputs["Is Camera Ray"], path.outputs["Is Glossy Ray"])
    switch = nodes.new("ShaderNodeMixShader")
    links.new(seen, switch.inputs["Fac"])
    links.new(background.outputs["Background"], switch.inputs[1])
    links.new(cloudy.outputs["Background"], switch.inputs[2])
    output = next(n for n in nodes if n.bl_idname == "ShaderNodeOutputWorld")
    links.new(switch.outputs["Shader"], output.inputs["Surface"])


def add_clouds(world, plan: CloudPlan, sun_dir) -> None:
    """Lay `plan`'s clouds over `world`'s sky (a no-op for a clear sky). A cloud's colour is the sky's own
    near the horizon on the sun's side, brightened, so low suns give warm clouds; thick cores are darker
    (`plan.shade`), and the sky shows through where `core.clouds.layer_weight` fades the layer out."""
    if not plan.visible:
        return
    nodes, links = world.node_tree.nodes, world.node_tree.links
    sky = next(n for n in nodes if n.bl_idname == "ShaderNodeTexSky")
    background = nodes["Background"]
    sun = np.asarray(sun_dir, float) / np.linalg.norm(sun_dir)
    direction = nodes.new("ShaderNodeTexCoord").outputs["Generated"]  # a world's Generated is the view direction
    z = nodes.new("ShaderNodeSeparateXYZ")
    links.new(direction, z.inputs[0])
    value, billows = _cloud_noise(nodes, links, plan, direction, z)
    coverage, core, toward_sun, relief = _cloud_coverage(nodes, links, plan, value, billows, direction, z, sun)
    cloud = _cloud_colour(nodes, links, plan, sky, sun, toward_sun, core, relief)
    _show_clouds(nodes, links, sky, background, coverage, cloud)


def dress_sky(scene, rng: np.random.Generator) -> CloudPlan | None:
    """Draw the clouds of a built scene from `rng` and lay them over its sky, with the sun where the scene's
    RB_Sun lamp shines from; None for a scene without that sky (the clouds are never drawn then)."""
    sun_obj = bpy.data.objects.get(SUN)
    world = scene.world
    if sun_obj is None or world is None or world.node_tree is None or \
            not any(n.bl_idname == "ShaderNodeTexSky" for n in world.node_tree.nodes):
        return None
    plan = draw_clouds(rng)
    add_clouds(world, plan, np.array(sun_obj.matrix_world.col[2][:3]))  # a sun lamp shines along its local -Z
    return plan

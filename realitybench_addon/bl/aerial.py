"""Aerial perspective in an outdoor scene (`core/aerial.py` has the model): every material's surface shader is
mixed with the horizon sky's glow by the share of its light the air replaces at the camera's distance.

The glow is the world's own Hosek-Wilkie sky (same sun, same turbidity, same strength) looked up in the view
ray's direction raised to the horizon, so a far hill fades into the sky above it whatever the sun does. The mix
applies to camera rays only: lighting, shadows and reflections are as before, and nothing nearer than
`HAZE_START_M` changes (its share is exactly 0). Cycles does the same with a world volume, at many times the cost
and with noise at the export's 4 samples.
"""
from __future__ import annotations

import math

import bpy

from ..core.aerial import DEGENERATE_Z, HAZE_START_M, HORIZON_MIN_ELEVATION_DEG, HazePlan
from . import compat
from . import materials as mats
from .material_cache import TEMPLATE_PREFIX

HAZED = "rb_aerial_haze"  # a material's custom property once its shader has the air mixed in (the visibility)
GROUP_NAME = "RB_AerialHaze"


def _world_sky(world):
    """(sun direction, turbidity, ground albedo, strength) of `world`'s sky, or None for a world without one."""
    if world is None or world.node_tree is None:
        return None
    sky = next((n for n in world.node_tree.nodes if n.bl_idname == "ShaderNodeTexSky"), None)
    background = next((n for n in world.node_tree.nodes if n.bl_idname == "ShaderNodeBackground"), None)
    if sky is None or background is None or sky.sky_type != "HOSEK_WILKIE":
        return None
    return (tuple(sky.sun_direction), float(sky.turbidity), float(sky.ground_albedo),
            float(background.inputs["Strength"].default_value))


def _opaque_part(link):
    """The link carrying the opaque part of a surface: through the mix shaders that cut a leaf card out of
    its square (one side transparent), so the transparent part stays transparent and shows what lies behind."""
    while link.from_node.bl_idname == "ShaderNodeMixShader":
        mix = link.from_node
        sides = [mix.inputs[1], mix.inputs[2]]
        kinds = [s.links[0].from_node.bl_idname if s.is_linked else None for s in sides]
        if "ShaderNodeBsdfTransparent" not in kinds:
            break
        other = sides[1 - kinds.index("ShaderNodeBsdfTransparent")]
        if not other.is_linked:
            break
        link = other.links[0]
    return link


def _airlight(nodes, links, sky_values):
    """An emission of the world's sky radiance along the view ray, raised to the horizon
    (`core.aerial.airlight_direction`)."""
    sun_direction, turbidity, ground_albedo, strength = sky_values
    incoming = nodes.new("ShaderNodeNewGeometry").outputs["Incoming"]  # points back towards the camera
    xyz = nodes.new("ShaderNodeSeparateXYZ")
    links.new(incoming, xyz.inputs[0])
    toward, level = nodes.new("ShaderNodeCombineXYZ"), nodes.new("ShaderNodeCombineXYZ")
    for axis in ("X", "Y"):
        flipped = mats.math_node(nodes, links, "MULTIPLY", xyz.outputs[axis], -1.0)
        links.new(flipped, toward.inputs[axis])
        links.new(flipped, level.inputs[axis])
    horizontal = nodes.new("ShaderNodeVectorMath")
    horizontal.operation = "LENGTH"
    links.new(level.outputs[0], horizontal.inputs[0])
    floor = mats.math_node(nodes, links, "MULTIPLY", horizontal.outputs["Value"],
                           math.tan(math.radians(HORIZON_MIN_ELEVATION_DEG)))
    up = mats.math_node(nodes, links, "MULTIPLY", xyz.outputs["Z"], -1.0)
    links.new(mats.math_node(nodes, links, "MAXIMUM", mats.math_node(nodes, links, "MAXIMUM", up, floor),
                             DEGENERATE_Z), toward.inputs["Z"])
    unit = nodes.new("ShaderNodeVectorMath")
    unit.operation = "NORMALIZE"
    links.new(toward.outputs[0], unit.inputs[0])
    sky = nodes.new("ShaderNodeTexSky")
    sky.sky_type = "HOSEK_WILKIE"
    sky.sun_direction = sun_direction
    sky.turbidity = turbidity
    sky.ground_albedo = ground_albedo
    links.new(unit.outputs[0], sky.inputs["Vector"])
    glow = nodes.new("ShaderNodeEmission")
    glow.inputs["Strength"].default_value = strength
    links.new(sky.outputs["Color"], glow.inputs["Color"])
    return glow.outputs["Emission"]


def _haze_share(nodes, links, plan: HazePlan):
    """`core.aerial.haze_fraction` of the camera distance, times 1 on camera rays and 0 on every other ray."""
    distance = nodes.new("ShaderNodeCameraData").outputs["View Distance"]
    beyond = mats.math_node(nodes, links, "MAXIMUM", mats.math_node(nodes, links, "SUBTRACT", distance, HAZE_START_M),
                            0.0)
    kept = mats.math_node(nodes, links, "EXPONENT",
                          mats.math_node(nodes, links, "MULTIPLY", beyond, -1.0 / plan.extinction_length_m))
    share = mats.math_node(nodes, links, "SUBTRACT", 1.0, kept)
    camera_ray = nodes.new("ShaderNodeLightPath").outputs["Is Camera Ray"]
    return mats.math_node(nodes, links, "MULTIPLY", share, camera_ray)


def _emits(mat) -> bool:
    """Whether `mat` gives light of its own (a lamp's lens, a screen): Cycles samples it as a light, and the glow
    mixed in would change that light, so such a material is left unhazed (a far lamp is a few pixels)."""
    for node in mat.node_tree.nodes:
        if node.bl_idname == "ShaderNodeEmission":
            return True
        if node.bl_idname == "ShaderNodeBsdfPrincipled":
            strength = node.inputs.get("Emission Strength")
            color = node.inputs.get("Emission Color") or node.inputs.get("Emission")  # Blender 3.4 names it so
            if strength is not None and color is not None and \
                    all(s.is_linked or max(_values(s)) > 0 for s in (strength, color)):
                return True
    return False


def _values(socket) -> list[float]:
    value = socket.default_value
    return [float(v) for v in value[:3]] if hasattr(value, "__len__") else [float(value)]


def _never_a_light(mat) -> bool:
    """Keep the glow out of Cycles' light list: it shows on camera rays only, and as a light it would change how
    every other surface samples its light (noise and cost). False where this Blender offers neither setting: the
    material is then left unhazed, so what stands near still renders as before."""
    settings = getattr(mat, "cycles", None)
    if hasattr(settings, "emission_sampling"):
        settings.emission_sampling = "NONE"
    elif hasattr(settings, "sample_as_light"):  # Blender 3.4
        settings.sample_as_light = False
    else:
        return False
    return True


def haze_group(plan: HazePlan, sky_values):
    """The node group that mixes the air of `plan` into a surface shader: Surface in, hazed Surface out. One per
    scene, shared by every material (a group node and two links per material, not twenty nodes)."""
    group = bpy.data.node_groups.new(GROUP_NAME, "ShaderNodeTree")
    compat.add_group_socket(group, "INPUT", "NodeSocketShader", "Surface")
    compat.add_group_socket(group, "OUTPUT", "NodeSocketShader", "Surface")
    nodes, links = group.nodes, group.links
    given, result = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    mix = nodes.new("ShaderNodeMixShader")
    links.new(_haze_share(nodes, links, plan), mix.inputs["Fac"])
    links.new(given.outputs[0], mix.inputs[1])
    links.new(_airlight(nodes, links, sky_values), mix.inputs[2])
    links.new(mix.outputs["Shader"], result.inputs[0])
    group[HAZED] = plan.visibility_m
    return group


def haze_material(mat, group) -> bool:
    """Put the air of `group` (`haze_group`) into `mat`'s surface (once); False when it has no surface to put it
    into, emits light, or is nothing but transparent (a car's inner shell: the air is in what shows through)."""
    if mat.get(HAZED) or mat.node_tree is None or _emits(mat):
        return False
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    outputs = [n for n in nodes if n.bl_idname == "ShaderNodeOutputMaterial"]
    output = next((n for n in outputs if n.is_active_output), outputs[0] if outputs else None)
    if output is None or not output.inputs["Surface"].is_linked:
        return False
    link = _opaque_part(output.inputs["Surface"].links[0])
    if link.from_node.bl_idname == "ShaderNodeBsdfTransparent" or not _never_a_light(mat):
        return False
    source, target = link.from_socket, link.to_socket
    air = nodes.new("ShaderNodeGroup")
    air.node_tree = group
    air.label = "Aerial perspective"
    links.new(source, air.inputs[0])
    links.new(air.outputs[0], target)
    mat[HAZED] = group[HAZED]
    return True


def add_aerial_perspective(scene, plan: HazePlan) -> list[str]:
    """Mix the air of `plan` into every material in use in `scene`, when its world is the outdoor sky; returns
    the names of the materials changed (none for an indoor scene)."""
    sky_values = _world_sky(scene.world)
    if sky_values is None:
        return []
    used = {slot.material for obj in scene.objects for slot in getattr(obj, "material_slots", ())
            if slot.material is not None}
    group = haze_group(plan, sky_values)
    changed = [mat.name for mat in sorted(used, key=lambda m: m.name)
               if not mat.name.startswith(TEMPLATE_PREFIX) and haze_material(mat, group)]
    if not changed:
        bpy.data.node_groups.remove(group)
    return changed

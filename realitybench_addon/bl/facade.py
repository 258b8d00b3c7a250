"""Facade materials and objects shared by every scene with buildings: window glass that reflects the sky over a
dim interior (blinds in some windows), painted trim, aluminium gutters, and weathering (dirt splashed up from the
ground, rain streaks, a per-building tint) added to any wall material.

Geometry comes from `core.facade` (plain numbers in, world quads out); this module only makes materials and
objects. Public functions take plain numbers, a collection and materials, never scene plans:

    glass = window_glass_material("RB_LotGlass", seed=7)
    trim = trim_material("RB_LotTrim", (0.8, 0.8, 0.78))
    weather(wall_material, seed=7)                       # in place: dirt near the ground, streaks, tint
    parts = core.facade.window(WallFrame.from_edge(p0, p1), 2.0, 0.9, 1.2, 1.4)
    add_details(collection, "Lot", {"glass": [parts["glass"]], "frame": [parts["frame"], parts["sill"]]},
                {"glass": glass, "frame": trim})
"""
from __future__ import annotations

import numpy as np

from ..core.geometry import merge_meshes
from . import compat
from . import materials as mats
from .meshes import mesh_object
from .material_cache import reused

DIRT = (0.16, 0.135, 0.1)


def _seeded(seed: int, n: int) -> np.ndarray:
    """n numbers in [0, 1) fixed by `seed` (a plan value): cosmetic choices without a shared generator."""
    return np.random.default_rng(abs(int(seed)) + 7919).random(n)


def _window_glass_values(mat, *, seed: int, **_) -> None:
    """What the seed chooses in `window_glass_material`: the room and blinds noise scales, the blinds' colour."""
    nodes = mat.node_tree.nodes
    r = _seeded(seed, 3)
    nodes["Rooms"].inputs["Scale"].default_value = 0.45 + 0.3 * r[0]
    nodes["Blinds"].inputs["Scale"].default_value = 0.8 + 0.5 * r[1]
    nodes["Blind colour"].inputs[7].default_value = ((0.32, 0.3, 0.27) if r[2] < 0.6 else (0.3, 0.27, 0.22)) + (1.0,)


@reused(varying=("seed",), values=_window_glass_values)
def window_glass_material(name: str, *, seed: int = 0, interior=(0.035, 0.03, 0.026), blinds_share: float = 0.45,
                          roughness: float = 0.07):
    """Window glass: a glossy dielectric (it reflects the sky, roughness ~0.07 keeps the sun a soft hot spot,
    never a mirror) over a dim interior; in about `blinds_share` of the windows (picked by broad noise over the
    object's coordinates, so neighbouring panes agree) light horizontal blind slats show behind the glass."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    sep = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord, sep.inputs[0])
    # the interior: a little lighter low down (a room's far wall, furniture) and varying from room to room
    room = mats.noise_fac(nodes, links, coord, 1.0, 1.0)  # scales and blind colour: _window_glass_values
    room.node.name = "Rooms"
    lit = tuple(c * 2.6 for c in interior)
    color = mats.mix_rgb(nodes, links, mats.map_range(nodes, links, room, 0.35, 0.75), interior, lit)
    # blinds: slats 2.5 cm apart, in the windows whose broad noise is high
    slat = nodes.new("ShaderNodeMath")
    slat.operation = "FRACT"
    per_slat = nodes.new("ShaderNodeMath")
    per_slat.operation = "DIVIDE"
    per_slat.inputs[1].default_value = 0.025
    links.new(sep.outputs["Z"], per_slat.inputs[0])
    links.new(per_slat.outputs[0], slat.inputs[0])
    slats = mats.map_range(nodes, links, slat.outputs[0], 0.72, 0.8, 1.0, 0.25)
    squashed = mats.scaled_vector(nodes, links, coord, (1.0, 1.0, 0.2))
    rooms_with_blinds = mats.noise_fac(nodes, links, squashed, 1.0, 0.0)
    rooms_with_blinds.node.name = "Blinds"
    which = mats.map_range(nodes, links, rooms_with_blinds, 0.62 - 0.3 * blinds_share, 0.66 - 0.3 * blinds_share)
    blinds = nodes.new("ShaderNodeMath")
    blinds.operation = "MULTIPLY"
    links.new(slats, blinds.inputs[0])
    links.new(which, blinds.inputs[1])
    color = mats.mix_rgb(nodes, links, blinds.outputs[0], color, (1.0, 1.0, 1.0))
    color.node.name = "Blind colour"
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.6
    mat.diffuse_color = (*interior, 1.0)
    _window_glass_values(mat, seed=seed)
    return mat


TRIM_WEATHER = {"ground_dirt_m": 0.35, "streaks": 0.5, "tint": 0.04}


@reused(varying=("seed",), values=lambda mat, *, seed, **_: weather_values(mat, seed, TRIM_WEATHER["tint"]))
def trim_material(name: str, color, *, seed: int = 0, roughness: float = 0.5):
    """Painted trim (window casings, corner boards, fascia, doors): satin paint, weathered."""
    mat = mats.principled(name, color, roughness=roughness, specular=0.45)
    weather(mat, seed, **TRIM_WEATHER)
    return mat


@reused
def gutter_material(name: str, color=(0.82, 0.82, 0.8)):
    """Painted aluminium gutter and downspouts: smoother than the trim, a little metallic."""
    return mats.principled(name, color, roughness=0.32, metallic=0.35, specular=0.5)


def weather(mat, seed: int, *, ground_dirt_m: float = 0.55, streaks: float = 1.0, tint: float = 0.08,
            ground_z: float = 0.0, dirt=DIRT):
    """Weather a node material in place: whatever feeds its Base Color gets a per-building tint (`tint`: the
    largest relative change per channel), rain streaks running down (vertical noise, `streaks` 0..1) and a band
    of dirt splashed up from the ground, fading out over `ground_dirt_m` above `ground_z` (object
    coordinates: objects built in world coordinates, as ours are). Materials without a linked Base Color get
    their constant colour as the input."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    if nodes.get("Weather tint") is not None:  # weather_values finds the nodes by name: one weathering each
        raise ValueError(f"material {mat.name!r} is weathered already")
    bsdf = nodes.get("Principled BSDF")
    base = compat.principled_input(bsdf, "Base Color")
    source = base.links[0].from_socket if base.is_linked else tuple(base.default_value)[:3]
    color = mats.mix_rgb(nodes, links, 1.0, source, (1.0, 1.0, 1.0), blend="MULTIPLY")  # tint: weather_values
    color.node.name = "Weather tint"
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    sep = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord, sep.inputs[0])
    wobble = mats.noise_fac(nodes, links, coord, 1.3, 3.0)  # ragged upper edge of the splash band
    height = nodes.new("ShaderNodeMath")
    height.operation = "MULTIPLY_ADD"
    height.inputs[1].default_value = 0.5 * ground_dirt_m
    links.new(wobble, height.inputs[0])
    links.new(sep.outputs["Z"], height.inputs[2])
    splash = mats.map_range(nodes, links, height.outputs[0], ground_z + 1.05 * ground_dirt_m, ground_z + 0.1, 0.0, 0.75)
    streak = mats.noise_fac(nodes, links, mats.scaled_vector(nodes, links, coord, (9.0, 9.0, 0.35)), 1.0, 2.0)
    streak.node.name = "Weather streaks"
    streak = mats.map_range(nodes, links, streak, 0.58, 0.8, 0.0, 0.2 * streaks)
    amount = nodes.new("ShaderNodeMath")
    amount.operation = "MAXIMUM"
    links.new(splash, amount.inputs[0])
    links.new(streak, amount.inputs[1])
    color = mats.mix_rgb(nodes, links, amount.outputs[0], color, dirt)
    links.new(color, base)
    weather_values(mat, seed, tint)
    return mat


def weather_values(mat, seed: int, tint: float) -> None:
    """What the seed chooses in `weather`: the tint's gain per channel and the streaks' noise scale."""
    nodes = mat.node_tree.nodes
    r = _seeded(seed, 4)
    gain = tuple(1.0 + tint * (2 * r[i] - 1) for i in range(3))
    nodes["Weather tint"].inputs[7].default_value = (*gain, 1.0)
    nodes["Weather streaks"].inputs["Scale"].default_value = 1.0 + r[3]


@reused(varying=("seed",), values=lambda mat, *, seed, tint, **_: weather_values(mat, seed, tint))
def weathered(name: str, build, build_args: tuple, *, seed: int, ground_dirt_m: float = 0.55, streaks: float = 1.0,
              tint: float = 0.08, ground_z: float = 0.0, dirt=DIRT):
    """`build(name, *build_args)` (a `@reused` builder) weathered (`weather`): one template for every seed."""
    return weather(build(name, *build_args), seed, ground_dirt_m=ground_dirt_m, streaks=streaks, tint=tint,
                   ground_z=ground_z, dirt=dirt)




def add_details(collection, name: str, meshes: dict, materials: dict) -> list[str]:
    """One object per kind: `meshes` maps a kind ("glass", "frame", ...) to a list of (vertices, quads) in world
    coordinates, `materials` the kind to its material. Objects are named f"{name}_{Kind}"; returns the names."""
    names = []
    for kind, parts in meshes.items():
        v, q = merge_meshes(parts, 4)
        if len(v) == 0:
            continue
        obj_name = f"{name}_{kind.title()}"
        mesh_object(obj_name, v, q, collection, materials=[materials[kind]])
        names.append(obj_name)
    return names

"""Build a `SurroundingsPlan` in Blender from `core.surroundings_meshes.surroundings_parts` (the same
triangles the analytic skyline uses), with procedural materials: fields and woods on the hills fading into haze with
distance, a mown lawn, asphalt, leafy and needled crowns, bark, siding and roofing, poles.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.surroundings import SurroundingsPlan
from ..core.surroundings_meshes import surroundings_parts
from . import compat
from . import materials as mats
from .meshes import mesh_object

HAZE = (0.36, 0.43, 0.54)


@dataclass
class BuiltSurroundings:
    plan: SurroundingsPlan
    objects: list[str] = field(default_factory=list)


def _noisy(name: str, stops, scale: float, *, attribute: str | None = None, roughness: float = 0.8,
           bump: float = 0.3, detail: float = 3.0, specular: float = 0.3, haze_from_m: float | None = None):
    """A principled material whose colour is a ramp over noise (plus a face attribute, when given).

    `haze_from_m`: beyond this distance from the origin the colour fades towards the sky's haze
    (aerial perspective, which Cycles does not do without a volume)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = detail
    links.new(coord.outputs["Object"], noise.inputs["Vector"])
    fac = noise.outputs["Fac"]
    if attribute:
        attr = nodes.new("ShaderNodeAttribute")
        attr.attribute_name = attribute
        fac = mats.weighted_sum(nodes, links, attr.outputs["Fac"], fac, 0.6)
    ramp = mats.color_ramp(nodes, links, fac, stops)
    color = ramp.outputs["Color"]
    if haze_from_m is not None:
        length = nodes.new("ShaderNodeVectorMath")
        length.operation = "LENGTH"
        links.new(coord.outputs["Object"], length.inputs[0])
        amount = nodes.new("ShaderNodeMapRange")
        amount.inputs["From Min"].default_value = haze_from_m
        amount.inputs["From Max"].default_value = haze_from_m + 900.0
        amount.inputs["To Min"].default_value = 0.0
        amount.inputs["To Max"].default_value = 0.45
        links.new(length.outputs["Value"], amount.inputs["Value"])
        mixrgb = nodes.new("ShaderNodeMix")
        mixrgb.data_type = "RGBA"
        links.new(amount.outputs["Result"], mixrgb.inputs["Factor"])
        links.new(color, mixrgb.inputs[6])
        mixrgb.inputs[7].default_value = (*HAZE, 1.0)
        color = mixrgb.outputs[2]
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Specular IOR Level").default_value = specular
    if bump > 0:
        mats.bump_normal(nodes, links, bsdf, noise.outputs["Fac"], bump)
    mat.diffuse_color = (*stops[len(stops) // 2][1], 1.0)
    return mat


def _crown(name: str, stops, clump_scale: float):
    """Foliage: a per-tree shade (face attribute) and broad noise pick the green; Voronoi cells make
    leaf clumps, darker in the gaps between them, with a strong bump."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord")
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_name = "tree_shade"
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 0.9
    noise.inputs["Detail"].default_value = 4.0
    links.new(coord.outputs["Object"], noise.inputs["Vector"])
    tree_shade = mats.weighted_sum(nodes, links, attr.outputs["Fac"], noise.outputs["Fac"], 0.55)
    ramp = mats.color_ramp(nodes, links, tree_shade, stops)
    cells = nodes.new("ShaderNodeTexVoronoi")
    cells.inputs["Scale"].default_value = clump_scale
    links.new(coord.outputs["Object"], cells.inputs["Vector"])
    gaps = nodes.new("ShaderNodeMapRange")  # distance to the clump centre: 0 (centre) .. ~1 (gap)
    gaps.inputs["From Min"].default_value = 0.0
    gaps.inputs["From Max"].default_value = 1.0
    gaps.inputs["To Min"].default_value = 1.15
    gaps.inputs["To Max"].default_value = 0.35
    links.new(cells.outputs["Distance"], gaps.inputs["Value"])
    shade = nodes.new("ShaderNodeMix")
    shade.data_type = "RGBA"
    shade.blend_type = "MULTIPLY"
    shade.inputs["Factor"].default_value = 1.0
    links.new(ramp.outputs["Color"], shade.inputs[6])
    combine = nodes.new("ShaderNodeCombineColor")
    for channel in ("Red", "Green", "Blue"):
        links.new(gaps.outputs["Result"], combine.inputs[channel])
    links.new(combine.outputs["Color"], shade.inputs[7])
    links.new(shade.outputs[2], compat.principled_input(bsdf, "Base Color"))
    invert = nodes.new("ShaderNodeMath")
    invert.operation = "SUBTRACT"
    invert.inputs[0].default_value = 1.0
    links.new(cells.outputs["Distance"], invert.inputs[1])
    mats.bump_normal(nodes, links, bsdf, invert.outputs[0], 0.55, 0.3)
    compat.principled_input(bsdf, "Roughness").default_value = 0.85
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.25
    mat.diffuse_color = (*stops[len(stops) // 2][1], 1.0)
    return mat


def _scaled(color, k):
    return tuple(min(1.0, c * k) for c in color)


def _materials(plan: SurroundingsPlan) -> dict:
    field_c, forest, lawn = plan.field_color, plan.forest_color, plan.lawn_color
    out = {
        "terrain": _noisy("RB_Terrain", [(0.35, forest), (0.5, _scaled(forest, 1.3)), (0.58, field_c),
                                         (0.8, _scaled(field_c, 1.25))], 0.012, detail=6.0, bump=0.25,
                          roughness=0.95, haze_from_m=120.0),
        "lawn": _noisy("RB_Lawn", [(0.25, _scaled(lawn, 0.7)), (0.45, lawn), (0.6, _scaled(lawn, 1.15)),
                                   (0.8, _scaled((lawn[0] * 1.3, lawn[1] * 1.1, lawn[2]), 1.2))], 0.09,
                       detail=10.0, bump=0.1, roughness=0.95, specular=0.15),
        "asphalt": _noisy("RB_Asphalt", [(0.3, (0.045, 0.045, 0.048)), (0.7, (0.075, 0.075, 0.078))], 8.0,
                          bump=0.1, roughness=0.85),
        "deciduous": _crown("RB_LeafCrown", [(0.2, (0.03, 0.06, 0.014)), (0.45, (0.055, 0.095, 0.02)),
                                             (0.7, (0.085, 0.12, 0.03)), (0.92, (0.12, 0.13, 0.04))], 1.5),
        "conifer": _crown("RB_NeedleCrown", [(0.2, (0.014, 0.032, 0.016)), (0.55, (0.028, 0.055, 0.026)),
                                             (0.9, (0.05, 0.075, 0.035))], 3.5),
        "bark": mats.principled("RB_Bark", (0.07, 0.05, 0.035), roughness=0.95, specular=0.2),
        "window": mats.principled("RB_NeighbourGlass", (0.02, 0.025, 0.03), roughness=0.08, specular=0.8),
        "wood": mats.principled("RB_PoleWood", (0.16, 0.12, 0.08), roughness=0.9, specular=0.2),
    }
    for i, b in enumerate(plan.buildings):
        brick = b.wall_color[0] > 2 * b.wall_color[1]  # the red of the wall palette is brick; the rest is siding
        out[f"wall{i}"] = (mats.brick if brick else mats.lap_siding)(f"RB_NeighbourWall{i:02d}", b.wall_color)
        out[f"roof{i}"] = _noisy(f"RB_NeighbourRoof{i:02d}", [(0.3, _scaled(b.roof_color, 0.75)),
                                                               (0.7, _scaled(b.roof_color, 1.25))], 6.0, bump=0.2,
                                 roughness=0.9)
    return out


def build_surroundings(scene, plan: SurroundingsPlan, rng: np.random.Generator | None = None) -> BuiltSurroundings:
    """Populate `scene` with the surroundings of `plan` (the plan fixes every shape; nothing is drawn here)."""
    col = scene.collection
    built = BuiltSurroundings(plan)
    materials = _materials(plan)
    for part in surroundings_parts(plan):
        attrs = {"tree_shade": part.face_shade} if part.face_shade is not None else None
        mesh_object(part.name, part.vertices, part.triangles, col, materials=[materials[part.material]],
                    face_attributes=attrs, smooth=part.kind in ("crown", "terrain"))
        built.objects.append(part.name)
    return built

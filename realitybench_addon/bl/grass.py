"""Grass blades on a lawn: `core.grass` tufts, each variant face-instanced on its own small instancer mesh.

    field = core.grass.scatter_tufts(seed, (0, 0, 12, 9), holes=[house_rect])
    add_grass(collection, "Grass", field, core.grass.tuft_variants(seed), grass_material("RB_Grass", lawn_rgb))

The instancers are hidden in renders and the viewport (only their tufts show), and the measuring BVH
(`bl.raycast`) skips them and their tufts: grass is too low to hide any target (`core.grass`).
"""
from __future__ import annotations

import numpy as np

from ..core.grass import instancer_triangles
from . import compat
from . import materials as mats
from .meshes import mesh_object
from .material_cache import reused

GRASS_TAG = "rb_grass"  # a custom property on every grass object


@reused
def grass_material(name: str, color, *, dry: float = 0.3):
    """Blades: darker at the base and lighter, yellower towards the tip (the tuft's generated Z), each tuft a
    little different (the instance's random), a share of dry straw-coloured tufts, some translucency so
    back-lit blades glow."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Generated"]
    height = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coord, height.inputs[0])
    base = tuple(c * 0.5 for c in color)
    tip = (min(1.0, color[0] * 1.25), min(1.0, color[1] * 1.15), color[2] * 0.8)
    shade = mats.color_ramp(nodes, links, height.outputs["Z"], [(0.0, base), (0.55, color), (1.0, tip)])
    info = nodes.new("ShaderNodeObjectInfo")
    vary = mats.map_range(nodes, links, info.outputs["Random"], 0.0, 1.0, 0.7, 1.15)
    varied = mats.mix_rgb(nodes, links, 1.0, shade.outputs["Color"], vary, blend="MULTIPLY")
    straw = (min(1.0, color[0] * 2.4), min(1.0, color[1] * 1.5), color[2] * 0.7)
    dry_fac = mats.map_range(nodes, links, info.outputs["Random"], 1.0 - 0.25 * dry, 1.0, 0.0, 0.8)
    final = mats.mix_rgb(nodes, links, dry_fac, varied, straw)
    links.new(final, compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = 0.7
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.2
    translucent = nodes.new("ShaderNodeBsdfTranslucent")
    links.new(final, translucent.inputs["Color"])
    mix = nodes.new("ShaderNodeMixShader")
    mix.inputs["Fac"].default_value = 0.15
    links.new(bsdf.outputs["BSDF"], mix.inputs[1])
    links.new(translucent.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes.get("Material Output").inputs["Surface"])
    mat.diffuse_color = (*color, 1.0)
    return mat


def add_grass(collection, name: str, field: dict, variants, material) -> list[str]:
    """For each tuft variant k with tufts in `field` (`core.grass.scatter_tufts`): an instancer
    f"{name}_{k}" of one small triangle per tuft, and its child f"{name}_{k}_Tuft" (the variant's mesh),
    instanced on every triangle. Returns the names made."""
    names = []
    for k, (verts, tris) in enumerate(variants):
        chosen = np.asarray(field["variant"]) == k
        if not chosen.any():
            continue
        iv, it = instancer_triangles(field["centers"][chosen], field["turn"][chosen], field["scale"][chosen])
        parent = mesh_object(f"{name}_{k}", iv, it, collection)
        parent.instance_type = "FACES"
        parent.use_instance_faces_scale = True
        parent.instance_faces_scale = 1.0
        parent.show_instancer_for_render = False
        parent.show_instancer_for_viewport = False
        child = mesh_object(f"{name}_{k}_Tuft", verts, tris, collection, materials=[material], smooth=True)
        child.parent = parent
        # Seen by the camera and casting shadows, but not by bounced light: a diffuse or glossy ray that
        # reaches the ground sees the lawn under the blades (the same green on average) instead of
        # searching thousands of overlapping tufts (docs/realism.md measures what that saves).
        for ray in ("visible_diffuse", "visible_glossy", "visible_transmission", "visible_volume_scatter"):
            if hasattr(child, ray):
                setattr(child, ray, False)
        for obj in (parent, child):
            obj[GRASS_TAG] = True
        names += [parent.name, child.name]
    return names


def is_grass(obj) -> bool:
    return bool(obj.get(GRASS_TAG, False))


def target_points_behind_grass(built, origin, target_names) -> tuple[int, int]:
    """(how many vertices of the objects `target_names` are seen from `origin` through a grass volume of
    `built.grass` (`core.grass.GrassPatch.volume`), how many were checked). None behind grass is what makes
    leaving grass out of the measuring BVH right; `benchmarks/audit_grass.py` and
    `tests/test_realism_grass.py` count it per frame."""
    import bpy

    from ..core.grass import segments_cross_box
    from .scene_data import world_triangles

    depsgraph = bpy.context.evaluated_depsgraph_get()
    points = np.concatenate([world_triangles(bpy.data.objects[n], depsgraph)[0] for n in target_names])
    crossing = np.zeros(len(points), bool)
    for patch in getattr(built, "grass", ()):
        crossing |= segments_cross_box(np.asarray(origin, float), points, *patch.volume())
    return int(crossing.sum()), len(points)

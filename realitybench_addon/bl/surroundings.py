"""Build a `SurroundingsPlan` in Blender from `core.surroundings_meshes.surroundings_parts` (the same
triangles the analytic skyline uses), with procedural materials: fields and woods on the hills, a mown lawn with
dry spots, worn asphalt with a faded centre line, leafy and needled crowns, bark, weathered siding and roofing,
glazed windows in casings, doors and gutters (`bl.facade`), poles. The pipeline fades all of it into the air's
glow with distance afterwards (`bl.aerial`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core import ground
from ..core.surroundings import SurroundingsPlan
from ..core.surroundings_meshes import surroundings_parts
from . import compat, facade, farmland, lawn_dress, lot_ground, vegetation
from . import materials as mats
from .meshes import mesh_object

@dataclass
class BuiltSurroundings:
    plan: SurroundingsPlan
    objects: list[str] = field(default_factory=list)


def _noisy(name: str, stops, scale: float, *, attribute: str | None = None, roughness: float = 0.8,
           bump: float = 0.3, detail: float = 3.0, specular: float = 0.3):
    """A principled material whose colour is a ramp over noise (plus a face attribute, when given); far away
    it fades into the air's glow like every outdoor material (`bl.aerial`)."""
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
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Specular IOR Level").default_value = specular
    if bump > 0:
        mats.bump_normal(nodes, links, bsdf, noise.outputs["Fac"], bump)
    mat.diffuse_color = (*stops[len(stops) // 2][1], 1.0)
    return mat


def _road_seed(road) -> int:
    """A seed that is a pure function of the road's plan values (the ground textures' per-scene shift)."""
    return int(round(road.offset_m * 1000)) * 7919 + int(round(road.azimuth_deg * 1000))


def _road(plan: SurroundingsPlan):
    """Asphalt (issue 41): the lot's aggregate (`lot_ground.aggregate`, shifted per scene from the road's plan
    values), stones polished lighter in the wheel tracks with an oily drip line streaked along the lane's
    middle, grit and dirt collected along both edges, lighter crumbling edges, and a faded dashed yellow centre
    line, all placed in the road's own coordinates (along, across) from the plan."""
    road = plan.road
    mat, nodes, links, bsdf = mats.new_material("RB_Asphalt")
    g = lot_ground.NodeGraph(nodes, links)
    a = math.radians(road.azimuth_deg)
    along = g.math("MULTIPLY_ADD", g.x, math.cos(a), g.math("MULTIPLY", g.y, math.sin(a)))
    signed = g.math("SUBTRACT", g.math("MULTIPLY_ADD", g.x, -math.sin(a), g.math("MULTIPLY", g.y, math.cos(a))),
                    road.offset_m)
    across = g.math("ABSOLUTE", signed)
    half = road.width_m / 2
    offset = ground.texture_offset(_road_seed(road))
    lane_mid = g.math("ABSOLUTE", g.math("SUBTRACT", across, half / 2))
    track = g.smooth(g.math("ABSOLUTE", g.math("SUBTRACT", lane_mid, 0.8)), 0.5, 0.12)
    color, height, stone = lot_ground.aggregate(g, 0.065, offset, polish=track)
    # streaks along the drive direction: noise stretched along the road
    streak_uv = g.vector(g.math("MULTIPLY", g.math("ADD", along, offset[0]), 0.12), g.math("ADD", signed, offset[1]))
    streaks = g.noise(3.0, 3.0, streak_uv, roughness=0.6, flat=True)
    drip = g.math("MULTIPLY", g.smooth(lane_mid, 0.45, 0.1), g.smooth(streaks, 0.4, 0.65, 0.1, 0.6))
    color = g.mix(drip, color, (0.028, 0.027, 0.027))
    # grit and dirt collected against the edges, ragged, streaked along the road; crumbling lighter edge
    patchy = g.noise(1.1, 3.0, flat=True)
    edge_band = g.smooth(g.math("MULTIPLY_ADD", patchy, 0.35, across), half - 0.2, half + 0.1)
    grit = g.math("MULTIPLY", edge_band, g.smooth(streaks, 0.25, 0.6, 0.5, 1.0))
    color = g.mix(grit, color, (0.12, 0.105, 0.085))
    crumble = g.math("MULTIPLY", g.smooth(across, half - 0.3, half - 0.04, 0.0, 0.5), g.smooth(patchy, 0.55, 0.7))
    color = g.mix(crumble, color, (0.16, 0.15, 0.135))
    dashes = g.smooth(g.math("FRACT", g.math("DIVIDE", along, 9.0)), 0.4, 0.38)
    line = g.math("MULTIPLY", g.smooth(across, 0.07, 0.055), dashes)
    faded = g.smooth(g.noise(1.8, 3.0), 0.3, 0.7, 0.2, 0.7)
    color = g.mix(g.math("MULTIPLY", line, faded), color, (0.45, 0.36, 0.1))
    roughness = g.math("MULTIPLY_ADD", g.math("MULTIPLY", track, stone), -0.25, 0.88)
    lot_ground.finish(mat, g, bsdf, color, roughness, height, 0.25, 0.003, (0.06, 0.06, 0.06))
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.35
    return mat


def _scaled(color, k):
    return tuple(min(1.0, c * k) for c in color)


def _materials(plan: SurroundingsPlan, lawn: bool = True) -> dict:
    field_c, forest = plan.field_color, plan.forest_color
    out = {
        "terrain": farmland.farmland_material("RB_Terrain", forest, field_c, seed=_road_seed(plan.road)),
        "asphalt": _road(plan),
        "deciduous": vegetation.leaf_material("RB_LeafCrown", vegetation.LEAF_GREENS, leaf_scale=5.0,
                                              shade_attribute="tree_shade"),
        "conifer": vegetation.leaf_material("RB_NeedleCrown", vegetation.NEEDLE_GREENS, leaf_scale=9.0,
                                            shade_attribute="tree_shade"),
        "bark": vegetation.bark_material("RB_Bark"),
        "window": facade.window_glass_material("RB_NeighbourGlass", seed=len(plan.buildings)),
        "trim": facade.trim_material("RB_NeighbourTrim", (0.8, 0.8, 0.78)),
        "door": facade.trim_material("RB_NeighbourDoor", (0.22, 0.08, 0.05), roughness=0.4),
        "gutter": facade.gutter_material("RB_NeighbourGutter"),
        "wood": mats.principled("RB_PoleWood", (0.16, 0.12, 0.08), roughness=0.9, specular=0.2),
        "conductor": mats.principled("RB_PowerLine", (0.32, 0.32, 0.31), roughness=0.55, metallic=1.0),
        "cable": mats.principled("RB_TelecomCable", (0.02, 0.02, 0.02), roughness=0.6),
    }
    if lawn:
        out["lawn"] = lawn_dress.dress_lawn(vegetation.lawn_material(
            "RB_Lawn", plan.lawn_color, stripe_azimuth_deg=plan.road.azimuth_deg, dry=0.4), seed=_road_seed(plan.road))
    for i, b in enumerate(plan.buildings):
        brick = b.wall_color[0] > 2 * b.wall_color[1]  # the red of the wall palette is brick; the rest is siding
        out[f"wall{i}"] = facade.weathered(f"RB_NeighbourWall{i:02d}", mats.brick if brick else mats.lap_siding,
                                           (b.wall_color,), seed=i * 7 + 3)  # splash dirt, streaks, a tint of its own
        out[f"roof{i}"] = _noisy(f"RB_NeighbourRoof{i:02d}", [(0.3, _scaled(b.roof_color, 0.75)),
                                                               (0.7, _scaled(b.roof_color, 1.25))], 6.0, bump=0.2,
                                 roughness=0.9)
    return out


def build_surroundings(scene, plan: SurroundingsPlan, rng: np.random.Generator | None = None, *,
                       origin=(0.0, 0.0), skip_kinds: tuple[str, ...] = (),
                       card_reach_m: float = math.inf) -> BuiltSurroundings:
    """Populate `scene` with the surroundings of `plan` (the plan fixes every shape; nothing is drawn here),
    centred on `origin` (x, y, or x, y, z: a lot sinks them a little under its asphalt), less the parts of
    `skip_kinds` (a scene with a lawn of its own skips "ground"); crowns beyond `card_reach_m` render as their
    lumps, without leaf cards."""
    col = scene.collection
    built = BuiltSurroundings(plan)
    materials = _materials(plan, lawn="ground" not in skip_kinds)
    shift = np.array([origin[0], origin[1], origin[2] if len(origin) > 2 else 0.0])
    for part in surroundings_parts(plan):
        if part.kind in skip_kinds:
            continue
        verts = part.vertices + shift
        attrs = {"tree_shade": part.face_shade} if part.face_shade is not None else None
        obj = mesh_object(part.name, verts, part.triangles, col, materials=[materials[part.material]],
                          face_attributes=attrs, smooth=part.kind in ("crown", "terrain"))
        built.objects.append(part.name)
        if part.kind == "wire":  # set dressing: its shadow would cross measured light (see surroundings_meshes)
            obj.visible_shadow = False
        if part.kind == "crown":  # measured as built; the render shows leaf cards inside (`bl.vegetation`)
            vegetation.dress_surroundings_crowns(col, obj, verts, part.triangles, part.face_shade,
                                                 part.material, materials[part.material], card_reach_m=card_reach_m)
    return built

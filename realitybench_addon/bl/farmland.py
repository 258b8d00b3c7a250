"""Farmland on the hills round a scene (issue 41: "flat hill", "empty terrain", "bare terrain"): the terrain's
open ground is cut into fields, each a crop of its own (pasture, hay, stubble, ploughed soil, a young crop), mown
or drilled in swaths along a direction of its own, with a hedge along most field edges. Where the terrain's broad
noise says woods, the woods stay as they were.

Fields are the cells of a 2-D Voronoi pattern `FIELD_M` across, shifted per scene by
`core.ground.texture_offset(seed)`; nothing is drawn from a generator. Only the colour changes: the terrain's
triangles (which the analytic skyline and the ray casts see) are untouched.

    terrain = farmland_material("RB_Terrain", forest_rgb, field_rgb, seed=plan_seed)
"""
from __future__ import annotations

import math

from ..core import ground
from . import compat
from . import materials as mats
from .lot_ground import NodeGraph

FIELD_M = 140.0  # a field: a Voronoi cell about this wide
HEDGE_M = 3.0  # a hedge's half width along a field's edge
HEDGED = (0.44, 0.47)  # a slow noise over which a field edge has its hedge: about two thirds of edges do (the
# others are gates, fences, open boundaries)
SWATH_M = 6.0  # a swath's width (mown, baled or drilled rows), two to a light-dark pair
SWATH_CONTRAST = 0.14  # a swath's tone, either way of the field's
WOODS_NOISE_SCALE = 0.012  # the terrain's broad noise (1/m) that splits woods from open ground
OPEN_GROUND = (0.46, 0.52)  # the broad noise's values over which woods give way to fields (about half is fields)
# crops, in linear RGB: pasture, hay meadow, young cereal, stubble, ploughed soil, pasture again (the commonest)
CROPS = ((0.062, 0.105, 0.032), (0.12, 0.125, 0.05), (0.085, 0.14, 0.035), (0.2, 0.16, 0.075),
         (0.075, 0.052, 0.032), (0.07, 0.112, 0.036))


def _terrain_stops(forest, field):
    scaled = lambda rgb, k: tuple(min(1.0, c * k) for c in rgb)  # noqa: E731
    return [(0.35, forest), (0.5, scaled(forest, 1.3)), (0.58, field), (0.8, scaled(field, 1.25))]


def farmland_material(name: str, forest, field, *, seed: int):
    """The hills' material: woods and open ground from a broad noise (as the terrain always had), the open ground
    cut into fields of `CROPS` with swaths and hedges; far away it fades into the air like every outdoor
    material (`bl.aerial`)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    g = NodeGraph(nodes, links)
    broad = g.noise(WOODS_NOISE_SCALE, 6.0)
    base = g.ramp(broad, _terrain_stops(forest, field))
    shifted = nodes.new("ShaderNodeVectorMath")
    shifted.operation = "ADD"
    links.new(g.position, shifted.inputs[0])
    shifted.inputs[1].default_value = ground.texture_offset(seed)
    domain = shifted.outputs[0]
    cells = nodes.new("ShaderNodeTexVoronoi")
    cells.voronoi_dimensions = "2D"
    cells.inputs["Scale"].default_value = 1.0 / FIELD_M
    links.new(domain, cells.inputs["Vector"])
    cells.label = "fields"
    pick = nodes.new("ShaderNodeSeparateColor")
    links.new(cells.outputs["Color"], pick.inputs[0])
    crop = mats.color_ramp(nodes, links, pick.outputs[0],
                           [(k / len(CROPS), rgb) for k, rgb in enumerate(CROPS)])
    crop.color_ramp.interpolation = "CONSTANT"
    crop.label = "crops"
    # swaths along the field's own direction (its cell's green channel turned into an angle)
    angle = g.math("MULTIPLY", pick.outputs[1], math.pi)
    across = nodes.new("ShaderNodeVectorMath")
    across.operation = "DOT_PRODUCT"
    links.new(domain, across.inputs[0])
    links.new(g.vector(g.math("COSINE", angle), g.math("SINE", angle)), across.inputs[1])
    band = g.math("PINGPONG", g.math("DIVIDE", across.outputs["Value"], SWATH_M), 1.0)
    swath = g.smooth(band, 0.35, 0.65, 1.0 - SWATH_CONTRAST, 1.0 + SWATH_CONTRAST)
    # each field's own tone, and the ground's unevenness within it
    tone = g.math("MULTIPLY", g.math("MULTIPLY_ADD", pick.outputs[2], 0.3, 0.85),
                  g.smooth(g.noise(1.0 / 35.0, 3.0, domain, flat=True), 0.3, 0.7, 0.88, 1.12))
    field_rgb = mats.scaled_color(nodes, links, mats.scaled_color(nodes, links, crop.outputs["Color"], tone), swath)
    # hedges on most edges: dark, uneven, broken by gaps
    edges = nodes.new("ShaderNodeTexVoronoi")
    edges.voronoi_dimensions = "2D"
    edges.feature = "DISTANCE_TO_EDGE"
    edges.inputs["Scale"].default_value = 1.0 / FIELD_M
    links.new(domain, edges.inputs["Vector"])
    edges.label = "field_edges"
    edge_m = g.math("MULTIPLY", edges.outputs["Distance"], FIELD_M)
    hedged = g.smooth(g.noise(1.0 / 60.0, 1.0, domain, flat=True), *HEDGED)
    hedge = g.math("MULTIPLY", g.smooth(edge_m, HEDGE_M, 0.6 * HEDGE_M, 0.0, 1.0), hedged)
    hedge.node.label = "hedge"
    lumpy = g.smooth(g.noise(1.0 / 4.0, 2.0, domain, flat=True), 0.3, 0.7, 0.55, 1.0)
    hedge_rgb = nodes.new("ShaderNodeRGB")
    hedge_rgb.outputs[0].default_value = (*(c * 0.7 for c in forest), 1.0)
    field_rgb = g.mix(hedge, field_rgb, mats.scaled_color(nodes, links, hedge_rgb.outputs[0], lumpy))
    # woods stay woods: the patchwork only where the broad noise says open ground
    open_ground = g.smooth(broad, OPEN_GROUND[0], OPEN_GROUND[1])
    open_ground.node.label = "open_ground"
    color = g.mix(open_ground, base, field_rgb)
    links.new(color, compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = 0.95
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.3
    mats.bump_normal(nodes, links, bsdf, broad, 0.25)
    mat.diffuse_color = (*field, 1.0)
    return mat


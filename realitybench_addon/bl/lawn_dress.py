"""A lawn seen from a distance is not a cloud of green noise (issue 41): `dress_lawn` changes a finished lawn
material (`vegetation.lawn_material`'s copy; its template is untouched) in place, between its colour and the
BSDF: mottled clumps (Voronoi cells of a hand's width, each its own shade, darker in the gaps between them),
soil showing between thin clumps, and patches of clover (a bluer, lighter green with a round-leaf speckle).
Every pattern is shifted per scene by `core.ground.texture_offset(seed)`; nothing is drawn from a generator.

    lawn = dress_lawn(vegetation.lawn_material("RB_Lawn", (0.08, 0.12, 0.04)), seed=plan_seed)
"""
from __future__ import annotations

from ..core import ground
from . import compat
from .lot_ground import NodeGraph

CLUMP_M = 0.11  # a clump of grass: a Voronoi cell this wide
CLOVER_SCALE = 0.7  # clover patches: noise of this scale (1/m), the top ~20 % of it
SOIL_RGB = (0.085, 0.064, 0.042)
CLOVER_RGB = (0.06, 0.13, 0.055)
DRESSED_LABEL = "Lawn dress"


def _cells(g: NodeGraph, domain, scale: float, feature: str = "F1"):
    node = g.nodes.new("ShaderNodeTexVoronoi")
    node.voronoi_dimensions = "2D"
    node.feature = feature
    node.inputs["Scale"].default_value = scale
    g.links.new(domain, node.inputs["Vector"])
    return node


def dress_lawn(mat, seed: int):
    """`mat` with clumps, soil and clover laid over its base colour (returned; a second call does nothing)."""
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    if any(n.label == DRESSED_LABEL for n in nodes):
        return mat
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    base_in = compat.principled_input(bsdf, "Base Color")
    if not base_in.links:
        return mat
    color = base_in.links[0].from_socket
    g = NodeGraph(nodes, links)
    shifted = nodes.new("ShaderNodeVectorMath")
    shifted.operation = "ADD"
    links.new(g.position, shifted.inputs[0])
    shifted.inputs[1].default_value = ground.texture_offset(seed)
    domain = g.warp(6.0, 0.05, vector=shifted.outputs[0])
    clumps = _cells(g, domain, 1.0 / CLUMP_M)
    gaps = _cells(g, domain, 1.0 / CLUMP_M, "DISTANCE_TO_EDGE")
    shade_of = g.nodes.new("ShaderNodeSeparateColor")
    links.new(clumps.outputs["Color"], shade_of.inputs[0])
    # each clump its own shade (x0.75..1.2), darker into the gaps between clumps
    shade = g.math("MULTIPLY", g.math("MULTIPLY_ADD", shade_of.outputs[0], 0.45, 0.75),
                   g.smooth(gaps.outputs["Distance"], 0.0, 0.12, 0.7, 1.0))
    mult = nodes.new("ShaderNodeMix")
    mult.data_type = "RGBA"
    mult.blend_type = "MULTIPLY"
    mult.inputs["Factor"].default_value = 1.0
    links.new(color, mult.inputs[6])
    combine = nodes.new("ShaderNodeCombineColor")
    for channel in ("Red", "Green", "Blue"):
        links.new(shade, combine.inputs[channel])
    links.new(combine.outputs["Color"], mult.inputs[7])
    out = mult.outputs[2]
    # soil: in the gaps, where a broad noise says the turf is thin
    thin = g.smooth(g.noise(0.35, 3.0, shifted.outputs[0], flat=True), 0.5, 0.72)
    soil = g.math("MULTIPLY", thin, g.smooth(gaps.outputs["Distance"], 0.16, 0.04))
    out = g.mix(g.math("MULTIPLY", soil, 0.85), out, SOIL_RGB)
    # clover: patches of a bluer green, speckled with round leaves
    patch = g.smooth(g.noise(CLOVER_SCALE, 4.0, domain, flat=True), 0.6, 0.68)
    leaves = g.smooth(_cells(g, domain, 95.0).outputs["Distance"], 0.45, 0.25, 0.55, 1.0)
    out = g.mix(g.math("MULTIPLY", patch, leaves), out, CLOVER_RGB)
    out.node.label = DRESSED_LABEL
    links.new(out, base_in)
    return mat

"""A lawn seen from a distance is not a cloud of green noise (issue 41): `dress_lawn` changes a finished lawn
material (`vegetation.lawn_material`'s copy; its template is untouched) in place, between its colour and the
BSDF: mottled clumps (warped smooth Voronoi cells of 11 cm, each its own shade blending into the next,
averaged with a 5 cm noise), flecks of soil where the turf is thin, and patches of clover (a bluer, lighter
green with a round-leaf speckle).
Every pattern is shifted per scene by `core.ground.texture_offset(seed)`; nothing is drawn from a generator.

    lawn = dress_lawn(vegetation.lawn_material("RB_Lawn", (0.08, 0.12, 0.04)), seed=plan_seed)
"""
from __future__ import annotations

from ..core import ground
from . import compat
from .lot_ground import NodeGraph

CLUMP_M = 0.11  # a clump of grass: a Voronoi cell this wide
CLUMP_BLEND = 1.0  # smooth-F1 smoothness: how far a clump's shade blends into its neighbours'
CLOVER_SCALE = 0.7  # clover patches: noise of this scale (1/m), the top ~20 % of it
SOIL_RGB = (0.085, 0.064, 0.042)
CLOVER_RGB = (0.05, 0.105, 0.045)
DRESSED_LABEL = "Lawn dress"


def _clump_cells(g: NodeGraph, domain):
    """Smooth-F1 Voronoi cells of CLUMP_M, each clump's shade blending CLUMP_BLEND into its neighbours'."""
    node = g.nodes.new("ShaderNodeTexVoronoi")
    node.voronoi_dimensions = "2D"
    node.feature = "SMOOTH_F1"
    node.inputs["Scale"].default_value = 1.0 / CLUMP_M
    node.inputs["Smoothness"].default_value = CLUMP_BLEND
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
    domain = g.warp(7.0, 0.07, vector=shifted.outputs[0])
    # clumps: each its own shade, two layers of cells (incommensurate sizes) averaged, so no cell edge shows
    rgb = nodes.new("ShaderNodeSeparateColor")
    # smooth F1: neighbouring clumps' shades blend over most of a cell, so no polygon edge shows (plain F1's
    # constant cells read as camouflage on a close, downward frame)
    links.new(_clump_cells(g, domain).outputs["Color"], rgb.inputs[0])
    tufts = g.noise(1.0 / (0.437 * CLUMP_M), 1.0, domain, flat=True)  # a finer, incommensurate layer
    # x0.6..1.4 (the blended cells spread less than F1's constant ones; the mean stays x1)
    shade = g.math("MULTIPLY_ADD", g.math("ADD", rgb.outputs[0], tufts), 0.4, 0.6)
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
    # soil: fine flecks of it where a broad noise says the turf is thin
    thin = g.smooth(g.noise(0.35, 3.0, shifted.outputs[0], flat=True), 0.5, 0.7)
    flecks = g.smooth(g.noise(45.0, 2.0, domain, flat=True), 0.56, 0.68)
    out = g.mix(g.math("MULTIPLY", g.math("MULTIPLY", thin, flecks), 0.8), out, SOIL_RGB)
    # clover: soft patches of a bluer, denser green, speckled with round leaves
    patch = g.smooth(g.noise(CLOVER_SCALE, 4.0, domain, flat=True), 0.6, 0.7, 0.0, 0.6)
    leaves = g.smooth(g.noise(80.0, 1.0, domain, flat=True), 0.4, 0.6, 0.6, 1.0)
    out = g.mix(g.math("MULTIPLY", patch, leaves), out, CLOVER_RGB)
    out.node.label = DRESSED_LABEL
    links.new(out, base_in)
    return mat

"""Worn ground materials of the parking lot (issue 20): asphalt with aggregate, tyre-polished lanes, cracks and
oil stains; repair patches; faded, chipped stall paint; curbs chipped and dirty at the base; a sidewalk with
tooled joints; and a chimney's weathered concrete crown, which the roof scenes take. (Grass, leaves and bark come
from `bl.vegetation`.)

Everything is a node pattern over object coordinates (the lot's ground objects sit at the world origin, so
these are world metres); stains and lanes follow the plan's stall grid. No geometry moves: bump only.
"""
from __future__ import annotations

import math

from ..core import ground
from ..core.parking_lot import SIDEWALK_JOINT_M, LotPlan, layout_seed
from . import compat
from . import materials as mats
from .material_cache import reused


class NodeGraph:
    """Terse node building: every method returns an output socket; operands are sockets or numbers."""

    def __init__(self, nodes, links):
        self.nodes, self.links = nodes, links
        coord = nodes.new("ShaderNodeTexCoord")
        self.position = coord.outputs["Object"]
        xyz = nodes.new("ShaderNodeSeparateXYZ")
        links.new(self.position, xyz.inputs[0])
        self.x, self.y, self.z = xyz.outputs["X"], xyz.outputs["Y"], xyz.outputs["Z"]

    def feed(self, socket, value) -> None:
        if isinstance(value, (int, float)):
            socket.default_value = float(value)
        else:
            self.links.new(value, socket)

    def math(self, operation: str, a, b=0.0, c=0.0):
        node = self.nodes.new("ShaderNodeMath")
        node.operation = operation
        for socket, value in zip(node.inputs, (a, b, c)):
            self.feed(socket, value)
        return node.outputs[0]

    def smooth(self, value, lo: float, hi: float, to_lo: float = 0.0, to_hi: float = 1.0):
        """`value` mapped from [lo, hi] to [to_lo, to_hi] with a smoothstep, clamped."""
        node = self.nodes.new("ShaderNodeMapRange")
        node.interpolation_type = "SMOOTHSTEP"
        node.clamp = True
        for name, v in (("Value", value), ("From Min", lo), ("From Max", hi), ("To Min", to_lo), ("To Max", to_hi)):
            self.feed(node.inputs[name], v)
        return node.outputs["Result"]

    def noise(self, scale: float, detail: float = 2.0, vector=None, roughness: float = 0.5, flat: bool = False):
        """Perlin noise; `flat`: 2D over x, y (half the work: for the ground, which is flat)."""
        node = self.nodes.new("ShaderNodeTexNoise")
        if flat:
            node.noise_dimensions = "2D"
        node.inputs["Scale"].default_value = scale
        node.inputs["Detail"].default_value = detail
        node.inputs["Roughness"].default_value = roughness
        self.links.new(vector if vector is not None else self.position, node.inputs["Vector"])
        return node.outputs["Fac"]

    def edge_distance(self, scale: float, vector=None):
        """Distance to the nearest Voronoi cell edge (in cell units): crack networks."""
        node = self.nodes.new("ShaderNodeTexVoronoi")
        node.voronoi_dimensions = "2D"  # the ground is flat
        node.feature = "DISTANCE_TO_EDGE"
        node.inputs["Scale"].default_value = scale
        self.links.new(vector if vector is not None else self.position, node.inputs["Vector"])
        return node.outputs["Distance"]

    def cell_random(self, vector):
        """A repeatable random value per integer cell of `vector` (white noise of the floored coordinates)."""
        node = self.nodes.new("ShaderNodeTexWhiteNoise")
        node.noise_dimensions = "2D"
        self.links.new(vector, node.inputs["Vector"])
        return node.outputs["Value"]

    def vector(self, x, y, z=0.0):
        node = self.nodes.new("ShaderNodeCombineXYZ")
        for socket, v in zip(node.inputs, (x, y, z)):
            self.feed(socket, v)
        return node.outputs[0]

    def warp(self, scale: float, amount: float, vector=None):
        """The position (or `vector`) pushed around by a smooth 2D noise field (wiggly cracks, ragged stains)."""
        vector = vector if vector is not None else self.position
        node = self.nodes.new("ShaderNodeTexNoise")
        node.noise_dimensions = "2D"
        node.inputs["Scale"].default_value = scale
        node.inputs["Detail"].default_value = 0.0  # one octave: three channels of it are read
        self.links.new(vector, node.inputs["Vector"])
        shift = self.nodes.new("ShaderNodeVectorMath")
        shift.operation = "MULTIPLY_ADD"
        self.links.new(node.outputs["Color"], shift.inputs[0])
        shift.inputs[1].default_value = (amount,) * 3
        self.links.new(vector, shift.inputs[2])
        return shift.outputs[0]

    def mix(self, factor, a, b):
        """Colour a where factor = 0, b where 1 (each a socket or an RGB tuple)."""
        node = self.nodes.new("ShaderNodeMix")
        node.data_type = "RGBA"
        self.feed(node.inputs["Factor"], factor)
        for socket, v in ((node.inputs[6], a), (node.inputs[7], b)):
            if isinstance(v, tuple):
                socket.default_value = (*v, 1.0)
            else:
                self.links.new(v, socket)
        return node.outputs[2]

    def ramp(self, factor, stops):
        return mats.color_ramp(self.nodes, self.links, factor, stops).outputs["Color"]


def finish(mat, g: NodeGraph, bsdf, color, roughness, height, bump_strength: float, bump_distance: float,
            fallback_rgb) -> None:
    g.links.new(color, compat.principled_input(bsdf, "Base Color"))
    g.feed(compat.principled_input(bsdf, "Roughness"), roughness)
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.3
    mats.bump_normal(g.nodes, g.links, bsdf, height, bump_strength, bump_distance)
    mat.diffuse_color = (*fallback_rgb, 1.0)


def _stones(g: NodeGraph, domain, cell_m: float, turn: float, lo: float, hi: float, share: float):
    """(stone, random, dome) of one aggregate layer: a stone (1) in a `share` of the Voronoi cells of a `cell_m`
    grid turned by `turn`, binder (0) in a band along the cell edges and in the other cells; `random` is one value
    per stone; `dome` rises from 0 at a stone's rim to 1 a fifth of a cell in (its crown stands proud of the
    binder, whose film still clings round its rim). Stones are the cells shrunk by that band (`lo`..`hi` cell
    units, by the cell's own random value): angular chips of crushed stone, some touching, not round dots
    standing apart, nor a packed mosaic."""
    rot = g.nodes.new("ShaderNodeVectorRotate")
    rot.rotation_type = "Z_AXIS"
    rot.inputs["Angle"].default_value = turn
    g.links.new(domain, rot.inputs["Vector"])
    cells = g.nodes.new("ShaderNodeTexVoronoi")
    cells.voronoi_dimensions = "2D"
    cells.inputs["Scale"].default_value = 1.0 / cell_m
    g.links.new(rot.outputs["Vector"], cells.inputs["Vector"])
    rgb = g.nodes.new("ShaderNodeSeparateColor")
    g.links.new(cells.outputs["Color"], rgb.inputs[0])
    random = rgb.outputs[0]
    band = g.math("MULTIPLY_ADD", rgb.outputs[1], hi - lo, lo)  # this stone's binder margin, in cell units
    edge = g.edge_distance(1.0 / cell_m, rot.outputs["Vector"])
    inset = g.math("SUBTRACT", edge, band)
    stone = g.smooth(inset, -0.04, 0.04)
    present = g.math("LESS_THAN", rgb.outputs[2], share)  # the cell holds a stone
    dome = g.smooth(inset, 0.0, STONE_CROWN)
    return g.math("MULTIPLY", stone, present), random, g.math("MULTIPLY", dome, present)


STONE_CROWN = 0.2  # cell units from a stone's rim to its crown (`_stones`)
STONE_RIM_SHADE = 0.72  # a stone's rim under its film of binder, against its crown (1)
PORE_M = 0.005  # the voids between the stones: noise of this feature size, its top ~15 %
PORE_SHADE = 0.25  # a void's floor in shadow, against the base tone
GRAIN_SCALE = 900.0  # 1/m: the sand and filler in the binder, and the grain of a stone's face (~1 mm)
GRAIN_SHADE = (0.85, 1.14)  # the grain's darkest and lightest against the mean tone


def aggregate(g: NodeGraph, base: float, offset=(0.0, 0.0, 0.0), polish=None):
    """(colour, height, stone) of bare asphalt (issue 41; height: the coarse stones): coarse stones of 8-15 mm
    and fine ones of 2-5 mm (two Voronoi layers of incommensurate cells, the fine one turned: `core.ground`),
    each its own grey or brown, in dark binder; the domain shifted by the scene's `offset`, wobbled at the
    stones' scale and bent over metres so no lattice shows; a broad tone of three incommensurate scales;
    `polish` (0..1, a socket): tyres have worn the binder off and polished the stones lighter and smoother."""
    shifted = g.nodes.new("ShaderNodeVectorMath")
    shifted.operation = "ADD"
    g.links.new(g.position, shifted.inputs[0])
    shifted.inputs[1].default_value = offset
    domain = g.warp(*ground.WARP_FINE, vector=shifted.outputs[0])
    # fewer, smaller coarse stones than cells, with binder between most of them: a packed layer of shrunk
    # cells reads as a Voronoi mosaic ("voronoi-cell asphalt", the second blind panel said)
    coarse, pick, dome = _stones(g, domain, ground.COARSE_STONE_M, 0.0, 0.1, 0.34, 0.5)
    fine, fine_pick, _ = _stones(g, domain, ground.FINE_STONE_M, ground.FINE_TURN_RAD, 0.15, 0.35, 0.55)
    broad = g.warp(*ground.WARP_BROAD, vector=shifted.outputs[0])
    n = [g.noise(s, d, broad, flat=True) for s, d in zip(ground.TONE_SCALES, (2.0, 2.0, 1.0))]
    tone = g.math("MULTIPLY_ADD", n[0], 0.45, g.math("MULTIPLY_ADD", n[1], 0.33, g.math("MULTIPLY", n[2], 0.22)))
    if polish is not None:  # worn binder shows more of the fine stones
        fine = g.math("MINIMUM", g.math("ADD", fine, g.math("MULTIPLY", polish, 0.35)), 1.0)
    b = base
    binder = (b * 0.8, b * 0.8, b * 0.83)
    # the fine stones: most in their film of binder, close to its tone (light ones read as confetti)
    fine_rgb = g.ramp(fine_pick, [(0.0, (b * 0.7, b * 0.69, b * 0.68)), (1.0, (b * 1.0, b * 0.99, b * 0.97))])
    # most stones still wear a film of binder: close to its tone, a few bared ones lighter
    stone_rgb = g.ramp(pick, [(0.0, (b * 0.8, b * 0.8, b * 0.82)), (0.3, (b * 1.02, b * 1.01, b * 1.0)),
                              (0.55, (b * 1.2, b * 1.14, b * 1.06)), (0.8, (b * 1.08, b * 1.07, b * 1.06)),
                              (0.95, (b * 1.4, b * 1.38, b * 1.35))])
    if polish is not None:
        stone_rgb = g.mix(g.math("MULTIPLY", polish, 0.45), stone_rgb, (b * 2.0, b * 1.97, b * 1.93))
    # a coarse stone's rim wears the binder's film, its crown is bared: no flat-filled chip ("terrazzo")
    stone_rgb = g.mix(g.math("MULTIPLY_ADD", dome, -1.0, 1.0), stone_rgb,
                      g.mix(1.0 - STONE_RIM_SHADE, stone_rgb, binder))
    color = g.mix(coarse, g.mix(g.math("MULTIPLY", fine, 0.85), binder, fine_rgb), stone_rgb)
    # the open texture: voids of a few millimetres between the stones, in shadow (what sets asphalt apart
    # from a polished terrazzo of chips in a smooth matrix)
    voids = g.smooth(g.noise(1.0 / PORE_M, 2.0, domain, flat=True), 0.62, 0.68)
    bare = g.math("MULTIPLY", g.math("SUBTRACT", 1.0, coarse), g.math("SUBTRACT", 1.0, fine))  # binder, no stone
    voids = g.math("MULTIPLY", voids, bare)
    color = g.mix(voids, color, (b * PORE_SHADE,) * 3)
    # sand and filler in the binder, the grain of the stones' faces: a millimetre speckle over all of it
    grain = g.noise(GRAIN_SCALE, 1.0, domain, roughness=0.5, flat=True)
    speckle = g.smooth(grain, 0.3, 0.7, *GRAIN_SHADE)
    color = g.mix(1.0, color, g.vector(speckle, speckle, speckle))
    color.node.blend_type = "MULTIPLY"
    shade = g.ramp(tone, [(0.28, (0.72,) * 3), (0.5, (0.96, 0.96, 0.95)), (0.72, (1.25, 1.22, 1.18))])
    mult = g.nodes.new("ShaderNodeMix")
    mult.data_type = "RGBA"
    mult.blend_type = "MULTIPLY"
    mult.inputs["Factor"].default_value = 1.0
    g.links.new(color, mult.inputs[6])
    g.links.new(shade, mult.inputs[7])
    # the bump reads the coarse stones' domes only: a bump evaluates its height three times
    return mult.outputs[2], dome, coarse


def _box_outside(g: NodeGraph, k: ground.KeepOut):
    """Box distance outside a keep-out rectangle (<= 0 inside): `core.ground.KeepOut.outside_m` in nodes."""
    h = math.radians(k.heading_deg)
    dx, dy = g.math("SUBTRACT", g.x, k.x), g.math("SUBTRACT", g.y, k.y)
    u = g.math("MULTIPLY_ADD", dx, math.cos(h), g.math("MULTIPLY", dy, math.sin(h)))
    v = g.math("MULTIPLY_ADD", dx, -math.sin(h), g.math("MULTIPLY", dy, math.cos(h)))
    return g.math("MAXIMUM", g.math("SUBTRACT", g.math("ABSOLUTE", u), k.half_l),
                  g.math("SUBTRACT", g.math("ABSOLUTE", v), k.half_w))


def _dirt_envelope(g: NodeGraph, plan: LotPlan):
    """`core.ground.lot_dirt` in nodes (the same formula, term by term): the most dirt the lot holds at a point."""
    c = ground
    curb = g.math("MAXIMUM", g.smooth(g.math("SUBTRACT", g.y, plan.row_a_head_y), c.CURB_DIRT_M, 0.02),
                  g.smooth(g.math("SUBTRACT", plan.row_b_head_y, g.y), c.CURB_DIRT_M, 0.02))
    stall = g.math("FRACT", g.math("DIVIDE", g.math("SUBTRACT", g.x, plan.x0), plan.stall_width_m))
    across = g.math("MULTIPLY", g.math("SUBTRACT", stall, 0.5), plan.stall_width_m)
    lane = g.smooth(g.math("ABSOLUTE", g.math("SUBTRACT", g.math("ABSOLUTE", across), c.LANE_OFFSET_M)),
                    c.LANE_HALF_M, 0.08)
    in_a = g.math("MULTIPLY", g.smooth(g.y, 0.4, -0.2),
                  g.smooth(g.math("SUBTRACT", g.y, plan.row_a_head_y), -0.05, 0.1))
    in_b = g.math("MULTIPLY", g.smooth(g.math("SUBTRACT", g.y, plan.aisle_width_m), -0.4, 0.2),
                  g.smooth(g.math("SUBTRACT", plan.row_b_head_y, g.y), -0.05, 0.1))
    to_head = g.math("MINIMUM", g.math("ABSOLUTE", g.math("SUBTRACT", g.y, plan.row_a_head_y)),
                     g.math("ABSOLUTE", g.math("SUBTRACT", plan.row_b_head_y, g.y)))
    lane = g.math("MULTIPLY", g.math("MULTIPLY", lane, g.math("MAXIMUM", in_a, in_b)),
                  g.smooth(to_head, 1.6, 0.4, 0.45, 1.0))
    rows = g.math("MULTIPLY", g.smooth(g.x, plan.x0 - 1.0, plan.x0 - 0.5), g.smooth(g.x, plan.x1 + 1.0, plan.x1 + 0.5))
    envelope = g.math("MULTIPLY", g.math("MAXIMUM", curb, lane), rows)
    for k in ground.lot_keepouts(plan):
        envelope = g.math("MULTIPLY", envelope, g.smooth(_box_outside(g, k), 0.0, c.KEEP_FADE_M))
    return envelope


def _dirt(g: NodeGraph, plan: LotPlan, offset):
    """Dirt inside its envelope, with structure: streaks along the drive direction (noise stretched along the
    stalls' depth and along the curbs), splash droplets thrown by the wheels (small Voronoi spots), a ragged
    edge. Only multiplies the envelope: never more dirt than `core.ground.lot_dirt`, none near the subject."""
    stretched = g.vector(g.math("MULTIPLY", g.math("ADD", g.x, offset[0]), 4.0), g.math("ADD", g.y, offset[1]), 0.0)
    streaks = g.noise(1.3, 3.0, stretched, roughness=0.6, flat=True)
    drops = g.nodes.new("ShaderNodeTexVoronoi")
    drops.voronoi_dimensions = "2D"
    drops.inputs["Scale"].default_value = 23.0
    g.links.new(g.warp(5.0, 0.04), drops.inputs["Vector"])
    splash = g.smooth(drops.outputs["Distance"], 0.3, 0.12)
    patchy = g.noise(0.9, 3.0, flat=True)
    amount = g.math("MAXIMUM", g.math("MAXIMUM", g.smooth(streaks, 0.4, 0.66), g.math("MULTIPLY", splash, 0.75)), 0.4)
    amount = g.math("MULTIPLY", amount, g.smooth(patchy, 0.3, 0.6, 0.35, 1.0))
    # some stalls see more traffic than others: each stall (and row side) its own share of the lane dirt
    stall = g.math("FLOOR", g.math("DIVIDE", g.math("SUBTRACT", g.x, plan.x0), plan.stall_width_m))
    traffic = g.cell_random(g.vector(stall, g.math("GREATER_THAN", g.y, plan.aisle_width_m / 2), 0.0))
    amount = g.math("MULTIPLY", amount, g.math("MULTIPLY_ADD", traffic, 0.75, 0.25))
    dirt = g.math("MULTIPLY", g.math("MULTIPLY", amount, _dirt_envelope(g, plan)), 0.85)
    dirt.node.label = DIRT_LABEL
    return dirt


DIRT_LABEL = "Ground dirt"  # the node whose output is the lot's dirt amount (0..0.85)
DIRT_RGB = (0.105, 0.088, 0.066)


def _oil_stains(g: NodeGraph, plan: LotPlan, wxyz, ragged):
    """An oil stain in the middle of about half the stalls: a ragged dark blob (which stalls: per-stall noise)."""
    stall_index = g.math("DIVIDE", g.math("SUBTRACT", g.x, plan.x0), plan.stall_width_m)
    stall_warped = g.math("DIVIDE", g.math("SUBTRACT", wxyz.outputs["X"], plan.x0), plan.stall_width_m)
    across = g.math("MULTIPLY", g.math("SUBTRACT", g.math("FRACT", stall_warped), 0.5), plan.stall_width_m)
    inside = g.math("MULTIPLY", g.math("GREATER_THAN", stall_index, 0.0),
                    g.math("LESS_THAN", stall_index, float(plan.stalls_per_row)))
    stain = None
    for row, centre in ((1.0, plan.row_a_head_y + 0.55 * plan.stall_depth_m),
                        (7.0, plan.row_b_head_y - 0.55 * plan.stall_depth_m)):
        along = g.math("SUBTRACT", wxyz.outputs["Y"], centre)
        r = g.math("SQRT", g.math("ADD", g.math("POWER", g.math("DIVIDE", across, 0.5), 2.0),
                                  g.math("POWER", g.math("DIVIDE", along, 0.85), 2.0)))
        which = g.cell_random(g.vector(g.math("FLOOR", stall_index), row, 0.0))
        blob = g.math("MULTIPLY", g.smooth(r, 1.0, 0.3), g.smooth(which, 0.45, 0.95, 0.0, 0.9))
        stain = blob if stain is None else g.math("MAXIMUM", stain, blob)
    return g.math("MULTIPLY", g.math("MULTIPLY", stain, inside), g.smooth(ragged, 0.2, 0.65, 0.45, 1.0))


def asphalt(name: str, plan: LotPlan):
    """The lot's asphalt: aggregate (`aggregate`), stones polished lighter in the wheel tracks down the aisle
    with a dark drip line between them, dirt against the curbs and in the stalls' wheel lanes (`_dirt`, never near
    the subject car), broken crack networks where the pavement is tired (tar-sealed ones where it was kept up),
    and an oil stain in the middle of about half the stalls."""
    mat, nodes, links, bsdf = mats.new_material(name)
    g = NodeGraph(nodes, links)
    base = 0.06 * plan.asphalt_shade
    offset = ground.texture_offset(layout_seed(plan))
    drift = g.noise(0.12, 2.0, flat=True)  # broad: which areas are tired, which were sealed
    warped = g.warp(0.8, 0.45)  # ragged stains, wiggly cracks
    wxyz = nodes.new("ShaderNodeSeparateXYZ")
    links.new(warped, wxyz.inputs[0])
    ragged = g.noise(2.2, 1.0, warped, flat=True)

    # tyre-polished wheel tracks of cars driving down the aisle, a drip line of oil between them
    off_mid = g.math("ABSOLUTE", g.math("SUBTRACT", wxyz.outputs["Y"], plan.aisle_width_m / 2))
    track = g.smooth(g.math("ABSOLUTE", g.math("SUBTRACT", off_mid, 0.8)), 0.55, 0.1)
    color, height, stone = aggregate(g, base, offset, polish=track)
    drip = g.math("MULTIPLY", g.smooth(off_mid, 0.35, 0.05), g.smooth(ragged, 0.35, 0.6))
    color = g.mix(g.math("MULTIPLY", drip, 0.45), color, (base * 0.45,) * 3)
    roughness = g.math("MULTIPLY_ADD", g.math("MULTIPLY", track, stone), -0.3, 0.9)
    dirt = _dirt(g, plan, offset)
    color = g.mix(dirt, color, DIRT_RGB)
    stain = _oil_stains(g, plan, wxyz, ragged)
    color = g.mix(stain, color, (base * 0.35, base * 0.33, base * 0.32))
    roughness = g.math("MULTIPLY_ADD", stain, -0.4, roughness)

    # cracks: Voronoi edges of the warped ground, broken into pieces, where the pavement is tired; where it
    # was kept up the same network is filled with wider bands of glossy black tar (one Voronoi for both)
    edge = g.edge_distance(0.3, warped)
    crack = g.math("LESS_THAN", edge, g.math("MULTIPLY_ADD", ragged, 0.004, 0.0004))
    crack = g.math("MULTIPLY", g.math("MULTIPLY", crack, g.smooth(ragged, 0.36, 0.44)), g.smooth(drift, 0.5, 0.56))
    color = g.mix(crack, color, (base * 0.2,) * 3)
    sealed = g.math("MULTIPLY", g.math("LESS_THAN", edge, 0.01), g.smooth(drift, 0.4, 0.35))
    color = g.mix(sealed, color, (0.014, 0.014, 0.015))
    roughness = g.math("MULTIPLY_ADD", sealed, -0.45, roughness)

    # the bump reads only the stones: a bump evaluates its height three times, cracks would triple their cost
    finish(mat, g, bsdf, color, roughness, height, 0.3, 0.003, (base,) * 3)
    return mat


def patch_asphalt(name: str, plan: LotPlan, age: float):
    """Newer asphalt of a repair: darker, finer, smoother the younger it is."""
    mat, nodes, links, bsdf = mats.new_material(name)
    g = NodeGraph(nodes, links)
    base = 0.06 * plan.asphalt_shade * (0.45 + 0.5 * age)
    color, grain, _ = aggregate(g, base, ground.texture_offset(layout_seed(plan) + 1))
    finish(mat, g, bsdf, color, 0.8 + 0.1 * age, grain, 0.18, 0.003, (base,) * 3)
    return mat


def stall_paint(name: str, rgb, plan: LotPlan):
    """Stall lines: faded paint broken up by noise into chips of bare asphalt, worn most where tyres cross
    the line ends at the aisle."""
    mat, nodes, links, bsdf = mats.new_material(name)
    g = NodeGraph(nodes, links)
    faded = tuple(0.5 * c + 0.08 for c in rgb)
    fade = g.noise(0.6, 2.0, flat=True)
    paint = g.mix(g.smooth(fade, 0.35, 0.7), tuple(0.36 * c + 0.06 for c in rgb), faded)
    # wear: more chipping within ~1.5 m of either aisle edge, where wheels roll over the lines
    to_aisle = g.math("MINIMUM", g.math("ABSOLUTE", g.y), g.math("ABSOLUTE", g.math("SUBTRACT", g.y,
                                                                                    plan.aisle_width_m)))
    wear = g.smooth(to_aisle, 1.6, 0.0, 0.0, 0.22)
    chips = g.noise(28.0, 6.0, roughness=0.65, flat=True)
    threshold = g.math("SUBTRACT", g.smooth(fade, 0.3, 0.7, 0.66, 0.55), wear)
    bare = g.math("GREATER_THAN", chips, threshold)
    base = 0.06 * plan.asphalt_shade
    asphalt_rgb = g.ramp(g.noise(140.0, 2.0, flat=True), [(0.35, (base * 0.6,) * 3), (0.65, (base * 1.5,) * 3)])
    color = g.mix(bare, paint, asphalt_rgb)
    roughness = g.math("MULTIPLY_ADD", bare, 0.2, 0.7)
    finish(mat, g, bsdf, color, roughness, chips, 0.15, 0.002, faded)
    return mat


def _concrete_tone(g: NodeGraph, light):
    dark = tuple(0.72 * c for c in light)
    tone = g.math("MULTIPLY_ADD", g.noise(1.2, 3.0), 0.6, g.math("MULTIPLY", g.noise(9.0, 4.0), 0.4))
    return g.ramp(tone, [(0.35, dark), (0.7, light)]), tone


def _base_dirt(g: NodeGraph, color, top_m: float):
    """Brownish grime in the bottom `top_m` of a kerb or slab, ragged along its top."""
    dirt = g.smooth(g.math("MULTIPLY_ADD", g.noise(6.0, 3.0), 0.04, g.z), top_m + 0.02, 0.0, 0.0, 0.8)
    return g.mix(dirt, color, (0.13, 0.115, 0.09))


def curb_concrete(name: str):
    """Curbs (and pole bases): concrete with darker chipped spots and dirt along the base."""
    mat, nodes, links, bsdf = mats.new_material(name)
    g = NodeGraph(nodes, links)
    light = (0.5, 0.49, 0.46)
    color, tone = _concrete_tone(g, light)
    chips = g.math("GREATER_THAN", g.noise(14.0, 5.0, roughness=0.7), 0.68)
    color = g.mix(g.math("MULTIPLY", chips, 0.7), color, (0.24, 0.23, 0.21))
    color = _base_dirt(g, color, 0.05)
    height = g.math("SUBTRACT", tone, g.math("MULTIPLY", chips, 0.5))
    finish(mat, g, bsdf, color, 0.9, height, 0.35, 0.01, light)
    return mat


def sidewalk_concrete(name: str):
    """Sidewalk slabs: broom-finished concrete, tooled joints every `SIDEWALK_JOINT_M`, blotchy stains."""
    mat, nodes, links, bsdf = mats.new_material(name)
    g = NodeGraph(nodes, links)
    light = (0.55, 0.54, 0.5)
    color, tone = _concrete_tone(g, light)
    broom = g.noise(1.0, 2.0, g.vector(g.math("MULTIPLY", g.x, 2.0), g.math("MULTIPLY", g.y, 60.0), g.z))
    offset = g.math("SUBTRACT", g.math("FRACT", g.math("DIVIDE", g.x, SIDEWALK_JOINT_M)), 0.5)
    joint = g.smooth(g.math("MULTIPLY", g.math("ABSOLUTE", offset), SIDEWALK_JOINT_M), 0.5 * SIDEWALK_JOINT_M,
                     0.5 * SIDEWALK_JOINT_M - 0.008)
    color = g.mix(g.math("MULTIPLY", joint, 0.8), color, (0.12, 0.115, 0.1))
    stains = g.smooth(g.noise(0.45, 3.0), 0.58, 0.72, 0.0, 0.35)
    color = g.mix(stains, color, (0.28, 0.27, 0.25))
    color = _base_dirt(g, color, 0.04)
    height = g.math("SUBTRACT", g.math("MULTIPLY_ADD", broom, 0.3, g.math("MULTIPLY", tone, 0.7)),
                    g.math("MULTIPLY", joint, 1.5))
    finish(mat, g, bsdf, color, 0.88, height, 0.3, 0.006, light)
    return mat


@reused
def crown_concrete(name: str):
    """A chimney's crown after years on a roof: darker than a kerb (a kerb's grey in sun beside dark shingles
    blew out to white), soot and rain stains in blotches, pitted with small dark holes, a few long hairline
    cracks broken into pieces (no network of cells: a blind panel read those as a Voronoi pattern), pale lichen
    specks, a rough, matte finish. World coordinates (the crown's mesh is built in world space)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    g = NodeGraph(nodes, links)
    light = (0.16, 0.155, 0.145)
    color, tone = _concrete_tone(g, light)
    stains = g.smooth(g.noise(3.0, 4.0, roughness=0.6), 0.42, 0.72, 0.0, 0.85)
    color = g.mix(stains, color, (0.05, 0.048, 0.045))
    pits = g.smooth(g.noise(90.0, 2.0, roughness=0.8), 0.7, 0.76, 0.0, 0.7)
    color = g.mix(pits, color, (0.03, 0.03, 0.028))
    cracks = g.math("MULTIPLY", g.smooth(g.edge_distance(3.0, g.warp(5.0, 0.06)), 0.005, 0.0),
                    g.smooth(g.noise(2.5, 2.0), 0.53, 0.58))
    color = g.mix(cracks, color, (0.025, 0.025, 0.023))
    lichen = g.smooth(g.noise(40.0, 3.0, roughness=0.7), 0.66, 0.72, 0.0, 0.8)
    color = g.mix(g.math("MULTIPLY", lichen, g.smooth(g.noise(2.0, 2.0), 0.5, 0.65)), color, (0.24, 0.26, 0.21))
    height = g.math("SUBTRACT", tone, g.math("MULTIPLY", g.math("MAXIMUM", cracks, pits), 0.8))
    finish(mat, g, bsdf, color, 0.94, height, 0.4, 0.004, light)
    return mat

"""What the render shows of a far conifer (pure): whorls of branches inside each measured tier.

A surroundings conifer is measured as three stacked cones (`core.surroundings_meshes.crown_mesh`), which is what
the analytic skyline and every ray cast use; beyond the leaf cards' reach (`core.vegetation.SURROUNDINGS_CARDS`)
the render used to show those cones as they are, and blind viewers named them "stacked cones". A spruce or fir
seen from a few hundred metres is a ragged spire: layers of drooping branches, each wide at its tips and
narrowing quickly above them, with the dark inside of the tree showing between the layers.

`whorled_tiers` builds that inside each measured cone: `WHORLS_PER_TIER` squat cones per tier (an apex
`WHORL_RISE` of the way to the tier's top, a rim of `WHORL_TIPS` drooping branch tips between shorter ones), the
whorls' rims spaced so each layer starts halfway up the one below, where that has narrowed to half its width,
and a thin leader up to the tier's apex. Every point lies inside its measured tier: a cone over the same rim with a lower apex is inside
the taller one, the rim's radius is at most the measured rim's inscribed circle, and each whorl's underside
stays above the measured tier's (`tests/test_far_conifers.py` checks points all over every triangle). So the
rendered outline never reaches beyond the measured one, and the tree's top is the measured top.
"""
from __future__ import annotations

import math

import numpy as np

from .geometry import merge_shaded
from .noise import hash01

WHORLS_PER_TIER = 4
WHORL_RISE = 0.5  # a whorl's apex: this share of the way from its rim up to the tier's top
WHORL_STEP = 0.25  # the next whorl's rim: this share of the way from this rim up to the tier's top
WHORL_TIPS = 7  # branch tips round a whorl's rim (with as many shorter branches between them)
TIP_REACH = (0.88, 0.97)  # a tip's radius, as a share of the measured cone's inscribed radius at its height
GAP_REACH = (0.6, 0.8)  # the radius between two tips, likewise
GAP_LIFT = 0.22  # the rim between two tips sits this share of the whorl's height above the tips (they droop)
LEADER_BASE = 0.3  # the leader's base radius, as a share of the measured radius where the last whorl starts
HUB_LIFT = 0.4  # a whorl's underside rises to this share of its height at the trunk (above the measured hub)
FIRST_RIM_LIFT = 0.06  # the lowest whorl's tips: this share of the tier's height above its rim (inside its underside)
SHADE_SPREAD = 0.18  # how much a whorl's shade differs from the tree's (face attribute `tree_shade`)


def tier_frame(verts: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """(axis point xy, bottom z, top z, inscribed rim radius) of one measured tier cone given its vertices: a
    rim ring at the bottom, the apex above its middle and the underside's hub."""
    verts = np.asarray(verts, float)
    top = verts[np.argmax(verts[:, 2])]
    bottom = verts[:, 2].min()
    rim = verts[np.isclose(verts[:, 2], bottom, atol=1e-9)]
    radii = np.hypot(*(rim[:, :2] - top[:2]).T)
    return top[:2].copy(), float(bottom), float(top[2]), float(radii.min() * math.cos(math.pi / len(rim)))


def measured_radius(z, bottom: float, top: float, radius: float):
    """The inscribed radius of the measured tier cone at height z."""
    return radius * (top - np.asarray(z, float)) / (top - bottom)


def _whorl(centre, rim_z: float, apex_z: float, reach: float, seed: int, angle0: float):
    """One whorl: a jagged rim (tips at `rim_z`, the gaps between them lifted), an apex and an underside hub."""
    n = 2 * WHORL_TIPS
    k = np.arange(n)
    tip = k % 2 == 0
    jitter = hash01(k, 3, seed)
    share = np.where(tip, TIP_REACH[0] + (TIP_REACH[1] - TIP_REACH[0]) * jitter,
                     GAP_REACH[0] + (GAP_REACH[1] - GAP_REACH[0]) * jitter)
    height = apex_z - rim_z
    z = rim_z + np.where(tip, 0.0, GAP_LIFT * height)
    a = angle0 + 2 * math.pi * (k + 0.35 * (hash01(k, 5, seed) - 0.5)) / n
    r = reach * share * (apex_z - z) / height  # a gap's point, lifted, stays on the whorl's own cone
    ring = np.column_stack([centre[0] + r * np.cos(a), centre[1] + r * np.sin(a), z])
    verts = np.vstack([ring, [[centre[0], centre[1], apex_z], [centre[0], centre[1], rim_z + HUB_LIFT * height]]])
    j, j1 = k, (k + 1) % n
    tris = np.concatenate([np.column_stack([j, j1, np.full(n, n)]), np.column_stack([j1, j, np.full(n, n + 1)])])
    return verts, tris


def whorled_tier(verts: np.ndarray, shade: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, triangles, per-triangle shade) of the whorls and leader inside one measured tier cone."""
    centre, bottom, top, radius = tier_frame(verts)
    parts = []
    rim_z = bottom + FIRST_RIM_LIFT * (top - bottom)
    for w in range(WHORLS_PER_TIER):
        apex_z = rim_z + WHORL_RISE * (top - rim_z)
        reach = float(measured_radius(rim_z, bottom, top, radius))
        v, t = _whorl(centre, rim_z, apex_z, reach, seed * 7 + w, float(hash01(w, 9, seed)) * 2 * math.pi)
        tone = np.clip(shade + SHADE_SPREAD * (float(hash01(w, 11, seed)) - 0.5), 0.0, 1.0)
        parts.append((v, t, np.full(len(t), tone)))
        rim_z = rim_z + WHORL_STEP * (top - rim_z)
    # the leader: a thin cone from where the next whorl would start up to the measured apex
    base = LEADER_BASE * float(measured_radius(rim_z, bottom, top, radius))
    a = np.linspace(0.0, 2 * math.pi, 6, endpoint=False)
    ring = np.column_stack([centre[0] + base * np.cos(a), centre[1] + base * np.sin(a), np.full(6, rim_z)])
    j = np.arange(6)
    parts.append((np.vstack([ring, [[centre[0], centre[1], top]]]), np.column_stack([j, (j + 1) % 6, np.full(6, 6)]),
                  np.full(6, np.clip(shade + 0.5 * SHADE_SPREAD, 0.0, 1.0))))
    return merge_shaded(parts)


def whorled_tiers(verts, tris, pieces, shade) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The render mesh of the measured conifer tiers `pieces` (each the triangle indices of one tier cone of the
    merged crowns `verts`, `tris`; `shade` per triangle), seeded by each tier's own vertices."""
    verts, tris, shade = np.asarray(verts, float), np.asarray(tris, int), np.asarray(shade, float)
    tiers = []
    for own in pieces:
        tier = verts[np.unique(tris[own])]
        seed = int(abs(tier[:, :2].sum()) * 1000) % 1000003
        tiers.append(whorled_tier(tier, float(shade[own].mean()), seed))
    return merge_shaded(tiers)

"""The relief of a vehicle's ends (pure, issue 41): a bumper that stands proud, a nose and a tail that lean back.

The loft closes each end with an upright cap, and blind viewers named what that gives: "planar front and rear
faces", "a flat featureless bumper", "a plate that looks pasted on". Here every point near an end moves back along
the car by `EndRelief.relief_m`, a function of where it is on the end:

- the valance tucks under: TUCK_M at the end's bottom edge, nothing TUCK_BAND_M above it;
- the bumper's face (up to the side crease) stands proud: nothing;
- above the crease the end steps back LIP_M over LIP_BAND_M (the bumper's top shelf, which catches the light),
  except the grille, which stands flat in the front's plane (the step runs round it under its surround);
- above the plate it leans back, up to RAKE_M more (the nose into the hood, the tail into the trunk lid; not a van's
  doors or a pickup's tailgate), and is upright again above the beltline (a van's tall doors);
- round each plate's mount a pocket POCKET_M deep, with a flat floor where the plate sits upright as before.

The relief fades across the end's width (FADE_M), to nothing at SIDE_KEEP of its half width (or sooner, short of
the sides), and along the car to nothing at the bumper's shut line. So no vertex of a side panel moves: the
panels a damage is drawn on, their loft quads and every mark on them are where they were
(`tests/test_vehicle_ends.py`). The parts on an end get vertices where the relief bends (`breaks`), and no more.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .clouds import smoothstep
from .vehicle import SEAM_GAP_M, PlateMount, StyleProfile
from .vehicle_lamps import GRILLE_FRAME_M, grille_half_width
from .vehicle_loft import CANT, GREENHOUSE, SHOULDER, UPPER, Profile, loft_ring, rounded_ring

TUCK_M, TUCK_BAND_M = 0.07, 0.12
LIP_M, LIP_BAND_M = 0.04, 0.035
RAKE_M, RAKE_HEIGHT_M = 0.06, 0.2  # the lean's depth, and the height over which most of it comes
UPRIGHT_TAILS = ("van", "pickup")  # rear doors and tailgates stand upright behind the bumper: no lean
POCKET_M, POCKET_MARGIN_M, POCKET_WALL_M = 0.02, 0.015, 0.012  # depth; floor beyond the mount; the wall's width
FADE_M = 0.3
SIDE_KEEP = 0.88
BAND_SEGMENTS, RAKE_STEP_M = 2, 0.05  # the parts on an end follow its smooth steps in 2 pieces, its lean in 5 cm
ENDS = ("front", "rear")


class EndRelief:
    """The relief of one vehicle's two ends, from its profile and its plates' mounts (as the loft places them,
    on the end plane); `mount_size` is the mounts' (width, height)."""

    def __init__(self, p: StyleProfile, prof: Profile, mounts: dict[str, PlateMount], seams: dict,
                 mount_size: tuple[float, float]):
        self.p, self.mounts = p, mounts
        L = p.length
        self.zone = {"front": seams["bumper_front"] - SEAM_GAP_M / 2, "rear": L - seams["bumper_rear"] - SEAM_GAP_M / 2}
        self.y_out = {end: self._side_start(prof, d, "bed" if (p.bed and end == "rear") else "body")
                      for end, d in (("front", 0.0), ("rear", L))}
        z_bottom = {"front": float(prof.z_bottom(0.0)), "rear": float(prof.z_bottom(L))}
        rear_form = "bed" if p.bed else "body"
        self.z_belt = {"front": float(prof.sections([0.0])[0, 4, 1]),
                       "rear": float(prof.sections([L], form=rear_form)[0, 4, 1])}
        self.rake = {"front": RAKE_M, "rear": 0.0 if p.name in UPRIGHT_TAILS else RAKE_M}
        self.grille_y = grille_half_width(p, prof)
        self.half_pocket = (mount_size[0] / 2 + POCKET_MARGIN_M, mount_size[1] / 2 + POCKET_MARGIN_M)
        self.bands = {end: self._bands(z_bottom[end], mounts[end].center[2]) for end in ENDS}
        self._breaks = {end: self._find_breaks(end) for end in ENDS}

    @staticmethod
    def _side_start(prof: Profile, d: float, form: str) -> float:
        """Where the relief has faded to nothing across the end at station d: SIDE_KEEP of the half width, and
        short of every point of the sides above the crease (a van's tall sides reach in to the roof)."""
        ring, edges = rounded_ring(loft_ring(prof.sections([d], form=form)))
        side = [k for k, (e, _) in enumerate(edges) if e in (UPPER, SHOULDER, GREENHOUSE, CANT)]
        ys = np.abs(ring[0, side + [k + 1 for k in side], 0])
        # 1 cm short: the loft's end station is rounded to the micrometre, where the plan corner turns fast
        return min(SIDE_KEEP * float(prof.half_width(d)), float(ys.min()) - 0.01)

    def _bands(self, zb: float, zc: float) -> tuple:
        """(bottom, tuck top, tuck depth, lip bottom, lip top, rake bottom) of an end whose bottom edge is at zb
        and whose mount is centred at zc: the pocket's floor is never on a slope."""
        p = self.p
        floor0, floor1 = zc - self.half_pocket[1], zc + self.half_pocket[1]
        tuck_top, tuck = zb + TUCK_BAND_M, TUCK_M
        if floor0 < p.crease:  # the plate sits on the bumper: the tuck ends under its pocket's floor
            tuck_top = min(tuck_top, floor0)
            if tuck_top - zb < 0.03:
                tuck = 0.0
        lip0 = max(p.crease, floor1) if floor0 < p.crease else p.crease
        lip1 = lip0 + LIP_BAND_M
        if floor0 >= p.crease:  # the plate sits above the bumper: the lip is done under its pocket's floor
            lip1 = max(min(lip1, floor0), lip0 + 0.01)
        rake0 = max(lip1, floor1) if floor0 >= p.crease else lip1
        return zb, tuck_top, tuck, lip0, lip1, rake0

    def breaks(self, end: str) -> tuple[np.ndarray, np.ndarray]:
        """(|y|, z) where the relief of `end` bends (`_find_breaks`, found once)."""
        return self._breaks[end]

    def _find_breaks(self, end: str) -> tuple[np.ndarray, np.ndarray]:
        """(|y|, z) where the relief of `end` bends: a part on the end needs its vertices there (each smooth step
        in BAND_SEGMENTS straight pieces, the lean every RAKE_STEP_M) and may be flat between them. Few, because
        the measured in-frame share samples the car's vertices (spec: vertices and face interiors)."""
        zb, tuck_top, tuck, lip0, lip1, rake0 = self.bands[end]
        hy, hz = self.half_pocket
        zc = self.mounts[end].center[2]
        y_out = self.y_out[end]
        k = BAND_SEGMENTS + 1
        ys = [[0.0], np.linspace(hy, hy + POCKET_WALL_M, k), np.linspace(y_out - FADE_M, y_out, k)]
        if end == "front":
            ys.append(np.linspace(self.grille_y, self.grille_y + GRILLE_FRAME_M[0], k))
        zs = [np.linspace(lip0, lip1, k), np.linspace(zc - hz - POCKET_WALL_M, zc - hz, k),
              np.linspace(zc + hz, zc + hz + POCKET_WALL_M, k)]
        if tuck:
            zs.append(np.linspace(zb, tuck_top, k))
        if self.rake[end] and self.z_belt[end] > rake0:
            zs.append(np.arange(rake0, self.z_belt[end], RAKE_STEP_M))
        return np.unique(np.round(np.concatenate(ys), 9)), np.unique(np.round(np.concatenate(zs), 9))

    def relief_m(self, end: str, y, z, full_width: bool = False) -> np.ndarray:
        """How far (m) the surface at (y, z) of `end` sits back from the end's plane, at the plane; with
        `full_width`, without the fade across the end and the grille's flat stretch (as deep as anywhere)."""
        y, z = np.asarray(y, float), np.asarray(z, float)
        zb, tuck_top, tuck, lip0, lip1, rake0 = self.bands[end]
        out = tuck * (1.0 - smoothstep(zb, tuck_top, z)) if tuck else np.zeros(np.broadcast(y, z).shape)
        u = np.maximum(np.minimum(z, self.z_belt[end]) - rake0, 0.0) / RAKE_HEIGHT_M
        back = LIP_M * smoothstep(lip0, lip1, z) + self.rake[end] * (1.0 - np.exp(-u * u))
        if end == "front" and not full_width:  # the grille stands flat in the plane; its surround's sides step
            back = back * smoothstep(self.grille_y, self.grille_y + GRILLE_FRAME_M[0], np.abs(y))
        out = out + back
        zc = self.mounts[end].center[2]
        hy, hz = self.half_pocket
        out = out + POCKET_M * (1.0 - smoothstep(hy, hy + POCKET_WALL_M, np.abs(y))) \
            * (1.0 - smoothstep(hz, hz + POCKET_WALL_M, np.abs(z - zc)))
        if full_width:
            return out * np.ones(np.shape(y))
        y_out = self.y_out[end]
        return out * (1.0 - smoothstep(y_out - FADE_M, y_out, np.abs(y)))

    def shaped(self, vertices: np.ndarray, full_width: bool = False) -> np.ndarray:
        """Vertices (n, 3) in the vehicle frame moved back by the relief: fully on and beyond an end's plane,
        easing to nothing at its bumper's shut line. The inner shell takes the relief `full_width`: its open
        ends lay in the end's plane, and their long straight edges across the end would cut through the
        relief's fade; moved as deep as the middle everywhere, they stay behind it."""
        v = np.array(vertices, float, copy=True)
        if len(v) == 0:
            return v
        half = self.p.length / 2
        for end, sign in (("front", 1.0), ("rear", -1.0)):
            d = half - sign * v[:, 0]  # metres in from the end's plane
            near = d < self.zone[end]
            if not near.any():
                continue
            w = 1.0 - smoothstep(0.0, self.zone[end], d[near])
            v[near, 0] -= sign * w * self.relief_m(end, v[near, 1], v[near, 2], full_width)
        return v

    def shaped_mounts(self) -> dict[str, PlateMount]:
        """The plates' mounts moved onto their pockets' floors (upright, as before)."""
        out = {}
        for end, sign in (("front", 1.0), ("rear", -1.0)):
            m = self.mounts[end]
            x, y, z = m.center
            out[end] = replace(m, center=(x - sign * float(self.relief_m(end, y, z)), y, z))
        return out

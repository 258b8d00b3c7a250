"""A vehicle plan made into its parts (pure): the loft split into panels, glass and trim, the details
added; cached per plan."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .vehicle import INNER_INSET_M, SEAM_GAP_M, SIDES, VehiclePlan
from .vehicle_details import add_details, plate_mounts_of, tyre_uv
from .vehicle_interior import add_interior
from .vehicle_loft import (CANT, GREENHOUSE, LOWER, N_POINTS, RING_EDGES, ROCKER, ROOF, ROOF_EDGE, SHOULDER,
                           UNDERSIDE, UPPER, PartBuilder, Profile, VehicleGeometry, loft_ring, loft_stations,
                           rounded_ring)
from .vehicle_panels import BED_GAP_M, FaceClassifier, body_panels, door_seams, side_zones


@lru_cache(maxsize=64)
def vehicle_geometry(plan: VehiclePlan) -> VehicleGeometry:
    """Every part of the vehicle as triangles in the vehicle frame, its panels and plate mounts."""
    p = plan.profile
    prof = Profile(p)
    L = p.length
    seams = door_seams(p)
    zones = {side: side_zones(p, side, seams) for side in SIDES}
    classify = FaceClassifier(p, prof, seams, zones)
    b = PartBuilder()
    sides4 = (ROCKER, LOWER, UPPER, SHOULDER)
    # shut lines: d -> the section edges they cut
    cuts = {seams["door0"]: sides4, seams["door1"]: sides4, seams["bumper_front"]: (ROCKER, LOWER),
            seams["bumper_rear"]: (ROCKER, LOWER)}
    if p.rear_door and not p.bed:
        cuts[seams["door2"]] = sides4 + ((GREENHOUSE, CANT) if p.cargo else ())
        if p.sliding or p.cargo:
            cuts[seams["door1"] + 0.06] = sides4 + ((GREENHOUSE, CANT) if p.cargo else ())
    tops = (GREENHOUSE, CANT, ROOF_EDGE, ROOF)
    cuts_top = {0.02: tops, p.cowl: tops}
    if classify.trunk == "trunk":
        cuts_top[p.deck] = tops
    gap = SEAM_GAP_M
    breaks = []
    for d in list(cuts) + list(cuts_top):
        breaks += [d - gap / 2, d + gap / 2]
    for dw in prof.wheels_d:
        breaks += list(np.linspace(dw - prof.arch_r, dw + prof.arch_r, 15))
    if p.open_top:
        breaks += [p.roof_front + 0.035, p.roof_front + 0.045, p.deck - 0.005, p.deck + 0.005]
    breaks += [k[0] for k in prof.top_knots]
    breaks += [seams["door1"] - 0.05, seams["door1"] + 0.05, seams["door2"] - 0.04, seams["door2"] + 0.04,
               p.roof_rear - 0.1]
    segments = [(0.0, p.cab_end, "body"), (p.cab_end + BED_GAP_M, L, "bed")] if p.bed else [(0.0, L, "body")]
    labels = {}  # (segment, station interval, ring edge) -> part name: for the panels' neighbours
    loft: dict[str, list] = {}
    for si, (s0, s1, form) in enumerate(segments):
        ds = loft_stations(s0, s1, [x for x in breaks if s0 < x < s1])
        n = len(ds)
        for inset in (0.0, INNER_INSET_M):
            # smooth outside; the inner shell, seen only through the shut lines, keeps its corners: the
            # rounding cuts at most ~3 cm into a corner, short of the 5 cm inset
            sharp = loft_ring(prof.sections(ds, inset=inset, form=form))
            ring, ring_edges = (sharp, RING_EDGES) if inset else rounded_ring(sharp)
            m = len(ring_edges)
            if not inset:
                outer_ring_size = m  # the panels' neighbours are found along the outer ring
            pts = np.concatenate([np.broadcast_to((L / 2 - ds)[:, None, None], (n, m, 1)), ring], axis=2)
            # every quad of the loft at once: (station interval, ring edge, corner, xyz)
            nxt = np.roll(pts, -1, axis=1)
            quads = np.stack([pts[:-1], pts[1:], nxt[1:], nxt[:-1]], axis=2)
            for i in range(n - 1):
                dm = 0.5 * (ds[i] + ds[i + 1])
                cut_edges = {e for c, edges in (*cuts.items(), *cuts_top.items()) if abs(dm - c) < gap / 2
                             for e in edges}  # the ring edges a shut line crosses in this interval
                for r in range(m):
                    e, side = ring_edges[r]
                    quad = quads[i, r]
                    if inset:
                        skip = e == UNDERSIDE or (form == "bed" and e > SHOULDER) or \
                            (p.open_top and prof.cockpit(dm) and e >= GREENHOUSE)
                        if not skip:  # behind the glass the shell is see-through: the cabin shows
                            behind_glass = classify(form, dm, e, side)[1] == "glass"
                            b.add_quad("inner", quad, "inner_clear" if behind_glass else "inner")
                        continue
                    name, mat = classify(form, dm, e, side)
                    labels[(si, i, r)] = name
                    if e not in cut_edges:
                        b.add_quad(name, quad, mat)
                        if name.endswith(SIDES) and not name.startswith("glass"):  # a side panel's quads
                            loft.setdefault(name, []).append((float(ds[i]), float(ds[i + 1]), e, quad, mat))
        # end caps: strips across the (rounded) section between mirrored points (normal out of the end)
        end_rings, end_edges = rounded_ring(loft_ring(prof.sections([s0, s1], form=form)))
        top = next(k for k, (e, side) in enumerate(end_edges) if side == "right")  # the top centre
        for end, sec, x in (("front", end_rings[0], L / 2 - s0), ("rear", end_rings[1], L / 2 - s1)):
            if form == "bed":
                low, up = ("bed_front", "bed_front") if end == "front" else ("bumper_rear", "tailgate")
            elif p.bed and end == "rear":
                low, up = "cab_back", "cab_back"
            else:
                low, up = ("bumper_front", "bumper_front") if end == "front" else ("bumper_rear", classify.trunk)
            top_e = 4 if form == "bed" else N_POINTS - 1
            for k in range(top):
                e = end_edges[k][0]
                if e >= top_e:
                    continue
                l0, l1 = sec[k], sec[k + 1]
                quad = np.array([[x, l0[0], l0[1]], [x, -l0[0], l0[1]], [x, -l1[0], l1[1]], [x, l1[0], l1[1]]])
                if end == "front":
                    quad = quad[::-1]
                b.add_quads(low if e < 3 else up, quad[None], "paint")
    add_details(plan, prof, seams, zones, b)
    add_interior(plan, prof, seams, b)  # last: the parts before it (the targets) are as they were
    parts = b.parts()
    parts["tyres"].uv = tyre_uv(plan, parts["tyres"].vertices)  # the tread and sidewall pattern's coordinates
    panels = body_panels(parts, labels, zones, p, outer_ring_size)
    return VehicleGeometry(parts, panels, plate_mounts_of(p, prof), segments, seams, zones, loft)



"""Which loft faces belong to which body panel (pure): the door, hood and trunk seams, the zones
between them, and each panel's neighbours."""
from __future__ import annotations

from .vehicle import HATCH_STYLES, Panel, StyleProfile
from .vehicle_loft import CANT, GREENHOUSE, LOWER, RING, ROCKER, SHOULDER, UNDERSIDE, Profile


def door_seams(p: StyleProfile) -> dict:
    dd0 = p.front_overhang + p.tyre_radius + 0.15
    dd1 = dd0 + p.front_door
    dd2 = dd1 + p.rear_door if p.rear_door else dd1
    if p.bed:
        dd2 = p.cab_end
    return {"bumper_front": 0.22, "bumper_rear": p.length - 0.2, "door0": dd0, "door1": dd1, "door2": dd2}


def side_zones(p: StyleProfile, side: str, s: dict) -> list[tuple[str, str, float, float]]:
    """(panel kind, name, d0, d1) along one side, front to back."""
    zones = [("fender", 0.0, s["door0"]), ("door_front", s["door0"], s["door1"])]
    if p.bed:
        zones += [("door_rear", s["door1"], p.cab_end), ("bed_side", p.cab_end + BED_GAP_M, p.length)]
    elif p.rear_door:
        if p.sliding == "both" or p.sliding == side:
            zones += [("sliding_door", s["door1"] + 0.06, s["door2"]), ("quarter", s["door2"], p.length)]
        elif p.cargo:
            zones.append(("quarter", s["door1"] + 0.06, p.length))
        else:
            zones += [("door_rear", s["door1"], s["door2"]), ("quarter", s["door2"], p.length)]
    else:
        zones.append(("quarter", s["door1"], p.length))
    return [(k, f"{k}_{side}", a, b) for k, a, b in zones]


BED_GAP_M = 0.06  # between a pickup's cab and its bed


def _zone_at(zones, d: float) -> str:
    for _kind, name, a, b in zones:
        if a <= d <= b:
            return name
    before = [z for z in zones if z[3] <= d]  # the strip ahead of a sliding door: the door before it
    return before[-1][1] if before else zones[0][1]


PANEL_KINDS = ("fender", "door_front", "door_rear", "sliding_door", "quarter", "bed_side", "hood", "roof", "trunk",
               "tailgate", "bumper_front", "bumper_rear")


class FaceClassifier:
    """Which part (and material) each loft face belongs to."""

    def __init__(self, p: StyleProfile, prof: Profile, seams: dict, zones: dict):
        self.p, self.prof, self.seams, self.zones = p, prof, seams, zones
        self.trunk = "tailgate" if (p.name in HATCH_STYLES or p.bed) else "trunk"

    def greenhouse(self, d: float, side: str) -> tuple[str, str]:
        p, s = self.p, self.seams
        if p.open_top:
            return ("cockpit", "interior") if self.prof.cockpit(d) else self.top(d)
        if d < p.cowl:
            return "hood", "paint"
        if d < self.prof.windshield_top_d:
            return "pillars", "paint"  # A-pillar
        if d > p.roof_rear:
            return ("pillars", "paint") if d < p.deck else (self.trunk, "paint")
        if p.cargo and d > s["door1"]:
            return _zone_at(self.zones[side], d), "paint"
        b_pillar = p.rear_door > 0 and abs(d - s["door1"]) < 0.05
        c_pillar = p.rear_door > 0 and abs(d - s["door2"]) < 0.04 and s["door2"] < p.roof_rear - 0.15
        if b_pillar or c_pillar:  # a gloss-black applique, as on most cars since the 2000s (not the matte trim)
            return "pillars", "pillar_black"
        if d > p.roof_rear - 0.1:
            return "pillars", "paint"
        return f"glass_{side}", "glass"

    def top(self, d: float) -> tuple[str, str]:
        p = self.p
        if d < p.cowl:
            return "hood", "paint"
        if p.open_top:
            if self.prof.cockpit(d):
                return "cockpit", "interior"
            return (self.trunk, "paint") if d >= p.deck else ("cowl", "paint")
        if d < self.prof.windshield_top_d:
            return "windshield", "glass"
        if d <= p.roof_rear:
            return "roof", "paint"
        if d < p.deck:
            return "rear_glass", "glass"
        return self.trunk, "paint"

    def __call__(self, form: str, d: float, e: int, side: str) -> tuple[str, str]:
        p, s = self.p, self.seams
        if e == UNDERSIDE:
            return "underbody", "chassis"
        if form == "bed":
            if e > SHOULDER:
                return "bed", "bedliner"
            if e in (ROCKER, LOWER) and d > s["bumper_rear"]:
                return "bumper_rear", "paint"
            return _zone_at(self.zones[side], d), "paint"
        if e in (ROCKER, LOWER) and d < s["bumper_front"]:
            return "bumper_front", "paint"
        if e in (ROCKER, LOWER) and d > s["bumper_rear"]:
            return "bumper_rear", "paint"
        if e <= SHOULDER:
            return _zone_at(self.zones[side], d), ("trim" if (p.cladding and e == ROCKER) else "paint")
        if e == GREENHOUSE:
            return self.greenhouse(d, side)
        if e == CANT:
            part, mat = self.greenhouse(d, side)
            if part.startswith("glass"):
                return "roof", "paint"
            # the black applique ends at the door frame's top: above it the cant rail is body colour (a panel saw
            # black tabs standing up into the roof rail)
            return part, ("paint" if mat == "pillar_black" else mat)
        return self.top(d)




def body_panels(parts, labels, zones, p, ring_size: int = RING) -> dict[str, Panel]:
    """The named body panels, with their neighbours: parts whose faces touch along the loft
    (`labels`: (segment, station interval, ring edge) -> part, around a ring of `ring_size` edges)."""
    def kind_of(name):
        return name[:-5] if name.endswith("_left") else name[:-6] if name.endswith("_right") else name

    names = [n for n in parts if kind_of(n) in PANEL_KINDS]
    pairs = set()
    for (si, i, r), name in labels.items():
        for key in ((si, i + 1, r), (si, i, (r + 1) % ring_size)):
            other = labels.get(key)
            if other is not None and other != name:
                pairs.add(tuple(sorted((name, other))))
    panels = {}
    for name in names:
        side = "left" if name.endswith("_left") else "right" if name.endswith("_right") else "center"
        d_range = next(((a, b) for z in zones.values() for _k, zname, a, b in z if zname == name), (0.0, p.length))
        neighbours = tuple(sorted({o for pair in pairs if name in pair for o in pair if o != name and o in names}))
        panels[name] = Panel(name, kind_of(name), side, parts[name].area_m2, d_range, neighbours)
    return panels



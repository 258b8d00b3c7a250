"""Issue 20, vehicles: the cabin behind the glass stays inside the body, the targets (panels, plate mounts, every
non-cabin part's triangles) are exactly what they were before the realism work, the new parts are deterministic
and within a triangle budget, and the tyres' pattern coordinates are sane. No bpy."""
import hashlib

import numpy as np
import pytest

from realitybench_addon.core.vehicle import BODY_STYLES, draw_vehicle
from realitybench_addon.core.vehicle_geometry import vehicle_geometry
from realitybench_addon.core.vehicle_interior import COSMETIC_PREFIX, seat_rows
from realitybench_addon.core.vehicle_loft import Profile
from realitybench_addon.core.vehicle_panels import door_seams

CABIN_TRIANGLE_BUDGET = 3000  # per car: a lot has ~20 cars, so at most ~60k triangles more per scene

# sha256 (first 16 hex digits) of every non-cabin part's vertices and triangles, the panels and the plate mounts,
# computed with the code before the realism work (the checkout at /tmp/before) by `_digest` below.
BEFORE = {
    "sedan:0": "1c252ef9aab6d96f",
    "suv:3": "da97136588174f52",
    "crossover:7": "7a2a6d06554d6875",
    "pickup:11": "40a6b534c76db33f",
    "hatchback:19": "6e7d8444f8536dcd",
    "coupe:23": "9615b88823ac81cf",
    "wagon:5": "b1b381e557b1f911",
    "minivan:2": "aad67e9a13deef01",
    "van:13": "b2b7ca8d69b294a7",
    "convertible:31": "a069745cd6c8404f",
}


def _digest(style: str, seed: int) -> str:
    g = vehicle_geometry(draw_vehicle(np.random.default_rng(seed), style=style))
    h = hashlib.sha256()
    for name, part in g.parts.items():
        if name.startswith(COSMETIC_PREFIX):
            continue
        h.update(name.encode())
        h.update(np.round(part.vertices, 6).astype("<f8").tobytes())
        h.update(np.asarray(part.triangles, "<i8").tobytes())
    for name, pan in sorted(g.panels.items()):
        h.update(repr((name, pan.kind, pan.side, round(pan.area_m2, 6), tuple(round(x, 6) for x in pan.d_range),
                       pan.neighbours)).encode())
    for end, m in sorted(g.plate_mounts.items()):
        h.update(repr((end, tuple(round(x, 6) for x in m.center), m.normal, m.up)).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("key", sorted(BEFORE))
def test_targets_and_outer_parts_are_exactly_as_before(key):
    style, seed = key.split(":")
    assert _digest(style, int(seed)) == BEFORE[key]


@pytest.mark.parametrize("style", BODY_STYLES)
def test_cabin_sits_inside_the_body_and_within_budget(style):
    plan = draw_vehicle(np.random.default_rng(4), style=style)
    g = vehicle_geometry(plan)
    prof, p = Profile(plan.profile), plan.profile
    cabin = {n: part for n, part in g.parts.items() if n.startswith(COSMETIC_PREFIX)}
    assert {"cabin_dash", "cabin_wheel"} <= set(cabin)
    assert ("cabin_seats" in cabin) != p.open_top  # the convertible keeps its cockpit's own seats
    assert sum(len(part.triangles) for part in cabin.values()) <= CABIN_TRIANGLE_BUDGET
    for name, part in cabin.items():
        v = part.vertices
        d = p.length / 2 - v[:, 0]
        assert np.all((d > p.cowl) & (d < p.length - 0.3)), name
        assert np.all(np.abs(v[:, 1]) < prof.half_width(d) - 0.05), name  # clear of the doors' inner shell
        assert np.all(v[:, 2] > p.clearance), name
        if not p.open_top:  # under the roof and the glass
            assert np.all(v[:, 2] < prof.z_top(d) - 0.02), name
        else:  # the wheel and dash stay below the windshield's top
            assert np.all(v[:, 2] < p.height - 0.1), name
    # the car's outer footprint does not grow
    outer = np.concatenate([part.vertices for n, part in g.parts.items() if not n.startswith(COSMETIC_PREFIX)])
    inner = np.concatenate([part.vertices for part in cabin.values()])
    assert np.all(inner.min(axis=0) > outer.min(axis=0)) and np.all(inner.max(axis=0) < outer.max(axis=0))


def test_seat_rows_follow_the_style():
    rows = {}
    for style in BODY_STYLES:
        plan = draw_vehicle(np.random.default_rng(0), style=style)
        rows[style] = seat_rows(plan, door_seams(plan.profile))
    assert len(rows["minivan"]) == 3 and len(rows["sedan"]) == 2 and len(rows["pickup"]) == 2
    assert len(rows["coupe"]) == 1 and len(rows["van"]) == 1
    for style, ds in rows.items():
        assert ds == sorted(ds), style


def test_cabin_and_tyre_coordinates_are_deterministic():
    plan = draw_vehicle(np.random.default_rng(9), style="crossover")
    a = vehicle_geometry.__wrapped__(plan)
    b = vehicle_geometry.__wrapped__(draw_vehicle(np.random.default_rng(9), style="crossover"))
    for name in ("cabin_seats", "cabin_dash", "cabin_wheel", "tyres"):
        assert np.array_equal(a.parts[name].vertices, b.parts[name].vertices)
        assert np.array_equal(a.parts[name].triangles, b.parts[name].triangles)
    assert np.array_equal(a.parts["tyres"].uv, b.parts["tyres"].uv)


def test_tyre_uv_is_the_angle_round_the_axle_scaled_by_the_radius():
    plan = draw_vehicle(np.random.default_rng(1), style="sedan")
    tyres = vehicle_geometry(plan).parts["tyres"]
    r = np.linalg.norm(tyres.uv, axis=1)
    assert tyres.uv.shape == (len(tyres.vertices), 2)
    assert r.max() == pytest.approx(1.0, abs=1e-6) and r.min() == pytest.approx(0.0, abs=1e-6)  # rims and hubs
    # a point on the tread straight in front of the axle has angle 0 (u = 1, v = 0)
    i = int(np.argmax(tyres.uv[:, 0]))
    assert tyres.uv[i, 0] == pytest.approx(1.0, abs=1e-6) and abs(tyres.uv[i, 1]) < 1e-6


def test_inner_shell_is_see_through_only_behind_glass():
    plan = draw_vehicle(np.random.default_rng(2), style="sedan")
    inner = vehicle_geometry(plan).parts["inner"]
    assert inner.materials == ("inner", "inner_clear")
    clear = inner.face_material == inner.materials.index("inner_clear")
    tris = inner.vertices[inner.triangles[clear]]
    # the see-through faces are all above the beltline (the greenhouse and the windshield)
    assert 0 < clear.mean() < 0.5
    assert tris[..., 2].min() > plan.profile.belt - 0.06

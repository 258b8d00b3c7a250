"""The parking lot's pure parts: vehicle profiles and panels, plates, VINs, damage areas, the lot's
uniqueness rule and its intersection check. No bpy."""
import itertools
from dataclasses import replace

import numpy as np
import pytest

from realitybench_addon.core import damage as dmg
from realitybench_addon.core.parking_lot import boxes_overlap, car_boxes, draw_lot, intersections
from realitybench_addon.core.plate import STATES, draw_plate, matches_format, plate_texture
from realitybench_addon.core.ro_board import board_texture, draw_board, draw_vin, vin_check_digit, vin_is_valid
from realitybench_addon.core.vehicle import BODY_STYLES, COLORS, PROFILES, draw_vehicle
from realitybench_addon.core.vehicle_geometry import vehicle_geometry


def vehicle(style, seed=0, color="silver"):
    return draw_vehicle(np.random.default_rng(seed), style=style, color=color)


def test_ten_styles_with_distinct_plausible_dimensions():
    assert len(BODY_STYLES) == 10 and set(BODY_STYLES) == set(PROFILES)
    dims = {}
    for style in BODY_STYLES:
        p = PROFILES[style]
        assert 3.8 < p.length < 6.3 and 1.7 < p.width < 2.2 and 1.25 < p.height < 2.8, style
        assert 0 < p.front_overhang and 0.6 < p.rear_overhang < 1.6, style
        assert p.clearance < p.crease < p.belt < p.height, style
        assert 0 < p.cowl < p.roof_front <= p.roof_rear <= p.length, style
        dims[style] = (p.length, p.height, p.clearance, p.roof_rear - p.roof_front)
    for a, b in itertools.combinations(BODY_STYLES, 2):  # no two styles share their proportions
        assert max(abs(x - y) for x, y in zip(dims[a], dims[b])) > 0.04, (a, b)
    # the traits a person reads a style by
    assert max(BODY_STYLES, key=lambda s: PROFILES[s].height) == "van"
    assert min(BODY_STYLES, key=lambda s: PROFILES[s].length) == "hatchback"
    assert PROFILES["suv"].clearance > PROFILES["crossover"].clearance > PROFILES["sedan"].clearance
    assert PROFILES["wagon"].roof_rear - PROFILES["wagon"].roof_front > \
        PROFILES["sedan"].roof_rear - PROFILES["sedan"].roof_front + 1.0  # the long roof
    assert PROFILES["pickup"].bed and PROFILES["convertible"].open_top
    assert PROFILES["coupe"].rear_door == 0 and PROFILES["convertible"].rear_door == 0


def test_size_varies_a_little_within_a_style_and_bad_input_is_refused():
    lengths = [draw_vehicle(np.random.default_rng(s), style="sedan").length for s in range(20)]
    assert 0.01 < np.ptp(lengths) < 0.35
    with pytest.raises(ValueError, match="unknown body style 'limo'"):
        draw_vehicle(np.random.default_rng(0), style="limo")
    with pytest.raises(ValueError, match="unknown paint colour 'mauve'"):
        draw_vehicle(np.random.default_rng(0), color="mauve")


@pytest.mark.parametrize("style", BODY_STYLES)
def test_panels_are_separate_named_parts_with_plausible_areas(style):
    v = vehicle(style)
    g = vehicle_geometry(v)
    panels = vehicle_geometry(v).panels
    for name in ("hood", "bumper_front", "bumper_rear", "fender_left", "fender_right", "door_front_left",
                 "door_front_right"):
        assert name in panels and name in g.parts, name
    for name, panel in panels.items():
        assert panel.area_m2 == pytest.approx(g.parts[name].area_m2)
        if panel.kind.startswith("door") or panel.kind == "sliding_door":
            assert 0.4 < panel.area_m2 < (3.0 if style == "van" else 1.6), (name, panel.area_m2)  # tall van doors
        for other in panel.neighbours:  # adjacency is mutual
            assert name in panels[other].neighbours, (name, other)
    assert "fender_left" in panels["door_front_left"].neighbours
    # mirror symmetry: the left and right panels match, except where the style is asymmetric (the van's
    # sliding door is on the passenger side only)
    for name in panels:
        if name.endswith("_left") and name.replace("_left", "_right") in panels and style != "van":
            assert panels[name].area_m2 == pytest.approx(panels[name.replace("_left", "_right")].area_m2, rel=0.01)
    kinds = {p.kind for p in panels.values()}
    assert ("door_rear" in kinds) == (style in ("sedan", "suv", "crossover", "pickup", "hatchback", "wagon"))
    assert ("sliding_door" in kinds) == (style in ("minivan", "van"))
    assert ("bed_side" in kinds) == (style == "pickup")
    assert ("roof" in panels) == (style != "convertible")
    assert ("trunk" in kinds) == (style in ("sedan", "coupe", "convertible"))
    assert ("tailgate" in kinds) == (style not in ("sedan", "coupe", "convertible"))


@pytest.mark.parametrize("style", BODY_STYLES)
def test_body_shell_faces_outward_and_every_part_is_clean(style):
    v = vehicle(style)
    g = vehicle_geometry(v)
    p = v.profile
    body = [n for n in g.parts if n not in ("inner", "rims", "tyres") and not n.startswith("glass")]
    volume = 0.0
    for name in body:
        part = g.parts[name]
        t = part.triangles
        x = part.vertices
        volume += float(np.einsum("ij,ij->i", x[t[:, 0]], np.cross(x[t[:, 1]], x[t[:, 2]])).sum()) / 6
    box = p.length * p.width * p.height
    assert 0.3 * box < volume < box, (style, volume / box)  # positive: normals point out
    for part in g.parts.values():
        assert len(part.triangles) and np.isfinite(part.vertices).all()
        assert part.triangles.max() < len(part.vertices)
        assert len(part.face_material) == len(part.triangles)
    wheels = v.wheel_centers()
    assert len(wheels) == 4 and all(abs(z - p.tyre_radius) < 1e-9 for _, _, z in wheels)
    assert sum(1 for _, y, _ in wheels if y > 0) == 2  # two on the driver's (left, +y) side


def test_plate_mounts_front_and_rear_on_the_car_ends():
    for style in BODY_STYLES:
        v = vehicle(style)
        mounts = vehicle_geometry(v).plate_mounts
        # in a pocket behind the bumper's face (core.vehicle_ends; tests/test_vehicle_ends.py)
        assert mounts["front"].center[0] > v.length / 2 - 0.08 and mounts["front"].normal == (1.0, 0.0, 0.0)
        assert mounts["rear"].center[0] < -v.length / 2 + 0.08 and mounts["rear"].normal == (-1.0, 0.0, 0.0)
        for m in mounts.values():
            assert 0.25 < m.center[2] < 1.2, (style, m)


def test_no_other_car_shares_the_subjects_colour_and_style():
    for seed in range(40):
        lot = draw_lot(np.random.default_rng(seed))
        s = lot.subject.vehicle
        assert len(lot.cars) >= 3
        assert not any(c.vehicle.color == s.color and c.vehicle.style == s.style for c in lot.cars[1:]), seed
        assert s.color in COLORS and s.style in BODY_STYLES
    styles = {draw_lot(np.random.default_rng(s)).subject.vehicle.style for s in range(60)}
    assert styles == set(BODY_STYLES)


def test_lot_is_deterministic_and_drawn_free_of_intersections():
    a, b = draw_lot(np.random.default_rng(7)), draw_lot(np.random.default_rng(7))
    assert a == b
    for seed in range(20):
        assert intersections(draw_lot(np.random.default_rng(seed))) == []


def test_a_car_moved_into_another_or_into_the_scenery_is_caught():
    lot = draw_lot(np.random.default_rng(3))
    s = lot.subject
    other = replace(lot.cars[1], x=s.x + 1.0, y=s.y + 0.5, heading_deg=s.heading_deg + 20)
    bad = replace(lot, cars=(s, other) + lot.cars[2:])
    assert ("Car0", "Car1") in intersections(bad)
    pole = lot.poles[0]
    on_pole = replace(lot, cars=(replace(s, x=pole.x, y=pole.y),) + lot.cars[1:])
    assert any(b.startswith("Pole") for a, b in intersections(on_pole) if a == "Car0")
    # the separating-axis test itself
    boxes = car_boxes(s, "Car0")
    assert boxes_overlap(boxes[1], boxes[1]) and not boxes_overlap(boxes[0], boxes[2])


def test_plates_follow_their_states_formats_and_the_texture_layout_holds_the_text():
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(200):
        plate = draw_plate(rng)
        assert any(matches_format(plate.text, f) for f in STATES[plate.state].formats), plate
        seen.add(plate.state)
    assert len(seen) >= 10
    for state in ("CALIFORNIA", "NEW YORK", "FLORIDA"):
        plate = draw_plate(rng, state=state)
        image, layout = plate_texture(plate)
        assert layout.text == plate.text and layout.row("state").text == state
        x0, y0, x1, y1 = layout.row("characters").box_px
        assert 0 <= x0 < x1 <= image.shape[1] and 0 <= y0 < y1 <= image.shape[0]
        assert 0.04 < layout.char_height_m <= 0.065  # fitted to the plate, at most 2.5 in
        ink = image[int(y0):int(y1), int(x0):int(x1)].mean(axis=2) < 128
        assert 0.1 < ink.mean() < 0.6  # the row is actually inked
    with pytest.raises(ValueError, match="unknown state"):
        draw_plate(rng, state="ATLANTIS")


def test_vin_check_digits():
    assert vin_check_digit("1M8GDM9AXKP042788") == "X"  # the standard's worked example
    assert vin_is_valid("1M8GDM9AXKP042788") and vin_is_valid("11111111111111111")
    assert not vin_is_valid("1M8GDM9A1KP042788")
    rng = np.random.default_rng(0)
    for _ in range(300):
        vin = draw_vin(rng)
        assert len(vin) == 17 and vin_is_valid(vin) and not set(vin) & set("IOQ"), vin
        wrong = vin[:8] + ("0" if vin[8] != "0" else "1") + vin[9:]
        assert not vin_is_valid(wrong)
    with pytest.raises(ValueError, match="17 characters"):
        vin_check_digit("1HGCM8263")
    with pytest.raises(ValueError, match="never contains"):
        vin_check_digit("1HGCM82633A00435O")


def test_board_texture_writes_the_ro_vin_and_date():
    board = draw_board(np.random.default_rng(4), (0.0, 0.0), 30.0, "front")
    image, layout = board_texture(board)
    assert (layout.text_of("ro"), layout.text_of("vin"), layout.text_of("date")) == (board.ro, board.vin, board.date)
    assert vin_is_valid(layout.text_of("vin"))
    again, _ = board_texture(board)
    assert np.array_equal(image, again)  # the hand is part of the plan
    c, right, up, normal = board.frame
    assert np.allclose(np.cross(right, up), normal)  # upright and readable from in front
    assert normal[2] > 0  # tilted up a little


def test_severity_thresholds():
    assert dmg.severity_of(99.9) == "minor" and dmg.severity_of(100.0) == "moderate"
    assert dmg.severity_of(500.0) == "moderate" and dmg.severity_of(500.1) == "severe"


def test_damage_area_is_the_union_of_the_marks_and_sets_the_severity():
    rng = np.random.default_rng(1)
    severities, kinds = set(), set()
    for i in range(30):
        v = draw_vehicle(rng, style=BODY_STYLES[i % 10])
        plan = dmg.draw_damage(v, rng)
        mask = dmg.damage_mask(plan)
        area_px = mask.sum() * (dmg.TEX_M_PER_PX * 100) ** 2  # cm2 in the (d, z) plane
        # the surface area is at least the (d, z) area, a little more where the side curves round a corner
        assert area_px * 0.999 <= plan.area_cm2 <= area_px * 1.2
        if plan.panel.startswith("door"):  # mid-car the side is near vertical and flat: Jacobian ~ 1
            assert plan.area_cm2 == pytest.approx(area_px, rel=0.02)
        assert plan.severity == dmg.severity_of(plan.area_cm2)
        assert plan.types == sorted({m.kind for m in plan.marks}, key=dmg.KINDS.index)
        valid = dmg.valid_region(v, plan.panel, plan.patch)
        assert not (mask & ~valid).any()  # every mark lies on the flat of its panel
        assert vehicle_geometry(v).panels[plan.panel].kind in dmg.DAMAGE_PANEL_KINDS
        severities.add(plan.severity)
        kinds |= set(plan.types)
    assert severities == set(dmg.SEVERITIES) and kinds == set(dmg.KINDS)


def test_damaged_panel_is_remeshed_without_losing_surface():
    rng = np.random.default_rng(5)
    for style in BODY_STYLES:
        v = draw_vehicle(rng, style=style)
        plan = dmg.draw_damage(v, rng)
        rest, damage = dmg.damaged_panel_parts(v, plan)
        original = vehicle_geometry(v).parts[plan.panel].area_m2
        dents = any(m.kind == "dent" for m in plan.marks)
        total = rest.area_m2 + damage.area_m2
        assert original * 0.995 < total < original * (1.05 if dents else 1.005), style
        assert damage.area_m2 * 1e4 >= plan.area_cm2 * 0.97  # the damage cells cover every damaged pixel
        assert rest.uv.shape == (len(rest.vertices), 2) and damage.uv.shape == (len(damage.vertices), 2)
        if dents:  # pushed in: towards the car's centre line
            sign = 1.0 if plan.side == "left" else -1.0
            flat = vehicle_geometry(v).parts[plan.panel].vertices[:, 1] * sign
            assert (damage.vertices[:, 1] * sign).min() < flat.max() - 0.004


def _boundary_length_across_sections(vertices: np.ndarray, triangles: np.ndarray) -> float:
    """Total length of the edges used by one triangle only (after welding coincident vertices), leaving out
    edges that lie in one loft section (constant x: the seams between loft columns, and the panel's ends)."""
    _, index = np.unique(np.round(vertices / 1e-6).astype(np.int64), axis=0, return_inverse=True)
    t = index.ravel()[triangles]
    edges = np.sort(np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
    unique, counts = np.unique(edges, axis=0, return_counts=True)
    once = unique[counts == 1]
    welded = np.zeros((index.max() + 1, 3))
    welded[index.ravel()] = vertices
    a, b = welded[once[:, 0]], welded[once[:, 1]]
    along = np.abs(a[:, 0] - b[:, 0]) > 1e-7
    return float(np.linalg.norm(a - b, axis=1)[along].sum())


def test_damaged_panel_remesh_has_no_t_junctions_along_the_car():
    """The re-meshed panel (its rest and its damage together) has the lofted panel's outline along the car and no
    seam across it: a fine cell edge ending on an uncut rocker quad's edge (a T-junction across a crease) showed as
    a row of dark teeth along the rocker in a close-up. Seams between loft columns (within one section) are left
    out: where two columns of the flat side have different rows, the side is flat and shades evenly. Checked on 3
    damages of every body style."""
    rng = np.random.default_rng(11)
    for style in BODY_STYLES:
        for _ in range(3):
            v = draw_vehicle(rng, style=style)
            plan = dmg.draw_damage(v, rng)
            rest, damage = dmg.damaged_panel_parts(v, plan)
            lofted = vehicle_geometry(v).parts[plan.panel]
            both_v = np.concatenate([rest.vertices, damage.vertices])
            both_t = np.concatenate([rest.triangles, damage.triangles + len(rest.vertices)])
            outline = _boundary_length_across_sections(lofted.vertices, lofted.triangles)
            assert _boundary_length_across_sections(both_v, both_t) == pytest.approx(outline, rel=1e-6), (
                style, plan.panel)


def test_a_single_added_quad_is_the_same_part_as_one_added_as_an_array():
    """`PartBuilder.add_quad` (the loft's fast path, its triangles made a run at a time) and `add_quads`,
    interleaved with triangle lists, give the same vertices, triangles and materials in the same order."""
    from realitybench_addon.core.vehicle_loft import PartBuilder

    rng = np.random.default_rng(5)
    fast, reference = PartBuilder(), PartBuilder()
    for k in range(40):
        part, material = f"p{k % 3}", ("paint", "trim")[k % 2]
        if k % 7 == 3:
            v, t = rng.normal(size=(5, 3)), rng.integers(0, 5, (4, 3))
            fast.add(part, v, t, material)
            reference.add(part, v, t, material)
        else:
            quad = rng.normal(size=(4, 3)) * 0.1 + [k, 0, 0]
            fast.add_quad(part, quad, material)
            reference.add_quads(part, quad[None], material)
    a, b = fast.parts(), reference.parts()
    assert sorted(a) == sorted(b) == ["p0", "p1", "p2"]
    for name in a:
        assert np.array_equal(a[name].vertices, b[name].vertices)
        assert np.array_equal(a[name].triangles, b[name].triangles)
        assert a[name].materials == b[name].materials
        assert np.array_equal(a[name].face_material, b[name].face_material)

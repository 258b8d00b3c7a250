"""The tables the package reads about environments are read from the environments themselves (issue 40).

Each documentation key declares its skill group and scoring rule (core.prompt.DocKey), each environment its
pixel-size features (core.feasibility): evaluation/skills.py, answers/fields.py and the export read them through
envs/registry.py. For the paper's eleven the derived tables equal the tables these modules held before, written
out here in full. Plain Python: no bpy.
"""
from __future__ import annotations

import pytest

from realitybench_addon.answers import fields as F
from realitybench_addon.core import feasibility as FE
from realitybench_addon.core.doc_fields import JUDGMENT, MEASUREMENT, READING, FieldRule
from realitybench_addon.core.gauge import DIGIT_HEIGHT_M, WINDOW_ALONG_M
from realitybench_addon.core.prompt import DocKey
from realitybench_addon.envs import registry
from realitybench_addon.evaluation import skills as SK

# evaluation/skills.py SKILL_GROUPS and OUTSIDE_PAPER before issue 40, as written there.
SKILL_GROUPS_BEFORE = {
    ("breaker_label", "main_amps"): READING, ("breaker_label", "entries"): READING,
    ("car_plate", "plate"): READING, ("car_plate", "state"): READING,
    ("equipment_label", "brand"): READING, ("equipment_label", "model"): READING,
    ("equipment_label", "serial"): READING, ("ro_board", "ro"): READING, ("ro_board", "vin"): READING,
    ("slope_gauge", "reading_deg"): READING,
    ("car_view", "side"): JUDGMENT, ("car_view", "body_style"): JUDGMENT,
    ("damage_view", "damage_types"): JUDGMENT, ("damage_view", "severity"): JUDGMENT,
    ("equipment_label", "on"): JUDGMENT, ("horizon_peak", "horizon_visible"): JUDGMENT,
    ("horizon_peak", "level"): JUDGMENT, ("rail_attachment", "lag_present"): JUDGMENT,
    ("rail_attachment", "flashing_present"): JUDGMENT, ("slope_gauge", "on_module"): JUDGMENT,
    ("wire_adequacy", "touching"): JUDGMENT, ("tape_gap", "tilted"): JUDGMENT,
    ("tape_gap", "reading_in"): MEASUREMENT, ("tape_gap", "gap_in"): MEASUREMENT,
}
OUTSIDE_PAPER_BEFORE = frozenset({("horizon_peak", "own_roof_blocks"), ("ro_board", "body_style")})

# answers/fields.py FIELD_RULES before issue 40.
FIELD_RULES_BEFORE = {
    ("tape_gap", "reading_in"): FieldRule("tolerance", tolerance=1 / 8),
    ("tape_gap", "gap_in"): FieldRule("tolerance", tolerance=1 / 4),
    ("tape_gap", "tilted"): FieldRule("exact", all_frames=True),
    ("slope_gauge", "reading_deg"): FieldRule("tolerance", tolerance=0.2),
    ("breaker_label", "entries"): FieldRule("rows", row_keys=(("name", "string"), ("amps", "number"))),
    ("damage_view", "damage_types"): FieldRule("set"),
}

# core/feasibility.py FEATURES before issue 40 (the numbers its per-environment functions computed).
FEATURES_BEFORE = {
    "breaker_label": [FE.Chord("text_row_px", "card_in_frame", 1.0 / 10.7, 0.5 - 1.0 / 10.7)],
    "equipment_label": [FE.Chord("text_row_px", "label_in_frame", None, 0.20),
                        FE.Chord("barcode_bar_px", "label_in_frame", None, 0.20)],
    "ro_board": [FE.Chord("text_row_px", "board_in_frame", 0.026 / 0.23, 0.35)],
    "car_plate": [FE.Chord("char_cell_px", "plate_in_frame", 64.0 / 152.0, 38.0 / 152.0)],
    "slope_gauge": [FE.Chord("digit_height_px", "display_in_frame", DIGIT_HEIGHT_M / WINDOW_ALONG_M, 0.5),
                    FE.PixelCount("module_edge_pixels")],
    "damage_view": [FE.Range("px_per_cm", "damage_in_frame", "camera_distance", 0.01),
                    FE.PixelCount("damage_pixels")],
}


def _of_the_eleven(table):
    return {k: v for k, v in table.items() if k[0] in registry.SPEC_ENVIRONMENTS}


def test_skill_groups_of_the_eleven_are_the_papers():
    assert _of_the_eleven(SK.SKILL_GROUPS) == SKILL_GROUPS_BEFORE
    assert frozenset(k for k in SK.OUTSIDE_PAPER if k[0] in registry.SPEC_ENVIRONMENTS) == OUTSIDE_PAPER_BEFORE
    assert SK.group_of("tape_gap.gap_in") == MEASUREMENT and SK.group_of("ro_board.body_style") == SK.UNGROUPED
    assert SK.group_of("car_view.body_style") == JUDGMENT  # the same key, a judgment where car_view asks it
    assert SK.group_of("nowhere.nothing") == SK.UNGROUPED


def test_field_rules_of_the_eleven_are_the_specs():
    assert _of_the_eleven(F.FIELD_RULES) == FIELD_RULES_BEFORE
    assert F.rule("tape_gap", "gap_in").tolerance == 0.25 and F.rule("tape_gap", "plate") is None
    assert F.all_frames("tape_gap", "tilted") and not F.all_frames("tape_gap", "gap_in")
    assert F.score_field("slope_gauge", "reading_deg", "number", 12.0, 12.19) == 1.0
    assert F.score_field("slope_gauge", "reading_deg", "number", 12.0, 12.21) == 0.0


def test_feasibility_features_of_the_eleven_are_the_ones_before():
    derived = {env: list(registry.features(env)) for env in registry.SPEC_ENVIRONMENTS if registry.features(env)}
    assert set(derived) == set(FEATURES_BEFORE)
    for env, before in FEATURES_BEFORE.items():
        assert len(derived[env]) == len(before), env
        for got, want in zip(derived[env], before):
            assert type(got) is type(want) and got.term == want.term, env
            if isinstance(want, FE.Chord):
                assert got.guard == want.guard and got.alpha == pytest.approx(want.alpha), env
                if want.sigma is not None:
                    assert got.sigma == pytest.approx(want.sigma), env
            elif isinstance(want, FE.Range):
                assert (got.guard, got.distance, got.length_m) == (want.guard, want.distance, want.length_m)
    from realitybench_addon.core.equipment import LABEL_SIZES

    label = registry.features("equipment_label")
    assert label[0].sigma == max(s.row_pitch_m / s.height_m for s in LABEL_SIZES.values())
    assert label[1].sigma == max(s.bar_module_m / s.width_m for s in LABEL_SIZES.values())


@pytest.mark.every_environment
@pytest.mark.parametrize("env", registry.available())
def test_every_key_declares_a_known_skill_and_rule(env):
    for key in registry.get(env).prompt_parts.keys:
        assert key.skill in (READING, JUDGMENT, MEASUREMENT, None), (env, key.name)
        assert key.rule is None or isinstance(key.rule, FieldRule), (env, key.name)
        assert ((env, key.name) in SK.SKILL_GROUPS) != ((env, key.name) in SK.OUTSIDE_PAPER)


def test_a_key_with_an_unknown_skill_or_rule_kind_is_refused():
    with pytest.raises(ValueError, match="skill 'spelling' is not one of reading, judgment, measurement"):
        DocKey("x", "string", "anything", skill="spelling")
    with pytest.raises(ValueError, match="kind 'fuzzy' is not one of"):
        FieldRule("fuzzy")

"""Issue 40's kits: the standard capture terms of a target (core/capture_terms.py), one requirement text per
parking-lot environment, the lot scene's generic extras, and ro_board's VIN errors. Plain Python: no bpy."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from realitybench_addon.core.capture_terms import SHARP_TERM, capture_term_names, capture_values
from realitybench_addon.core.errors import RealityBenchError
from realitybench_addon.core.presets import SHARP_TERM as PRESETS_SHARP_TERM
from realitybench_addon.core.presets import load_environment_preset
from realitybench_addon.core.ro_board import VinError, vin_check_digit, vin_is_valid
from realitybench_addon.envs import registry
from realitybench_addon.envs.lot_scene import NAMED_VEHICLE, LotEnvironment, LotScene


def test_capture_term_names_and_values():
    assert SHARP_TERM == PRESETS_SHARP_TERM == "sharp_at_target"
    assert capture_term_names("vent") == ("sharp_at_target", "vent_in_frame", "vent_unoccluded")
    assert capture_values("vent", 2.5, 0.9, 0.4) == {"sharp_at_target": 2.5, "vent_in_frame": 0.9,
                                                      "vent_unoccluded": 0.4}
    assert capture_values("crossing", 1.0, True, False) == {"sharp_at_target": 1.0, "crossing_in_frame": True,
                                                            "crossing_unoccluded": False}
    assert capture_values("skyline", 3.0) == {"sharp_at_target": 3.0}  # sharpness alone


@pytest.mark.every_environment
@pytest.mark.parametrize("env", registry.available())
def test_every_preset_has_the_sharp_term_and_its_targets_capture_terms_are_named_alike(env):
    names = [t.name for t in load_environment_preset(env).terms]
    assert names[0] == SHARP_TERM
    for name in names:
        if name.endswith("_in_frame") and name.removesuffix("_in_frame") + "_unoccluded" in names:
            target = name.removesuffix("_in_frame")
            assert set(capture_term_names(target)) <= set(names)


LOT = [name for name in registry.available() if isinstance(registry.get(name), LotEnvironment)]


@pytest.mark.every_environment
@pytest.mark.parametrize("env", LOT)
def test_a_lot_environment_writes_its_requirement_once(env):
    e = registry.get(env)
    plan = e.draw_scene(np.random.default_rng(3))
    subject = f"the {plan.lot.subject.vehicle.label}"
    template = e.prompt_template["requirement"]
    assert "{car}" in template
    assert e.prompt_parts.requirement == template.format(car=NAMED_VEHICLE)
    framed = e.prompt_parts_for(plan, {})
    assert framed.requirement == template.format(car=subject) and subject in framed.requirement
    assert framed.keys == e.prompt_parts.keys


@pytest.mark.every_environment
@pytest.mark.parametrize("env", LOT)
def test_the_lot_scene_keeps_what_an_environment_adds_in_extras(env):
    assert [f.name for f in dataclasses.fields(LotScene)] == ["lot", "extras"]
    plan = registry.get(env).draw_scene(np.random.default_rng(5))
    assert isinstance(plan, LotScene)
    expected = {"damage_view": {"damage"}, "ro_board": {"board"}}.get(env)
    if expected is not None:
        assert set(plan.extras) == expected


def test_a_bad_vin_is_the_projects_error():
    assert vin_is_valid("1M8GDM9AXKP042788") and not vin_is_valid("SHORT")
    with pytest.raises(VinError, match="a VIN has 17 characters, got 5"):
        vin_check_digit("SHORT")
    with pytest.raises(RealityBenchError, match="a VIN never contains 'IO'"):
        vin_check_digit("IO111111111111111")

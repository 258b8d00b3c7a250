"""Name -> environment. Every environment of the spec is listed; those not built yet say so.

Adding an environment is its module, its preset and its name in BUILT. What the rest of the package knows about an
environment it reads from the environment through here: the skill group and scoring rule of each documentation key
(evaluation/skills.py SKILL_GROUPS, answers/fields.py FIELD_RULES: `doc_keys`) and its pixel-size features
(core/feasibility.py, `features`). SPEC_ENVIRONMENTS are the paper's eleven.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator

from ..core.errors import RealityBenchError
from ..core.prompt import DocKey
from .base import Environment

SPEC_ENVIRONMENTS = ("rail_attachment", "wire_adequacy", "tape_gap", "slope_gauge", "equipment_label",
                     "horizon_peak", "breaker_label", "car_view", "damage_view", "car_plate", "ro_board")
BUILT = ("rail_attachment", "wire_adequacy", "tape_gap", "slope_gauge", "equipment_label", "horizon_peak",
         "breaker_label", "car_view", "damage_view", "car_plate", "ro_board")


class UnknownEnvironment(RealityBenchError, LookupError):
    pass


def available() -> tuple[str, ...]:
    return BUILT


def get(name: str) -> Environment:
    if name in BUILT:
        return importlib.import_module(f".{name}", __package__).ENVIRONMENT
    if name in SPEC_ENVIRONMENTS:
        raise UnknownEnvironment(f"environment {name!r} is not built yet; available: {', '.join(BUILT)}")
    raise UnknownEnvironment(f"unknown environment {name!r}; available: {', '.join(BUILT)}")


def doc_keys(names: tuple[str, ...] = BUILT) -> Iterator[tuple[str, DocKey]]:
    """(environment, documentation key) of every key the environments `names` ask, in their prompt's order."""
    for name in names:
        for key in get(name).prompt_parts.keys:
            yield name, key


def features(name: str) -> tuple:
    """The pixel-size terms of `name` that core/feasibility.py bounds (the environment's `features`)."""
    return tuple(get(name).features)

"""Name -> environment. Every environment of the spec is listed; those not built yet say so."""
from __future__ import annotations

import importlib

from ..core.errors import RealityBenchError
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

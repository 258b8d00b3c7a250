"""Deterministic random streams, and the ban on global random state."""
import re
from pathlib import Path

import numpy as np
import pytest

from realitybench_addon.core import rng

PACKAGE = Path(__file__).resolve().parent.parent / "realitybench_addon"


def test_same_frame_same_draws():
    a = rng.frame_rng(7, "tape_gap", "random", 3).random(5)
    b = rng.frame_rng(7, "tape_gap", "random", 3).random(5)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("other", [(8, "tape_gap", "random", 3), (7, "wire_adequacy", "random", 3),
                                   (7, "tape_gap", "positive", 3), (7, "tape_gap", "random", 4)])
def test_any_coordinate_changes_the_stream(other):
    assert not np.array_equal(rng.frame_rng(7, "tape_gap", "random", 3).random(4), rng.frame_rng(*other).random(4))


def test_seed_zero_is_a_real_seed():
    zero = rng.frame_rng(0, "demo", "demo", 0).random(3)
    assert np.array_equal(zero, rng.frame_rng(0, "demo", "demo", 0).random(3))
    assert not np.array_equal(zero, rng.frame_rng(1, "demo", "demo", 0).random(3))


def test_large_seeds_do_not_collide():
    assert not np.array_equal(rng.frame_rng(2**32, "demo", "demo", 0).random(3), rng.frame_rng(0, "demo", "demo", 0).random(3))


def test_stages_are_independent_of_creation_order_and_parent_draws():
    parent = rng.frame_rng(1, "demo", "random", 0)
    phone_first = rng.stage_rng(parent, "phone").random(3)
    parent.random(100)  # drawing from the parent does not move its stages
    rng.stage_rng(parent, "pose").random(10)
    again = rng.stage_rng(rng.frame_rng(1, "demo", "random", 0), "phone").random(3)
    assert np.array_equal(phone_first, again)
    assert not np.array_equal(phone_first, rng.stage_rng(parent, "pose").random(3))


def test_scene_and_frame_streams_differ():
    assert not np.array_equal(rng.scene_rng(1, "demo", 0).random(3), rng.frame_rng(1, "demo", "random", 0).random(3))


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_bad_seed_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="non-negative integer"):
        rng.frame_rng(bad, "demo", "random", 0)


def test_unknown_stratum():
    with pytest.raises(ValueError, match="unknown stratum 'best'"):
        rng.frame_rng(0, "demo", "best", 0)


def test_frame_id_round_trip():
    fid = rng.frame_id(42, "rail_attachment", "positive", 17)
    assert fid == "rail_attachment-positive-s42-000017"
    assert rng.parse_frame_id(fid) == (42, "rail_attachment", "positive", 17)
    with pytest.raises(ValueError, match="malformed frame id"):
        rng.parse_frame_id("rail_attachment-17")


# Global random state: the stdlib `random` module, numpy's legacy module-level functions,
# and seeds taken from the clock or the OS.
BANNED = [
    (re.compile(r"^\s*(import random\b|from random import)", re.M), "stdlib random"),
    (re.compile(r"np\.random\.(?!default_rng\b|Generator\b|SeedSequence\b|PCG64\b)[a-z_]+\s*\("), "numpy global random"),
    (re.compile(r"\bnp\.random\.seed\b"), "numpy global seed"),
    (re.compile(r"default_rng\(\s*\)"), "unseeded generator"),
    (re.compile(r"time\.time\(\)\s*\)|seed\s*=\s*time\."), "time-based seed"),
]


def test_package_uses_no_global_random_state():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for pattern, what in BANNED:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {what}")
    assert offenders == []


def test_the_lint_catches_offenders(tmp_path):
    sample = "import random\nx = np.random.rand(3)\ng = np.random.default_rng()\nnp.random.seed(1)\n"
    hits = {what for pattern, what in BANNED for _ in pattern.finditer(sample)}
    assert hits == {"stdlib random", "numpy global random", "unseeded generator", "numpy global seed"}

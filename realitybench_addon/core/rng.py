"""Deterministic random streams.

A frame is a pure function of (set seed, environment, stratum, index). Each frame
gets one `np.random.Generator`; each stage of the frame (scene, phone, pose,
post-processing, ...) gets its own child stream keyed by the stage's name, so
adding draws to one stage never shifts the draws of another.

No global random state is used anywhere in the package (a test enforces it).
Seed 0 is a seed like any other; there is no "no seed" value.
"""
from __future__ import annotations

import hashlib
import math
import re
from typing import Optional, Sequence, TypeVar

import numpy as np

from .errors import RealityBenchError

T = TypeVar("T")

STRATA = ("random", "positive", "demo")


def _words(text: str) -> list[int]:
    """A stable 128-bit digest of `text` as four 32-bit words (hash() is salted per process)."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    return [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]


def _check_seed(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def frame_seed_sequence(set_seed: int, environment: str, stratum: str, index: int) -> np.random.SeedSequence:
    """The root seed sequence of one frame."""
    set_seed = _check_seed("set seed", set_seed)
    index = _check_seed("frame index", index)
    if stratum not in STRATA:
        raise ValueError(f"unknown stratum {stratum!r}; expected one of {', '.join(STRATA)}")
    entropy = [set_seed & 0xFFFFFFFF, set_seed >> 32, *_words(f"{environment}/{stratum}"), index]
    return np.random.SeedSequence(entropy)


def frame_rng(set_seed: int, environment: str, stratum: str, index: int) -> np.random.Generator:
    """The one generator of a frame."""
    return np.random.default_rng(frame_seed_sequence(set_seed, environment, stratum, index))


def scene_rng(set_seed: int, environment: str, scene_index: int) -> np.random.Generator:
    """The generator of a built scene (shared by the frames rendered from it)."""
    set_seed = _check_seed("set seed", set_seed)
    scene_index = _check_seed("scene index", scene_index)
    entropy = [set_seed & 0xFFFFFFFF, set_seed >> 32, *_words(f"{environment}/scene"), scene_index]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def stage_rng(parent: np.random.Generator, stage: str) -> np.random.Generator:
    """A child stream of `parent` for a named stage.

    Derived from the parent's seed sequence and the stage name, so it does not consume
    draws from the parent and does not depend on the order stages are created in.
    """
    bit_generator = parent.bit_generator
    # numpy >= 2 names it `seed_seq`; Blender's numpy 1.2x only has the private `_seed_seq`.
    seq = getattr(bit_generator, "seed_seq", None) or getattr(bit_generator, "_seed_seq", None)
    if not isinstance(seq, np.random.SeedSequence):
        raise TypeError("stage_rng needs a generator made from a SeedSequence (use frame_rng/scene_rng)")
    child = np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, *_words(stage)))
    return np.random.default_rng(child)


def frame_id(set_seed: int, environment: str, stratum: str, index: int) -> str:
    """The frame's id: everything needed to rebuild it."""
    return f"{environment}-{stratum}-s{_check_seed('set seed', set_seed)}-{_check_seed('frame index', index):06d}"


class FrameIdError(RealityBenchError, ValueError):
    """A frame id that is not ENV-STRATUM-sSEED-INDEX; the message is one line."""


_FRAME_ID = re.compile(r"([a-z][a-z0-9_]{0,63})-([a-z]+)-s([0-9]{1,20})-([0-9]{1,20})", re.ASCII)


def parse_frame_id(fid: str) -> tuple[int, str, str, int]:
    """Inverse of `frame_id`: (set seed, environment, stratum, index). ASCII digits only (int() would take
    Arabic-Indic digits, underscores and spaces), a known stratum, at most 20 digits each."""
    match = _FRAME_ID.fullmatch(fid) if isinstance(fid, str) else None
    if match is None or match.group(2) not in STRATA:
        shown = repr(fid[:120] if isinstance(fid, str) else fid)
        why = "" if match is None else f" (stratum {match.group(2)!r} is not one of {', '.join(STRATA)})"
        raise FrameIdError(f"malformed frame id {shown}{why}; expected ENV-STRATUM-sSEED-INDEX")
    environment, stratum, seed, index = match.groups()
    return int(seed), environment, stratum, int(index)


def log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    """A draw whose logarithm is uniform between log(lo) and log(hi): distances, zooms, shutter times."""
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))  # math, not numpy: the last bit differs


def choose(rng: np.random.Generator, options: Sequence[T]) -> T:
    """One of `options`, each as likely."""
    options = list(options)
    return options[int(rng.integers(len(options)))]


def pick(rng: np.random.Generator, options: Sequence[T], shares: Optional[Sequence[float]] = None) -> T:
    """One of `options`, with probability proportional to its share (`option.share` unless `shares`)."""
    weights = np.array([o.share for o in options] if shares is None else shares, float)
    return options[int(rng.choice(len(options), p=weights / weights.sum()))]

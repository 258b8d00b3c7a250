"""The tuning / held-out split: made once per set, by frame, and stored with the ratings.

Per environment, TUNING_SHARE of the frames (rounded half up) tune the scorer and its gray zones;
the rest are held out and looked at once, after the scorer is frozen (the paper's 60/40 split).
Frames added to the set later (a resumed export) are split among themselves the same way, so no
frame ever changes part.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np

TUNING_SHARE = 0.6
PARTS = ("tuning", "held_out")
SPLIT_SEED = 6040


def stable_words(text: str) -> list[int]:
    """Four 32-bit words of text's SHA-256: seed material that does not depend on Python's hash salt."""
    digest = hashlib.sha256(text.encode()).digest()
    return [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]


def make_split(frames: dict[str, str], seed: int = SPLIT_SEED) -> dict[str, str]:
    """frame_id -> 'tuning' | 'held_out' for `frames` (frame_id -> environment)."""
    by_env: dict[str, list[str]] = {}
    for frame_id, env in frames.items():
        by_env.setdefault(env, []).append(frame_id)
    parts = {}
    for env in sorted(by_env):
        ids = sorted(by_env[env])
        rng = np.random.default_rng([seed, *stable_words(env)])
        order = [ids[i] for i in rng.permutation(len(ids))]
        n_tuning = math.floor(TUNING_SHARE * len(ids) + 0.5)
        parts.update({f: ("tuning" if k < n_tuning else "held_out") for k, f in enumerate(order)})
    return parts


def rater_order(frame_ids, rater: str, seed: int = SPLIT_SEED) -> list[str]:
    """The frames in the order this rater sees them: a shuffle of its own, the same every visit."""
    ids = sorted(frame_ids)
    rng = np.random.default_rng([seed, 1, *stable_words(rater)])
    return [ids[i] for i in rng.permutation(len(ids))]


def rating_sample(frames: dict[str, str], per_environment: int, seed: int = SPLIT_SEED) -> list[str]:
    """Up to `per_environment` frames of each environment, drawn once for all raters (so every frame
    gathers several ratings), the same for the same frames."""
    chosen = []
    for env in sorted(set(frames.values())):
        ids = sorted(f for f, e in frames.items() if e == env)
        rng = np.random.default_rng([seed, 2, *stable_words(env)])
        chosen += [ids[i] for i in sorted(rng.permutation(len(ids))[:per_environment])]
    return chosen

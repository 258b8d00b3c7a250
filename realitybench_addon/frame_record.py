"""One frame's labels, typed: what a row of metadata.jsonl holds (docs/export.md names every field).

`pipeline.run_frame` makes it; `to_dict()` is its JSON form, field order included, which the export
writes (with the slot and the configuration's hash added) and `frame` prints.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

from .core.terms import Verdict


@dataclass(frozen=True)
class FrameRecord:
    frame_id: str
    file_name: Optional[str]  # ENVIRONMENT/FRAME_ID.jpg in a set; None for a frame not rendered
    environment: str
    stratum: str
    set_seed: int
    index: int
    scene_index: int
    target: dict
    scene: dict  # the environment's summary of the scene plan
    phone: dict
    capture: dict
    camera: dict  # lens, resolution, pose and camera-to-world matrix
    postprocess: dict
    render: dict
    terms: list  # each term's value, threshold, gray range and outcome
    measurements: dict
    verdict: Verdict
    scored: bool
    failing_terms: list
    gray_terms: list
    unscored_reason: Optional[str]
    ground_truth: dict
    prompt: dict
    versions: dict
    discard_reason: Optional[str] = None  # render sanity: why no phone would have taken this frame

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.ACCEPT

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["verdict"] = self.verdict.value
        return out

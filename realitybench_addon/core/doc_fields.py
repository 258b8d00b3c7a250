"""What a documentation key says about itself besides its JSON type: the skill it asks for and how it is scored.

An environment declares both on its own keys (`core.prompt.DocKey(..., skill=READING, rule=FieldRule(...))`);
`evaluation/skills.py` (SKILL_GROUPS) and `answers/fields.py` (FIELD_RULES) collect them from the registry.

    reading      transcribe text or digits in frame
    judgment     a categorical state of the scene
    measurement  read a length off a tape measure

A key without a skill is scored as documentation but counted in no skill group (the paper's Figure 3 and
Table 10 hold 24 fields). A key without a rule is scored by its JSON type's default (answers/fields.py).
"""
from __future__ import annotations

from dataclasses import dataclass

READING, JUDGMENT, MEASUREMENT = "reading", "judgment", "measurement"
SKILLS = (READING, JUDGMENT, MEASUREMENT)
RULE_KINDS = ("tolerance", "rows", "set", "exact")


@dataclass(frozen=True)
class FieldRule:
    kind: str  # "tolerance" (numbers), "rows" (a list of row objects matched one to one), "set", "exact"
    tolerance: float = 0.0  # "tolerance": |answer - truth| <= tolerance scores 1
    row_keys: tuple[tuple[str, str], ...] = ()  # "rows": (key, json type) of each row object
    all_frames: bool = False  # scored on every frame of the environment, not only scorer-accepted ones

    def __post_init__(self):
        if self.kind not in RULE_KINDS:
            raise ValueError(f"field rule kind {self.kind!r} is not one of {', '.join(RULE_KINDS)}")

"""The question a model gets with each frame, assembled from an environment's parts.

Order (spec, "The prompt"): who took the photo and what it proves; the requirement; judge
adequacy first, then answer the documentation question; the question; the reply grammar
(one JSON object, first key `adequate`, then the environment's keys with their grammar
in words; answer every key even when the photo is judged inadequate).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocKey:
    """One documentation field: its JSON key, its JSON type and its grammar in words."""

    name: str
    json_type: str  # boolean | number | string | array
    grammar: str


@dataclass(frozen=True)
class PromptParts:
    worker: str  # who took the photo, e.g. "a solar installer"
    work: str  # what the photo is proof of
    requirement: str
    question: str
    keys: tuple[DocKey, ...]


def build_prompt(parts: PromptParts) -> str:
    key_lines = "\n".join(f'- "{k.name}": {k.grammar}' for k in parts.keys)
    return (
        f"You are reviewing a photo taken by {parts.worker} as proof of {parts.work}.\n\n"
        f"Requirement for the photo: {parts.requirement}\n\n"
        "First decide whether this photo meets the requirement. Then answer the question about what the "
        "photo shows.\n\n"
        f"Question: {parts.question}\n\n"
        "Reply with exactly one JSON object and nothing else: no prose, no code fence. Its first key is "
        '"adequate", a JSON boolean (true if the photo meets the requirement, false if not). Then give these '
        "keys:\n"
        f"{key_lines}\n"
        "Values in any other form are scored as wrong. Answer every key even if you judge the photo "
        "inadequate."
    )

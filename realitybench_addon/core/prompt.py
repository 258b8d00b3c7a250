"""The question a model gets with each frame, assembled from an environment's parts.

Order (spec, "The prompt"): who took the photo and what it proves; the requirement; judge
adequacy first, then answer the documentation question; the question; the reply grammar
(one JSON object, first key `adequate`, then the environment's keys with their grammar
in words; answer every key even when the photo is judged inadequate).

Two more variants serve the paper's re-ask study (does asking for the verdict first change what
the model reports seeing?). Each differs from the benchmark's prompt only where it must:

    verdict-first  the benchmark's prompt (the default; its text is unchanged)
    verdict-last   the two instructions swapped, `adequate` the last key of the reply
    no-verdict     the same framing and requirement, the documentation question alone: no `adequate`
    verdict-only   the same framing and requirement, the verdict alone: `adequate` the only key, no
                   question and no documentation keys (the paper's Table 4 "alone" column)

`rewrite_prompt` turns a prompt built here (an exported set stores each frame's prompt as text)
into another variant, so a set is re-asked without its environments being rebuilt.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .doc_fields import SKILLS, FieldRule

VERDICT_FIRST = "verdict-first"
VERDICT_LAST = "verdict-last"
NO_VERDICT = "no-verdict"
VERDICT_ONLY = "verdict-only"
VARIANTS = (VERDICT_FIRST, VERDICT_LAST, NO_VERDICT, VERDICT_ONLY)
DEFAULT_VARIANT = VERDICT_FIRST


@dataclass(frozen=True)
class DocKey:
    """One documentation field: its JSON key, its JSON type and its grammar in words; the skill it asks for
    (core.doc_fields: reading, judgment, measurement; None: in no skill group) and its scoring rule when it is
    not its JSON type's default (core.doc_fields.FieldRule)."""

    name: str
    json_type: str  # boolean | number | string | array
    grammar: str
    skill: Optional[str] = None
    rule: Optional[FieldRule] = None

    def __post_init__(self):
        if self.skill is not None and self.skill not in SKILLS:
            raise ValueError(f"{self.name}: skill {self.skill!r} is not one of {', '.join(SKILLS)}")


@dataclass(frozen=True)
class PromptParts:
    worker: str  # who took the photo, e.g. "a solar installer"
    work: str  # what the photo is proof of
    requirement: str
    question: str
    keys: tuple[DocKey, ...]


# The sentences that differ between variants, each variant's own; everything else is shared.
_JUDGE = "decide whether this photo meets the requirement"
_ANSWER = "answer the question about what the photo shows"
ORDER = {VERDICT_FIRST: f"First {_JUDGE}. Then {_ANSWER}.",
         VERDICT_LAST: f"First {_ANSWER}. Then {_JUDGE}.",
         NO_VERDICT: "Answer the question about what the photo shows.",
         VERDICT_ONLY: f"{_JUDGE[0].upper()}{_JUDGE[1:]}."}
REPLY_OPEN = "Reply with exactly one JSON object and nothing else: no prose, no code fence. "
_ADEQUATE = '"adequate", a JSON boolean (true if the photo meets the requirement, false if not)'
KEYS_INTRO = {VERDICT_FIRST: f"Its first key is {_ADEQUATE}. Then give these keys:",
              VERDICT_LAST: "Give these keys first:",
              NO_VERDICT: "Give these keys:",
              VERDICT_ONLY: f"Its only key is {_ADEQUATE}."}
KEYS_OUTRO = {VERDICT_FIRST: "", VERDICT_LAST: f"Its last key is {_ADEQUATE}.\n", NO_VERDICT: "", VERDICT_ONLY: ""}
_WRONG_FORM = "Values in any other form are scored as wrong."
CLOSE = {VERDICT_FIRST: f"{_WRONG_FORM} Answer every key even if you judge the photo inadequate.",
         VERDICT_LAST: f"{_WRONG_FORM} Answer every key even if you judge the photo inadequate.",
         NO_VERDICT: f"{_WRONG_FORM} Answer every key.",
         VERDICT_ONLY: f"{_WRONG_FORM}"}


class PromptShapeError(ValueError):
    """A prompt that was not built by build_prompt, so no variant of it can be made."""


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"unknown prompt variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    return variant


def _reply_grammar(variant: str, key_lines: str) -> str:
    """The reply paragraph; `key_lines` ends with a newline (the verdict alone lists no keys)."""
    if variant == VERDICT_ONLY:
        key_lines = ""
    return REPLY_OPEN + KEYS_INTRO[variant] + "\n" + key_lines + KEYS_OUTRO[variant] + CLOSE[variant]


def build_prompt(parts: PromptParts, variant: str = DEFAULT_VARIANT) -> str:
    check_variant(variant)
    key_lines = "".join(f'- "{k.name}": {k.grammar}\n' for k in parts.keys)
    return (
        f"You are reviewing a photo taken by {parts.worker} as proof of {parts.work}.\n\n"
        f"Requirement for the photo: {parts.requirement}\n\n"
        f"{ORDER[variant]}\n\n"
        + ("" if variant == VERDICT_ONLY else f"Question: {parts.question}\n\n")
        + _reply_grammar(variant, key_lines)
    )


def rewrite_prompt(prompt: str, variant: str) -> str:
    """The benchmark's prompt `prompt` (as build_prompt wrote it, text after it kept) asked as `variant`.
    A PromptShapeError when the prompt lacks the benchmark's sentences (a prompt written by hand)."""
    check_variant(variant)
    if variant == VERDICT_FIRST:
        return prompt
    head = REPLY_OPEN + KEYS_INTRO[VERDICT_FIRST] + "\n"
    close = CLOSE[VERDICT_FIRST]
    for sentence in (ORDER[VERDICT_FIRST], head, close):
        if prompt.count(sentence) != 1:
            raise PromptShapeError(f"it does not hold the benchmark's sentence {sentence.strip()[:60]!r}... once")
    start, end = prompt.index(head), prompt.index(close)
    key_lines = prompt[start + len(head):end]
    lines = key_lines.removesuffix("\n").split("\n") if key_lines else []  # \n only: a \r or \x85 is no line end
    if end < start + len(head) or not all(line.startswith('- "') for line in lines):
        raise PromptShapeError("its reply grammar is not the benchmark's list of keys")
    before = prompt[:start]
    if variant == VERDICT_ONLY:  # the verdict alone: the question goes with its keys
        order = before.index(ORDER[VERDICT_FIRST]) + len(ORDER[VERDICT_FIRST])
        question = before.find("\n\nQuestion: ", order)
        if question < 0:
            raise PromptShapeError("it does not hold the benchmark's 'Question: ' paragraph before its reply grammar")
        before = before[:question] + "\n\n"
    rebuilt = before + _reply_grammar(variant, key_lines) + prompt[end + len(close):]
    return rebuilt.replace(ORDER[VERDICT_FIRST], ORDER[variant], 1)

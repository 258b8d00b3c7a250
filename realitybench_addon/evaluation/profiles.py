"""Named generation-settings profiles (`eval run --profile NAME`); explicit flags override their values.

  paper          the default: the provider's own settings. No temperature and no image detail are sent,
                 and the output cap (thinking included) is 16,384 tokens: reasoning models spent up to
                 ~4,900 thinking tokens on one item, and a reply cut by the cap scores as out of grammar.
  deterministic  temperature 0, a 1,024-token cap and OpenAI image detail `high`: the settings every run
                 had before profiles existed (resuming such a run needs this profile).

Whatever the profile, OpenAI's reasoning models (o1, o3, o4, gpt-5) are sent `max_completion_tokens`
unless --max-tokens-field says otherwise: they refuse `max_tokens`. The run records the profile, the
flags that overrode it and the resolved settings (run.json); the settings alone make the request hash.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .errors import EvalError
from .providers import PAPER_MAX_TOKENS, Settings, is_openai_reasoning_model

DEFAULT = "paper"
SETTINGS_FLAGS = ("max_tokens", "temperature", "image_detail", "max_tokens_field")  # what a flag may override


@dataclass(frozen=True)
class Profile:
    name: str
    about: str
    max_tokens: int
    temperature: Optional[float]  # None: not sent
    image_detail: dict = field(default_factory=dict)  # provider -> detail; a provider not named: not sent


PROFILES = {p.name: p for p in (
    Profile("paper", "the provider's defaults: no temperature, no image detail, a 16,384-token cap",
            PAPER_MAX_TOKENS, None),
    Profile("deterministic", "temperature 0, a 1,024-token cap, OpenAI image detail high (the settings before "
            "profiles)", 1024, 0.0, {"openai": "high"}),
)}


def get(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise EvalError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)}") from None


def resolve(name: str, provider: str, model: str, overrides: Optional[dict] = None, *, blind: bool = False,
            extra: Optional[dict] = None) -> Settings:
    """The settings of profile `name` for this provider and model, with `overrides` (the flags given
    explicitly: a key of SETTINGS_FLAGS -> its value, None meaning "not sent") on top."""
    profile = get(name)
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(SETTINGS_FLAGS))
    if unknown:
        raise EvalError(f"not a setting a profile holds: {', '.join(unknown)}")
    values = {"max_tokens": profile.max_tokens, "temperature": profile.temperature,
              "image_detail": profile.image_detail.get(provider),
              "max_tokens_field": "max_completion_tokens" if provider == "openai" and is_openai_reasoning_model(model)
              else "max_tokens"}
    values.update(overrides)
    return Settings(blind=blind, extra=dict(extra or {}), **values)

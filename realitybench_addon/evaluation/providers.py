"""The three request/response shapes, and token usage normalised across them.

  openai     POST {base}/chat/completions          OpenAI, vLLM, llama.cpp server, Ollama, LM Studio, SGLang
  anthropic  POST {base}/v1/messages               Anthropic's Messages API
  gemini     POST {base}/models/{model}:generateContent   Gemini (the key goes in a header, never the URL)

One user message: the image (base64 of the exported JPEG, or a real photograph's JPEG, PNG, GIF or
WebP, byte for byte, with its media type) and then the prompt; a blind request sends the prompt alone. Every generation setting is explicit and recorded in
the run (and in the request hash): max tokens, temperature (or `None`: not sent), OpenAI's
image detail (Gemini: media resolution), and `extra`, a JSON object deep-merged into the body
(thinking budgets, reasoning effort, ...). The defaults are the `paper` profile's (profiles.py).

`check` refuses, before anything is sent, the combinations a provider is known to reject, each
with the fix: Anthropic's extended thinking (budget_tokens >= 1024 and below max_tokens, no
temperature but 1) and OpenAI's reasoning models (no temperature, max_completion_tokens).
It checks the body as sent, `extra` merged in, so a setting passed through `extra` counts too.

A reply cut by the output cap says so in its finish reason (`LENGTH_STOPS`): OpenAI `length`,
Anthropic `max_tokens`, Gemini `MAX_TOKENS`.

Usage: `input_tokens`, `output_tokens` (billed output, thinking included) and
`thinking_tokens` (the part of the output spent thinking, or None where the provider does
not report it). Thinking is never counted twice:
  - OpenAI: `completion_tokens` already include `completion_tokens_details.reasoning_tokens`;
  - Gemini: `candidatesTokenCount` excludes `thoughtsTokenCount`, so output = their sum;
  - Anthropic: `output_tokens` include thinking, which it does not report apart (None).
"""
from __future__ import annotations

import base64
import copy
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from .errors import EvalError

REPORTED = "reported"  # how an item's thinking tokens are known (replies.jsonl `thinking_from`)
NO_THINKING = "no thinking in the reply"  # Anthropic without thinking blocks; output is all visible
TOKENIZER = "output - reply counted with"  # + the tokenizer's name
UNKNOWN = "unknown"
PROTOCOL_VERSION = 1  # bump when the request a setting produces changes (it is part of the request hash)
PAPER_MAX_TOKENS = 16384  # reasoning models spent up to ~4,900 thinking tokens on one item: room to spare
THINKING_MIN_BUDGET = 1024  # Anthropic's smallest budget_tokens
OPENAI_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
JPEG = "image/jpeg"  # every rendered frame; a real photograph may be another type (real_photos.py)


@dataclass(frozen=True)
class Settings:
    max_tokens: int = PAPER_MAX_TOKENS
    temperature: Optional[float] = None  # None: not sent (the provider's default)
    image_detail: Optional[str] = None  # openai: low | high | auto; gemini: low | medium | high
    max_tokens_field: str = "max_tokens"  # openai only: max_tokens | max_completion_tokens
    blind: bool = False  # send the prompt without the image
    extra: dict = field(default_factory=dict)  # deep-merged into the request body

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Usage:
    input_tokens: Optional[int]
    output_tokens: Optional[int]  # billed output, thinking included
    thinking_tokens: Optional[int]  # part of output_tokens; None where not reported

    def to_dict(self) -> dict:
        return asdict(self)


class ResponseShapeError(ValueError):
    """A 200 response whose body is not the provider's shape."""


def deep_merge(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


# Fields of a request body that the run sets and records itself (run.json, the request hash): `extra` may not set
# them, or the run would record one model, prompt, image or cap and send another. Path -> the flag that sets it.
RESERVED_BODY_FIELDS = {
    "model": "--model", "messages": "the set's prompt and image", "contents": "the set's prompt and image",
    "temperature": "--temperature", "max_tokens": "--max-tokens", "max_completion_tokens": "--max-tokens",
    "stream": "nothing (the run reads whole replies)", "n": "nothing (the run reads one reply per request)",
    "generation_config": "generationConfig (the camel-case name) in --extra",
    "generationConfig.maxOutputTokens": "--max-tokens", "generationConfig.max_output_tokens": "--max-tokens",
    "generationConfig.temperature": "--temperature", "generationConfig.mediaResolution": "--image-detail",
    "generationConfig.media_resolution": "--image-detail", "generationConfig.candidateCount": "nothing",
}


def _paths(value: dict, prefix: str = ""):
    for k, v in value.items():
        path = f"{prefix}{k}"
        yield path, v
        if isinstance(v, dict):
            yield from _paths(v, path + ".")


def _at(body, path: str):
    for part in path.split("."):
        if not isinstance(body, dict) or part not in body:
            return False, None
        body = body[part]
    return True, body


def check_extra(provider: "Provider", model: str, settings: "Settings") -> None:
    """Refuse an `extra` that would set a field the run sets and records itself (RESERVED_BODY_FIELDS), or replace
    any value the provider's body already holds: one line naming the key."""
    probe = provider.body(model, "p", "aW1hZ2U=", settings)
    for path, value in _paths(settings.extra):
        if path in RESERVED_BODY_FIELDS:
            raise EvalError(f"--extra may not set {path!r}: the run sets and records it itself; use "
                            f"{RESERVED_BODY_FIELDS[path]}")
        present, held = _at(probe, path)
        if present and not (isinstance(held, dict) and isinstance(value, dict)):
            raise EvalError(f"--extra may not set {path!r}: the request already sets it from the run's settings "
                            f"(recorded in run.json); change the setting's own flag instead")


def _int(value) -> Optional[int]:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class Provider:
    name = ""
    default_base_url = ""
    default_key_env = ""
    image_details: tuple[str, ...] = ()
    length_stop = ""  # the finish reason of a reply cut by the output cap

    def url(self, base_url: str, model: str) -> str:
        raise NotImplementedError

    def auth_headers(self, api_key: Optional[str]) -> dict:
        raise NotImplementedError

    def body(self, model: str, prompt: str, image_b64: Optional[str], settings: Settings,
             media_type: str = JPEG) -> dict:
        raise NotImplementedError

    def parse(self, body: Any) -> tuple[str, Optional[str], dict]:
        """(reply text, finish reason, raw usage) of a 200 body; ResponseShapeError otherwise."""
        raise NotImplementedError

    def usage(self, raw: dict) -> Usage:
        raise NotImplementedError

    def thinking(self, body: Any, usage: Usage, text: str = "", model: str = "") -> tuple[Optional[int], str]:
        """(thinking tokens, how they are known) where the usage leaves them out: what the reply itself shows
        (None: unknown). Reported thinking is kept as is."""
        if usage.thinking_tokens is not None:
            return usage.thinking_tokens, REPORTED
        return None, UNKNOWN

    def check(self, settings: Settings, model: str = "") -> None:
        """Refuse settings the provider would reject, naming the fix (an EvalError), before any request."""
        if settings.image_detail is not None and settings.image_detail not in self.image_details:
            allowed = ", ".join(self.image_details) if self.image_details else "none (leave out --image-detail)"
            raise EvalError(f"--image-detail {settings.image_detail!r} is not a setting of the {self.name} provider; "
                            f"allowed: {allowed}")
        if settings.max_tokens < 1:
            raise EvalError(f"--max-tokens must be at least 1, got {settings.max_tokens}")
        self.check_body(model, self.request("", model, "", None, settings)[1])

    def check_body(self, model: str, body: dict) -> None:
        """Provider rules on the body as sent (`extra` merged in)."""

    def request(self, base_url: str, model: str, prompt: str, image_b64: Optional[str], settings: Settings,
                media_type: str = JPEG):
        body = self.body(model, prompt, None if settings.blind else image_b64, settings, media_type)
        return self.url(base_url, model), deep_merge(body, settings.extra)


class OpenAIChat(Provider):
    name = "openai"
    default_base_url = "https://api.openai.com/v1"
    default_key_env = "OPENAI_API_KEY"
    image_details = ("low", "high", "auto")
    length_stop = "length"

    def check(self, settings: Settings, model: str = "") -> None:
        if settings.max_tokens_field not in ("max_tokens", "max_completion_tokens"):
            raise EvalError("--max-tokens-field must be max_tokens or max_completion_tokens")
        super().check(settings, model)

    def check_body(self, model, body):
        if not is_openai_reasoning_model(model):
            return
        if "temperature" in body:  # o1, o3, o4-mini, gpt-5: "Unsupported parameter: 'temperature'"
            raise EvalError(f"OpenAI reasoning model {model!r} rejects temperature: pass --temperature default "
                            f"(or --profile paper) and take temperature out of --extra")
        if "max_tokens" in body:
            raise EvalError(f"OpenAI reasoning model {model!r} rejects max_tokens: pass --max-tokens-field "
                            f"max_completion_tokens (the default for this model) and take max_tokens out of --extra")

    def url(self, base_url, model):
        return base_url.rstrip("/") + "/chat/completions"

    def auth_headers(self, api_key):
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def body(self, model, prompt, image_b64, settings, media_type=JPEG):
        if image_b64 is None:
            content: Any = prompt
        else:
            image = {"url": f"data:{media_type};base64,{image_b64}"}
            if settings.image_detail is not None:
                image["detail"] = settings.image_detail
            content = [{"type": "image_url", "image_url": image}, {"type": "text", "text": prompt}]
        body = {"model": model, "messages": [{"role": "user", "content": content}],
                settings.max_tokens_field: settings.max_tokens}
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        return body

    def parse(self, body):
        try:
            choice = body["choices"][0]
            content = choice["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ResponseShapeError("no choices[0].message in the response") from None
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        return (content if isinstance(content, str) else ""), choice.get("finish_reason"), body.get("usage") or {}

    def usage(self, raw):
        details = raw.get("completion_tokens_details") or {}
        return Usage(_int(raw.get("prompt_tokens")), _int(raw.get("completion_tokens")),
                     _int(details.get("reasoning_tokens")) if isinstance(details, dict) else None)

    def thinking(self, body, usage, text: str = "", model: str = ""):
        """No reasoning_tokens (an OpenAI-compatible server): output - the reply counted with the model's own
        tokenizer, where one is installed offline (tokenizer.py); unknown otherwise."""
        if usage.thinking_tokens is not None or usage.output_tokens is None:
            return super().thinking(body, usage)
        from .tokenizer import count

        counted = count(self.name, model, text)
        if counted is None:
            return None, UNKNOWN
        visible, encoding = counted
        return max(0, usage.output_tokens - visible), f"{TOKENIZER} {encoding}"


class AnthropicMessages(Provider):
    name = "anthropic"
    default_base_url = "https://api.anthropic.com"
    default_key_env = "ANTHROPIC_API_KEY"
    api_version = "2023-06-01"
    length_stop = "max_tokens"

    def check_body(self, model, body):
        temperature = body.get("temperature")
        if isinstance(temperature, (int, float)) and not 0 <= temperature <= 1:
            raise EvalError(f"Anthropic takes a temperature within 0-1, got {temperature}: pass --temperature 1 "
                            f"or less (or --temperature default)")
        thinking = body.get("thinking")
        if not isinstance(thinking, dict) or not (thinking.get("type") == "enabled" or "budget_tokens" in thinking):
            return
        budget, cap = thinking.get("budget_tokens"), body.get("max_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool):
            raise EvalError(f"Anthropic extended thinking needs an integer budget_tokens (at least "
                            f"{THINKING_MIN_BUDGET}) in --extra's thinking object, got {budget!r}")
        if budget < THINKING_MIN_BUDGET:
            raise EvalError(f"Anthropic extended thinking needs budget_tokens >= {THINKING_MIN_BUDGET}, got {budget}: "
                            f"raise it in --extra")
        if isinstance(cap, int) and budget >= cap:
            raise EvalError(f"Anthropic extended thinking needs budget_tokens ({budget}) below --max-tokens ({cap}): "
                            f"pass --max-tokens {budget + THINKING_MIN_BUDGET} or more, or a smaller budget_tokens")
        if temperature is not None and temperature != 1:
            raise EvalError(f"Anthropic extended thinking works only at the default temperature, got {temperature}: "
                            f"pass --temperature default (or --profile paper)")

    def url(self, base_url, model):
        return base_url.rstrip("/") + "/v1/messages"

    def auth_headers(self, api_key):
        headers = {"anthropic-version": self.api_version}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def body(self, model, prompt, image_b64, settings, media_type=JPEG):
        content = [{"type": "text", "text": prompt}]
        if image_b64 is not None:
            content.insert(0, {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                                           "data": image_b64}})
        body = {"model": model, "max_tokens": settings.max_tokens, "messages": [{"role": "user", "content": content}]}
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        return body

    def parse(self, body):
        try:
            blocks = body["content"]
            text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        except (KeyError, TypeError, AttributeError):
            raise ResponseShapeError("no content blocks in the response") from None
        return text, body.get("stop_reason"), body.get("usage") or {}

    def usage(self, raw):
        inputs = [_int(raw.get(k)) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
        total_in = None if inputs[0] is None else sum(v or 0 for v in inputs)
        return Usage(total_in, _int(raw.get("output_tokens")), None)

    def thinking(self, body, usage, text="", model=""):
        """Anthropic reports one output count. A reply without thinking blocks spent none (its output is the
        visible text); with them, the thinking part is unknown (no public tokenizer counts it)."""
        if usage.thinking_tokens is not None or usage.output_tokens is None:
            return super().thinking(body, usage)
        blocks = body.get("content") if isinstance(body, dict) else None
        if isinstance(blocks, list) and not any(isinstance(b, dict) and b.get("type") in ("thinking",
                                                                                         "redacted_thinking")
                                                for b in blocks):
            return 0, NO_THINKING
        return None, UNKNOWN


class GeminiGenerate(Provider):
    name = "gemini"
    default_base_url = "https://generativelanguage.googleapis.com/v1beta"
    default_key_env = "GEMINI_API_KEY"
    image_details = ("low", "medium", "high")
    length_stop = "MAX_TOKENS"

    def url(self, base_url, model):
        return base_url.rstrip("/") + f"/models/{model}:generateContent"

    def auth_headers(self, api_key):
        return {"x-goog-api-key": api_key} if api_key else {}

    def body(self, model, prompt, image_b64, settings, media_type=JPEG):
        parts: list = [{"text": prompt}]
        if image_b64 is not None:
            parts.insert(0, {"inline_data": {"mime_type": media_type, "data": image_b64}})
        config: dict = {"maxOutputTokens": settings.max_tokens}
        if settings.temperature is not None:
            config["temperature"] = settings.temperature
        if settings.image_detail is not None:
            config["mediaResolution"] = f"MEDIA_RESOLUTION_{settings.image_detail.upper()}"
        return {"contents": [{"role": "user", "parts": parts}], "generationConfig": config}

    def parse(self, body):
        if not isinstance(body, dict):
            raise ResponseShapeError("the response is not a JSON object")
        candidates = body.get("candidates") or []
        text, finish = "", None
        if candidates:  # no candidates: the prompt was blocked (promptFeedback); an empty reply
            try:
                parts = (candidates[0].get("content") or {}).get("parts") or []
                text = "".join(p.get("text", "") for p in parts if isinstance(p, dict) and not p.get("thought"))
                finish = candidates[0].get("finishReason")
            except (AttributeError, TypeError):
                raise ResponseShapeError("candidates[0] is not a candidate") from None
        elif "promptFeedback" not in body:
            raise ResponseShapeError("no candidates in the response")
        else:
            finish = (body.get("promptFeedback") or {}).get("blockReason")
        return text, finish, body.get("usageMetadata") or {}

    def usage(self, raw):
        thoughts = _int(raw.get("thoughtsTokenCount"))
        candidates = _int(raw.get("candidatesTokenCount"))
        output = None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0)
        if thoughts is None and candidates is not None:  # no thoughtsTokenCount: output = candidates, none thinking
            thoughts = 0
        return Usage(_int(raw.get("promptTokenCount")), output, thoughts)


PROVIDERS: dict[str, Provider] = {p.name: p for p in (OpenAIChat(), AnthropicMessages(), GeminiGenerate())}
LENGTH_STOPS = {p.name: p.length_stop for p in PROVIDERS.values()}


OPENAI_API_HOSTS = ("api.openai.com",)  # OpenAI's own API: max_completion_tokens for every model


def default_max_tokens_field(base_url: Optional[str], model: str) -> tuple[str, str]:
    """(the body field for the output cap, why) of the openai provider: OpenAI's own API takes
    max_completion_tokens for every model (and its newer models refuse max_tokens); an OpenAI-compatible server
    at another URL (vLLM, llama.cpp, Ollama, LM Studio, SGLang) gets max_tokens, which all of them read, unless
    the model is one of OpenAI's reasoning models by name."""
    import urllib.parse

    host = (urllib.parse.urlsplit(base_url or OpenAIChat.default_base_url).hostname or "").lower()
    if host in OPENAI_API_HOSTS:
        return "max_completion_tokens", f"OpenAI's own API ({host})"
    if is_openai_reasoning_model(model):
        return "max_completion_tokens", f"an OpenAI reasoning model by name ({model})"
    return "max_tokens", f"an OpenAI-compatible server ({host or base_url}), not OpenAI's own API"


def is_openai_reasoning_model(model: str) -> bool:
    """o1, o3, o4-mini, the gpt-5 family: no temperature, and max_completion_tokens instead of max_tokens."""
    return (model or "").lower().startswith(OPENAI_REASONING_PREFIXES)


def cut_by_output_cap(provider: Optional[str], finish_reason) -> bool:
    """Whether a reply stopped at the output cap; any provider's word for it when the provider is unknown."""
    stops = {LENGTH_STOPS[provider]} if provider in LENGTH_STOPS else set(LENGTH_STOPS.values())
    return isinstance(finish_reason, str) and finish_reason in stops


def get(name: str) -> Provider:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise EvalError(f"unknown provider {name!r}; expected one of {', '.join(PROVIDERS)}") from None


def encode_image(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")

"""Who guides: a model over HTTP (`ModelPolicy`: `eval run`'s providers, key handling, transport and reply
records) or a baseline that needs none (pure):

    oracle        Suggest a Pose's move as the grammar's actions on the first turn, then "done"
    random-walk   on each turn but the last, the oracle's walking moves with their sizes kept and their kind and
                  direction drawn at random (one np.random.Generator per episode and turn, from the seed and the
                  episode id); "done" on the last turn
    done-at-once  "done" on the first photo (always premature: every episode starts on a rejected photo)
"""
from __future__ import annotations

import json
import zlib
from typing import Optional

import numpy as np

from ..evaluation.errors import EvalError
from ..evaluation.runs import now_iso
from .actions import WALKS

BASELINES = ("oracle", "random-walk", "done-at-once")
DONE = {"do": "done"}
SAME_UNIT = {"m": ("step_closer", "step_back", "raise", "lower"), "deg": ("move_left", "move_right")}


def oracle_reply(episode: dict, turn: int) -> list:
    actions = episode["oracle"]["actions"]
    return list(actions) if turn == 1 and actions else [DONE]


def random_walk_reply(episode: dict, turn: int, turns: int, seed: int = 0) -> list:
    if turn >= turns:
        return [DONE]
    rng = np.random.default_rng([seed, zlib.crc32(episode["id"].encode()), turn])
    sizes = [(k, a[k]) for a in episode["oracle"]["actions"] if a["do"] in WALKS for k in ("m", "deg") if k in a]
    out = []
    for key, size in sizes or [("m", 0.5)]:
        kinds = SAME_UNIT[key]
        out.append({"do": kinds[int(rng.integers(len(kinds)))], key: size})
    return out


class BaselinePolicy:
    provider = model = base_url = settings = transport = None
    auth = "none"
    secrets: tuple = ()

    def __init__(self, name: str, seed: int = 0):
        if name not in BASELINES:
            raise EvalError(f"unknown --baseline {name!r}; expected one of {', '.join(BASELINES)}")
        self.baseline, self.seed, self.label = name, seed, name.replace("-", " ")

    def identity(self) -> dict:
        return {"baseline": self.baseline, "seed": self.seed}

    def actions(self, episode: dict, turn: int, turns: int) -> list:
        if self.baseline == "oracle":
            return oracle_reply(episode, turn)
        if self.baseline == "random-walk":
            return random_walk_reply(episode, turn, turns, self.seed)
        return [DONE]

    def ask(self, episode, turn, turns, prompt, photo, h, history) -> dict:
        text = json.dumps({"actions": self.actions(episode, turn, turns)})
        return {"request_hash": h, "frame_id": episode["id"], "turn": turn, "provider": None, "model": None,
                "status": "ok", "error": None, "reply_text": text, "usage": None, "started_at": now_iso(),
                "elapsed_s": 0.0}

    def check_fatal(self, reply: dict) -> None:
        pass


class ModelPolicy:
    """A model asked as `eval run` asks it: the same provider bodies, key resolution (never written), transport
    (retries, rate limits, deadlines) and reply records, so cost accounting reads them alike."""

    baseline = None

    def __init__(self, provider, model: str, base_url: Optional[str], settings, transport, *,
                 api_key_env: Optional[str] = None, no_api_key: bool = False, label: Optional[str] = None,
                 profile: Optional[dict] = None):
        from ..evaluation.ask import FAIL_FAST_ITEMS, check_transport, clean_base_url, resolve_key
        from ..evaluation.providers import check_extra
        from ..evaluation.transport import Transport

        base_url = clean_base_url(base_url)
        check_extra(provider, model, settings)
        provider.check(settings, model)
        check_transport(transport)
        key, self.auth = resolve_key(provider, api_key_env, no_api_key)
        self._provider, self.model, self._settings = provider, model, settings
        self.provider, self.settings = provider.name, settings.to_dict()
        self.base_url = (base_url or provider.default_base_url).rstrip("/")
        self.label, self.profile = label or model, profile
        self.transport = transport.to_dict()
        self.secrets = (key,) if key else ()
        self._headers = provider.auth_headers(key)
        self._client = Transport(transport)
        self._opening: list = []  # the HTTP status of each of the first replies (None: ok), as `eval run` keeps
        self._fail_fast = FAIL_FAST_ITEMS

    def identity(self) -> dict:
        return {"provider": self.provider, "model": self.model, "base_url": self.base_url, "settings": self.settings,
                "profile": self.profile}

    def ask(self, episode, turn, turns, prompt, photo, h, history) -> dict:
        from ..evaluation import images
        from ..evaluation.ask import estimated_tokens
        from ..evaluation.providers import JPEG

        data, media_type, sent = images.prepare(photo, JPEG, self.provider, len(prompt.encode("utf-8")))
        url, body = self._provider.request(self.base_url, self.model, prompt, images.encode(data), self._settings,
                                           media_type)
        started = now_iso()
        result = self._client.post_json(url, self._headers, body, h,
                                        tokens=estimated_tokens(prompt, sent, self._settings))
        record = self._record(episode, turn, h, url, result, sent, started)
        if len(self._opening) < self._fail_fast:
            self._opening.append(None if record["status"] == "ok" else result.status)
        return record

    def _record(self, episode, turn, h, url, result, sent, started) -> dict:
        from ..evaluation.providers import ResponseShapeError
        from ..evaluation.runs import scrub
        from ..evaluation.transport import BODY_KEEP

        raw = scrub(result.body, self.secrets)
        if isinstance(raw, str):
            raw = raw[:BODY_KEEP]
        record = {"request_hash": h, "frame_id": episode["id"], "turn": turn, "provider": self.provider,
                  "model": self.model, "status": "ok" if result.ok else "error", "error": result.error,
                  "http_status": result.status, "reply_text": None, "finish_reason": None, "usage": None,
                  "raw_response": raw, "attempts": result.attempts, "image_sent": sent, "url": url,
                  "fatal": bool(result.fatal or (result.unreachable and not result.ok)),
                  "billing": {"attempts": len(result.attempts), "timeouts": result.timeouts,
                              "may_be_billed_unpriced": sum(1 for x in result.attempts if x.get("may_be_billed")),
                              "usage": []},
                  "started_at": started, "elapsed_s": round(result.elapsed_s, 4)}
        if result.ok:
            try:
                text, finish, usage_raw = self._provider.parse(result.body)
            except ResponseShapeError as exc:
                record.update(status="error", error=f"unexpected response shape: {exc}")
            else:
                usage = self._provider.usage(usage_raw)
                thinking, source = self._provider.thinking(result.body, usage, text, self.model)
                usage = type(usage)(usage.input_tokens, usage.output_tokens, thinking)
                record.update(reply_text=text, finish_reason=finish, usage=usage.to_dict(), thinking_from=source)
                record["billing"]["usage"].append(usage.to_dict())
        return record

    def check_fatal(self, reply: dict) -> None:
        """A 401, 403 or 404, a server never reached, or the first FAIL_FAST_ITEMS replies all refused with one 4xx
        status stop the run as `eval run` stops (one line; what finished is kept for a rerun)."""
        from ..evaluation.ask import stopped_line

        opening = self._opening
        refused = len(opening) == self._fail_fast and len(set(opening)) == 1 and opening[0] is not None and \
            400 <= opening[0] <= 499  # a provider refusing everything (a setting it rejects, no credit left)
        if reply.get("fatal") or refused:
            raise EvalError(stopped_line({"frame_id": reply["frame_id"], "error": reply["error"], "url": reply["url"],
                                          "body": reply.get("raw_response"), "status": reply.get("http_status"),
                                          "unreachable": reply.get("http_status") is None and not refused,
                                          "refused": refused and not reply.get("fatal")}, self.secrets))

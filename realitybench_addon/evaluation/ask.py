"""Ask a model about every item of a set, resumably (`eval run`).

Items whose request already has an `ok` reply in the run are not asked again; everything else
(new, failed, interrupted) is. Replies are appended and fsynced as they finish, from a pool of
`concurrency` threads, each request paced by the rpm limiter. The settings are checked against
the provider's rules before anything is sent or written. A 401, 403 or 404 stops the run (wrong
key, URL or model), and so do a server that never answered at all (retries exhausted on
connection errors or timeouts before any reply) and a provider that refuses everything (the first
FAIL_FAST_ITEMS requests all failed with one 4xx status: a setting it rejects, no credit left):
the error line carries the provider's own message, and what finished is kept for a rerun.

`variant` asks each frame's prompt as another prompt variant (core/prompt.py: the verdict last, or no
verdict); it is recorded in run.json and named in every request hash. The folder may be an exported
set or a folder of real photographs (sets.py).
"""
from __future__ import annotations

import math
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Optional, TextIO

from .errors import EvalError
from ..core import safefs
from ..core.secrets import env_var_name_problem, register, split_url_credentials
from ..answers.items import AskItem, sha256_bytes
from ..core.prompt import DEFAULT_VARIANT, VARIANTS, PromptShapeError, rewrite_prompt
from .failures import detail, one_line
from . import images
from .providers import Provider, ResponseShapeError, Settings, check_extra, cut_by_output_cap
from .runs import RunStore, now_iso, package_version, request_hash, scrub
from .sets import load_items
from .transport import BODY_KEEP, Transport, TransportConfig

FAIL_FAST_ITEMS = 3  # the first this many requests all refused with one 4xx status stop the run
PROGRESS_DETAIL_CHARS = 160


def resolve_key(provider: Provider, api_key_env: Optional[str], no_api_key: bool) -> tuple[Optional[str], str]:
    """(key, how it was found) without ever putting the key in a message. Surrounding whitespace is dropped (a
    key file saved with Windows line endings gives `"$(cat k)"` a trailing \\r); any other character outside
    printable ASCII is refused: a header cannot carry it, and an HTTP library's error would echo it escaped."""
    if no_api_key:
        if api_key_env:
            raise EvalError("--no-api-key and --api-key-env exclude each other")
        return None, "none"
    if api_key_env is not None:
        problem = env_var_name_problem(api_key_env)
        if problem:
            register(api_key_env)  # a key pasted as the name: redacted wherever it might still show
            raise EvalError(problem)
    var = api_key_env or provider.default_key_env
    raw = os.environ.get(var)
    if not raw:
        raise EvalError(f"the API key variable {var} is not set: export {var}=... "
                        f"(--api-key-env VAR reads another variable; --no-api-key for a local server that needs none)")
    key = raw.strip()
    if not key:
        raise EvalError(f"the API key variable {var} holds only whitespace")
    if any(not " " <= c <= "~" for c in key):
        raise EvalError(f"the API key in {var} contains a control character or a character outside printable "
                        f"ASCII; set the variable to the key alone")
    register(key, raw)  # every later file, message and log line of this process redacts it
    return key, f"env:{var}"


def clean_base_url(base_url: Optional[str]) -> Optional[str]:
    """`base_url` when it holds no credentials; a URL with `user:pass@`, `?api_key=`, `?key=` (or another
    credential parameter) is refused without printing them (they are registered as secrets first)."""
    if base_url is None:
        return None
    clean, found = split_url_credentials(base_url)
    if found:
        register(*found)
        shown = f": {clean}" if clean else ""
        raise EvalError(f"--base-url holds credentials (user:password@ or a key parameter such as ?api_key=); they "
                        f"were not stored or printed: pass the URL without them{shown} and the key through an "
                        f"environment variable (--api-key-env VAR)")
    if not clean.startswith(("http://", "https://")):
        raise EvalError(f"--base-url must start with http:// or https://, got {clean[:200]!r}")
    return base_url


def read_image(set_dir, image_path) -> bytes:
    """A frame's image read through the file layer (core/safefs.py): no link below the set followed, a FIFO or
    device refused (never waited on), at most safefs.CAPS['image'] bytes, read from the descriptor checked."""
    try:
        rel = Path(os.path.abspath(image_path)).relative_to(os.path.abspath(set_dir))  # no link resolved
    except ValueError:
        return safefs.read_path(image_path, "image")
    return safefs.read_bytes(set_dir, rel.as_posix(), "image")


def as_variant(ask_items: list[AskItem], variant: str) -> list[AskItem]:
    """Every item with its prompt asked as `variant`; an EvalError naming the first prompt that cannot be."""
    if variant not in VARIANTS:
        raise EvalError(f"unknown --variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    if variant == DEFAULT_VARIANT:
        return ask_items
    out = []
    for a in ask_items:
        try:
            out.append(AskItem(a.item, rewrite_prompt(a.prompt, variant), a.image_path, a.media_type))
        except PromptShapeError as exc:
            raise EvalError(f"frame {a.item.frame_id}: its prompt is not the benchmark's ({exc}), so --variant "
                            f"{variant} cannot rewrite it; ask this set with the default variant") from None
    return out


def _positive(name: str, value, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    if not ok:
        raise EvalError(f"{name} must be a positive finite number, got {value}")


def check_transport(transport: TransportConfig) -> None:
    """Every transport limit a user gives, checked before anything is sent (nan, inf, 0, negative: one line)."""
    if transport.concurrency < 1:
        raise EvalError(f"--concurrency must be at least 1, got {transport.concurrency}")
    _positive("--rpm", transport.rpm, allow_none=True)
    _positive("--tpm", transport.tpm, allow_none=True)
    _positive("--timeout", transport.timeout_s)
    _positive("--deadline", transport.deadline_s)
    _positive("--max-wait", transport.max_wait_s)
    _positive("--max-run-wait", transport.max_run_wait_s)
    if transport.max_retries < 0:
        raise EvalError(f"--retries must be at least 0, got {transport.max_retries}")
    if transport.max_reply_bytes < 1:
        raise EvalError(f"--max-reply-bytes must be at least 1, got {transport.max_reply_bytes}")


def estimated_tokens(prompt: str, image: Optional[dict], settings: Settings) -> int:
    """A request's size for --tpm pacing: the prompt's characters / 4, the image's rough size and the output
    cap (providers count the cap against a tokens-per-minute quota before the reply)."""
    return (len(prompt) + 3) // 4 + images.estimate_tokens(image) + settings.max_tokens


def _run_config(set_dir, ask_items: list, drawn, *, provider: Provider, model: str, base_url: str,
                settings: Settings, transport: TransportConfig, auth: str, label: Optional[str],
                profile: Optional[dict], variant: str, include_gray: bool,
                max_tokens_field_from: Optional[str]) -> dict:
    """The run's run.json: what is asked, how, and of which set."""
    default_label = model + (" (blind)" if settings.blind else "") + \
        ("" if variant == DEFAULT_VARIANT else f" ({variant.replace('-', ' ')})")
    return {"kind": "model", "label": label or default_label,
            "provider": provider.name, "model": model, "base_url": base_url, "settings": settings.to_dict(),
            "variant": variant, "profile": profile, "baseline": None, "transport": transport.to_dict(), "auth": auth,
            "max_tokens_field": ({"field": settings.max_tokens_field, "chosen_by": max_tokens_field_from
                                  or "the settings given"} if provider.name == "openai" else None),
            "set": str(Path(set_dir).resolve()), "items": len(ask_items), "include_gray": include_gray,
            "subset": drawn,
            "created": now_iso(), "package_version": package_version()}


def _request_hashes(provider: Provider, model: str, settings: Settings, variant: str, ask_items: list) -> list[str]:
    settings_dict = settings.to_dict()
    return [request_hash(provider.name, model, settings_dict, a.prompt,
                         None if settings.blind else a.item.image_sha256,
                         blind_item=a.item.frame_id if settings.blind else None, variant=variant)
            for a in ask_items]


def _still_to_ask(ask_items: list, hashes: list[str], done: set) -> dict:
    """Request hash -> item, for every request without an ok reply yet (each request once)."""
    todo: dict[str, AskItem] = {}
    for a, h in zip(ask_items, hashes):
        if h not in done and h not in todo:
            todo[h] = a
    return todo


def _new_record(h: str, a: AskItem, provider: Provider, model: str, result, raw, sent, started: str) -> dict:
    """A reply's record before the reply is read: the request, its attempts and what they may have cost."""
    return {"request_hash": h, "frame_id": a.item.frame_id, "provider": provider.name, "model": model,
            "status": "ok" if result.ok else "error", "error": result.error, "http_status": result.status,
            "reply_text": None, "finish_reason": None, "usage_raw": None, "usage": None,
            "thinking_from": None, "raw_response": raw, "truncated": result.truncated,
            "attempts": result.attempts, "image_sent": sent,
            "billing": {"attempts": len(result.attempts), "timeouts": result.timeouts,
                        "may_be_billed_unpriced": sum(1 for x in result.attempts if x.get("may_be_billed")),
                        "usage": []},
            "started_at": started, "elapsed_s": round(result.elapsed_s, 4)}


def _read_reply(record: dict, provider: Provider, model: str, body) -> None:
    """Fill `record` from an ok reply's body: the text, finish reason and usage; or an error for a body of
    another shape (whose usage, where it has one, is still billed)."""
    try:
        text, finish, usage_raw = provider.parse(body)
    except ResponseShapeError as exc:
        record.update(status="error", error=f"unexpected response shape: {exc}")
        usage_raw = body.get("usage") if isinstance(body, dict) else None
        if isinstance(usage_raw, dict):  # a reply the run cannot read may still be billed
            record["billing"]["usage"].append(provider.usage(usage_raw).to_dict())
        return
    usage = provider.usage(usage_raw)
    thinking, source = provider.thinking(body, usage, text, model)
    usage = type(usage)(usage.input_tokens, usage.output_tokens, thinking)
    record.update(reply_text=text, finish_reason=finish, usage_raw=usage_raw, usage=usage.to_dict(),
                  thinking_from=source)
    record["billing"]["usage"].append(usage.to_dict())


def _progress_line(n: int, total: int, a: AskItem, record: dict, result, sent, provider: Provider,
                   settings: Settings, raw, secrets) -> str:
    """One finished item's progress line: ok (or cut by the output cap) or why it failed, its attempts and waits."""
    if record["status"] == "ok":
        said = "ok" + (f", cut by the output cap (finish reason {record['finish_reason']}; --max-tokens "
                       f"{settings.max_tokens})" if cut_by_output_cap(provider.name, record["finish_reason"])
                       else "")
    else:
        why = detail(raw, secrets, PROGRESS_DETAIL_CHARS)
        said = f"failed: {record['error']}" + (f": {why}" if why else "")
    waits = sum(x.get("wait_s", 0) for x in result.attempts)
    return (f"[{n}/{total}] {a.item.frame_id}: {said} ({len(result.attempts)} attempt"
            f"{'s' if len(result.attempts) != 1 else ''}"
            + (f", {result.timeouts} timed out" if result.timeouts else "")
            + (f", waited {waits:.1f} s" if waits else "")
            + (", image re-encoded" if sent and sent.get("re_encoded") else "")
            + f", {result.elapsed_s:.2f} s)")


class _Asker:
    """Asks items from a pool of threads: sends each, stores its reply, counts, says how it went, and sets
    `stop` (with what stopped it in `fatal`) on a fatal status, an unreachable server or a refusing provider."""

    def __init__(self, set_dir, store: RunStore, client: Transport, headers: dict, *, provider: Provider, model: str,
                 base_url: str, settings: Settings, progress: Optional[TextIO], total: int):
        self.set_dir, self.store, self.client, self.headers = set_dir, store, client, headers
        self.provider, self.model, self.base_url, self.settings = provider, model, base_url, settings
        self.progress, self.total = progress, total
        self.stop = threading.Event()
        self.fatal: list[dict] = []
        self.counter = {"finished": 0, "ok": 0, "failed": 0, "attempts": 0, "timeouts": 0, "re_encoded": 0}
        self.opening: list[Optional[int]] = []  # the HTTP status of each of the first requests to finish (None: ok)
        self.lock = threading.Lock()

    def say(self, line: str) -> None:
        if self.progress is not None:
            self.progress.write(scrub(line, self.store.secrets) + "\n")
            self.progress.flush()

    def _image(self, a: AskItem) -> tuple[Optional[str], str, Optional[dict]]:
        """(the image as base64, its media type, what was sent) for the item; no image when blind."""
        if self.settings.blind:
            return None, a.media_type, None
        data = read_image(self.set_dir, a.image_path)
        if sha256_bytes(data) != a.item.image_sha256:
            raise EvalError(f"frame {a.item.frame_id}: {a.image_path} changed while the run was asking")
        try:
            data, media_type, sent = images.prepare(data, a.media_type, self.provider.name,
                                                    len(a.prompt.encode("utf-8")))
        except EvalError as exc:
            raise EvalError(f"frame {a.item.frame_id}: {a.image_path}: {exc}") from None
        return images.encode(data), media_type, sent

    def ask_one(self, h: str, a: AskItem) -> None:
        if self.stop.is_set():
            return
        image_b64, media_type, sent = self._image(a)
        url, body = self.provider.request(self.base_url, self.model, a.prompt, image_b64, self.settings, media_type)
        started = now_iso()
        result = self.client.post_json(url, self.headers, body, h,
                                       tokens=estimated_tokens(a.prompt, sent, self.settings))
        raw = result.body
        if isinstance(raw, str):  # scrubbed before it is cut to length: a cut never leaves part of a key
            raw = scrub(raw, self.store.secrets)[:BODY_KEEP]
        record = _new_record(h, a, self.provider, self.model, result, raw, sent, started)
        if result.ok:
            _read_reply(record, self.provider, self.model, result.body)
        self.store.append_reply(record)
        ok = record["status"] == "ok"
        n, refused = self._count(result, ok, sent)
        self._stop_if_fatal(a, result, url, raw, refused)
        self.say(_progress_line(n, self.total, a, record, result, sent, self.provider, self.settings, raw,
                                self.store.secrets))

    def _count(self, result, ok: bool, sent) -> tuple[int, bool]:
        """Count the finished item; returns (how many have finished, whether the opening requests all failed
        with one 4xx status)."""
        counter, opening = self.counter, self.opening
        with self.lock:
            counter["finished"] += 1
            counter["attempts"] += len(result.attempts)
            counter["timeouts"] += result.timeouts
            counter["re_encoded"] += bool(sent and sent.get("re_encoded"))
            counter["ok" if ok else "failed"] += 1
            n = counter["finished"]
            refused = False
            if len(opening) < FAIL_FAST_ITEMS:
                opening.append(None if ok else result.status)
                refused = len(opening) == FAIL_FAST_ITEMS and len(set(opening)) == 1 and \
                    opening[0] is not None and 400 <= opening[0] <= 499
        return n, refused

    def _stop_if_fatal(self, a: AskItem, result, url: str, raw, refused: bool) -> None:
        unreachable = result.unreachable and not self.counter["ok"]  # no connection, and never an answer yet
        if result.fatal or unreachable or refused:
            self.stop.set()
            self.fatal.append({"frame_id": a.item.frame_id, "error": result.error, "url": url, "body": raw,
                               "status": result.status, "unreachable": unreachable and not result.fatal,
                               "refused": refused and not result.fatal})

    def ask_all(self, todo: dict, concurrency: int) -> None:
        """Ask every item of `todo` from `concurrency` threads; an error (or Ctrl-C) stops the rest."""
        pool = ThreadPoolExecutor(max_workers=concurrency)
        try:
            futures = [pool.submit(self.ask_one, h, a) for h, a in todo.items()]
            for f in as_completed(futures):
                f.result()
        except BaseException:
            self.stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)


def ask_set(set_dir, out_dir, *, provider: Provider, model: str, base_url: Optional[str], settings: Settings,
            transport: TransportConfig, api_key_env: Optional[str] = None, no_api_key: bool = False,
            label: Optional[str] = None, profile: Optional[dict] = None, variant: str = DEFAULT_VARIANT,
            progress: Optional[TextIO] = sys.stderr, sleep=time.sleep, include_gray: bool = False,
            clock=time.monotonic, max_tokens_field_from: Optional[str] = None, subset: Optional[str] = None,
            subset_seed: int = 0) -> dict:
    """Ask every item not yet answered; return counts of this invocation (scoring is separate). `profile`
    ({"name": ..., "overrides": {flag: value}}) is recorded in run.json; the settings are what is sent;
    `variant` is the prompt variant asked (core/prompt.py); gray frames are asked only with `include_gray`.
    `max_tokens_field_from` says why the openai output cap's field is the one it is (recorded); `sleep` and
    `clock` drive every wait (tests pass fakes)."""
    base_url = clean_base_url(base_url)
    check_extra(provider, model, settings)
    provider.check(settings, model)
    check_transport(transport)
    key, auth = resolve_key(provider, api_key_env, no_api_key)
    ask_items = as_variant(load_items(set_dir, include_gray=include_gray), variant)
    drawn = None
    if subset is not None:  # the paper's ablation items, say (subsets.py); recorded in run.json
        from .subsets import draw
        ask_items, drawn = draw(ask_items, subset, subset_seed)
    base_url = (base_url or provider.default_base_url).rstrip("/")
    config = _run_config(set_dir, ask_items, drawn, provider=provider, model=model, base_url=base_url,
                         settings=settings, transport=transport, auth=auth, label=label, profile=profile,
                         variant=variant, include_gray=include_gray, max_tokens_field_from=max_tokens_field_from)
    store = RunStore(out_dir, secrets=[key] if key else [])
    store.open(config)
    hashes = _request_hashes(provider, model, settings, variant, ask_items)
    store.write_items([a.item for a in ask_items], hashes)
    done = {h for h, r in store.read_replies().items() if r.get("status") == "ok"}
    todo = _still_to_ask(ask_items, hashes, done)
    asker = _Asker(set_dir, store, Transport(transport, sleep=sleep, clock=clock), provider.auth_headers(key),
                   provider=provider, model=model, base_url=base_url, settings=settings, progress=progress,
                   total=len(todo))
    asker.say(f"{len(ask_items)} items, {sum(h in done for h in hashes)} already answered, asking {len(todo)} "
              f"({provider.name} {model} at {base_url})")
    t0 = time.monotonic()
    asker.ask_all(todo, transport.concurrency)
    if asker.fatal:
        raise EvalError(stopped_line(asker.fatal[0], store.secrets))
    counter = asker.counter
    return {"run": str(Path(out_dir)), "items": len(ask_items), "already_answered": sum(h in done for h in hashes),
            "asked": counter["finished"], "ok": counter["ok"], "failed": counter["failed"],
            "requests": counter["attempts"], "retries": counter["attempts"] - counter["finished"],
            "timeouts": counter["timeouts"], "images_re_encoded": counter["re_encoded"],
            "wall_s": round(time.monotonic() - t0, 3)}


def stopped_line(f: dict, secrets) -> str:
    """The one-line error of a stopped run: what stopped it, and the provider's own message."""
    said = detail(f["body"], secrets)
    if f["refused"]:
        head = (f"stopped: the first {FAIL_FAST_ITEMS} requests all failed with HTTP {f['status']} from {f['url']}; "
                + (f"the provider says: {said}; fix what it names" if said else "the error body says nothing more"))
    else:
        said = f" ({said})" if said else ""
        hint = {"HTTP 401": "the server refused the credentials",
                "HTTP 403": "the credentials may not use this model",
                "HTTP 404": "check --base-url and --model"}.get(f["error"] or "", "check --base-url")
        if f["unreachable"]:
            hint = "the server cannot be reached and nothing has been answered yet; check --base-url"
        head = f"stopped: {f['error']} from {f['url']}: {hint}{said}"
    body = str(f.get("body") or "")
    if "max_completion_tokens" in body and "max_tokens" in body.replace("max_completion_tokens", ""):
        head += "; pass --max-tokens-field max_completion_tokens"
    elif "max_completion_tokens" in body:
        head += "; pass --max-tokens-field max_tokens"
    return one_line(f"{head}; finished replies are kept, rerun the same command to resume", secrets, limit=10_000)

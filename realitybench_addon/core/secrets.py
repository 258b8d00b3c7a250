"""The one secrets layer: known secrets never leave the process in any file, message or log line.

A known secret is the run's API key and any credential found in a base URL (`user:pass@host`,
`?api_key=...`, `?key=...`). Each is known in every form in which it may come back (as is and
stripped, escaped as repr, JSON and URL encoding escape it). Redaction replaces every run of
MIN_RUN (8) or more characters that is a piece of any form of any secret, wherever it appears: a
server echoing the key minus its last characters, or only its middle, leaves nothing of it behind
(a secret shorter than MIN_RUN is replaced where it appears whole).

    register(secret)       known to every redaction in this process (the CLI's `error:` line too)
    redact(value, extra)   a string, or a JSON-like value recursively (keys and values)
    env_var_name_problem   why an `--api-key-env` value is not a variable name (never echoing it)
    split_url_credentials  a base URL without its credentials, and the credentials it held

Object keys in lower snake case without digits (a file's field names) are kept as they are; every other
key and every value is redacted. The marker is "[REDACTED]" unless a secret could join it into a new run (a secret holding '[', ']' or
"REDACTED"): then a character no secret holds.
"""
from __future__ import annotations

import functools
import json
import re
import threading
import urllib.parse
from typing import Iterable, Optional

MIN_RUN = 8
REDACTED = "[REDACTED]"

_known: set[str] = set()
_known_lock = threading.Lock()


def register(*secrets: Optional[str]) -> None:
    """Make each secret known to every later redaction in this process."""
    with _known_lock:
        _known.update(s for s in secrets if s)


def known() -> tuple[str, ...]:
    with _known_lock:
        return tuple(sorted(_known))


def forget_all() -> None:
    """Tests only: forget the registered secrets."""
    with _known_lock:
        _known.clear()


def secret_forms(secrets: Iterable[str]) -> list[str]:
    """Every form in which a secret may come back, longest first: as is and stripped, each escaped as repr
    (both quote styles), JSON (ASCII or not, '/' plain or as '\\/') and URL encoding (percent and plus)."""
    forms: set[str] = set()
    for secret in secrets:
        for s in {secret or "", (secret or "").strip()}:
            if not s:
                continue
            json_form = json.dumps(s)[1:-1]
            forms.update({s, repr(s)[1:-1], s.encode("unicode_escape").decode("ascii"), json_form,
                          json_form.replace("/", "\\/"), json.dumps(s, ensure_ascii=False)[1:-1],
                          urllib.parse.quote(s, safe=""), urllib.parse.quote(s), urllib.parse.quote_plus(s)})
    return sorted((f for f in forms if f), key=lambda f: (-len(f), f))


class _Redactor:
    def __init__(self, secrets: tuple[str, ...]):
        forms = secret_forms(secrets)
        self.grams = sorted({f[i:i + MIN_RUN] for f in forms if len(f) >= MIN_RUN
                             for i in range(len(f) - MIN_RUN + 1)})
        self.short = sorted((f for f in forms if len(f) < MIN_RUN), key=len, reverse=True)
        chars = set("".join(forms))
        if not ({"[", "]"} & chars) and not any("REDACTED" in f for f in forms):
            self.marker = REDACTED
        else:  # a marker no secret shares a character with can never complete a run of one
            self.marker = next(c for c in ("\u2588", *map(chr, range(0xE000, 0xF900))) if c not in chars)

    def text(self, text: str) -> str:
        if not text:
            return text
        spans = []
        for g in self.grams:
            start = text.find(g)
            while start != -1:
                spans.append((start, start + MIN_RUN))
                start = text.find(g, start + 1)
        if spans:
            spans.sort()
            out, pos, cur_s, cur_e = [], 0, spans[0][0], spans[0][1]
            for s, e in spans[1:]:
                if s <= cur_e:
                    cur_e = max(cur_e, e)
                else:
                    out.append(text[pos:cur_s] + self.marker)
                    pos, cur_s, cur_e = cur_e, s, e
            out.append(text[pos:cur_s] + self.marker)
            text = "".join(out) + text[cur_e:]
        for s in self.short:
            text = text.replace(s, self.marker)
        return text

    def value(self, value, depth: int = 0):
        if isinstance(value, str):
            return self.text(value)
        if depth > 10_000:
            return value
        if isinstance(value, dict):
            return {(k if isinstance(k, str) and SCHEMA_KEY.fullmatch(k) else self.value(k, depth + 1)):
                    self.value(v, depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v, depth + 1) for v in value]
        return value


# A JSON object's key in lower snake case ("settings", "max_tokens") is a field name of a file's layout, not
# data: it is kept even when a secret happens to hold it (a test key "sk-settings-..." would otherwise rename
# run.json's fields). Random keys hold capitals, digits or dashes; every value is still redacted.
SCHEMA_KEY = re.compile(r"[a-z][a-z_]{0,63}")


@functools.lru_cache(maxsize=64)
def _redactor(secrets: tuple[str, ...]) -> _Redactor:
    return _Redactor(secrets)


def redact(value, extra: Iterable[str] = ()):
    """`value` (a string, or a JSON-like value, recursively) with every run of MIN_RUN or more characters of
    any registered or `extra` secret replaced by the marker."""
    secrets = tuple(sorted(set(known()) | {s for s in extra if s}))
    if not secrets:
        return value
    return _redactor(secrets).value(value)


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
KEY_PREFIXES = ("sk-", "sk_", "AIza", "hf_", "gsk_", "xai-", "pk-", "ghp_", "github_pat_", "Bearer")


def env_var_name_problem(name: str) -> Optional[str]:
    """Why `name` (given to --api-key-env) cannot be an environment variable's name, without repeating it:
    a key pasted there by mistake must never be printed. None when it is a plausible name."""
    if not ENV_NAME.fullmatch(name or ""):
        return ("--api-key-env takes the NAME of an environment variable (letters, digits and '_', e.g. "
                "OPENAI_API_KEY), and what was given is not one; if it was the key itself, it was not printed or "
                "stored: put it in a variable (export MY_KEY=...) and pass --api-key-env MY_KEY")
    if name.startswith(KEY_PREFIXES) or (len(name) >= 32 and any(c.isdigit() for c in name)
                                         and any(c.islower() for c in name) and any(c.isupper() for c in name)):
        return ("--api-key-env takes the NAME of an environment variable, and what was given looks like an API key; "
                "it was not printed or stored: put it in a variable (export MY_KEY=...) and pass --api-key-env MY_KEY")
    return None


CREDENTIAL_PARAMS = {"key", "api_key", "apikey", "api-key", "access_token", "token", "auth", "password",
                     "secret", "x-api-key", "x-goog-api-key", "sig", "signature", "code"}


def split_url_credentials(url: str) -> tuple[str, list[str]]:
    """(the URL without user information and credential query parameters, the credentials it held)."""
    try:
        parts = urllib.parse.urlsplit(url)
        found: list[str] = []
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, netloc = netloc.rpartition("@")
            user, _, password = userinfo.partition(":")
            found += [s for s in (userinfo, urllib.parse.unquote(userinfo), password,
                                  urllib.parse.unquote(password)) if s]
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        kept = []
        for k, v in query:
            if k.lower() in CREDENTIAL_PARAMS:
                found += [s for s in (v, urllib.parse.quote(v, safe=""), urllib.parse.quote_plus(v)) if s]
            else:
                kept.append((k, v))
        raw_query = parts.query
        if len(kept) != len(query):
            raw_query = urllib.parse.urlencode(kept)
        clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, raw_query, parts.fragment))
    except ValueError:
        return "", [url]
    return clean, found

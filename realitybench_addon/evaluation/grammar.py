"""The reply grammar (spec, "The prompt"): exactly one JSON object, no prose, no code fence, first
key `adequate` (a JSON boolean), then the environment's keys, each in its JSON type.

Each prompt variant (core/prompt.py) has its own grammar, the shape its prompt asks for:
verdict-first (the benchmark's) puts `adequate` first, verdict-last puts it last, no-verdict has
no `adequate` at all (a reply that gives one is out of grammar: it was not asked).

`parse_strict` decides what is scored: a reply is in grammar only when it is exactly that
(surrounding whitespace aside), with every key present, no other key, no key twice, and each
value of its type (booleans are not numbers; NaN and infinities are not numbers; `null` is no
type). Array keys with a row shape (breaker_label's entries) must hold objects with exactly the
row's keys in their types; set-like arrays (damage types) must hold strings. An out-of-grammar
reply counts as not accepting and wrong on every field.

`parse_lenient` extracts what it can (a code fence or prose around the object, Python literals,
"yes"/"no", numbers as strings with units or fractions) for diagnostics only: never for scores.
"""
from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from ..answers import fields as F
from ..core.prompt import DEFAULT_VARIANT, NO_VERDICT, VERDICT_FIRST, VERDICT_LAST, VERDICT_ONLY
from ..core.safe_parse import MAX_DEPTH, nesting_depth


class _Duplicate(ValueError):
    pass


def _pairs_no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(k)
        out[k] = v
    return out


def _reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_no_duplicates, parse_constant=_reject_constant)


@dataclass
class Parsed:
    in_grammar: bool
    adequate: Optional[bool]  # the strict answer (None when out of grammar)
    values: dict  # strict values by key (empty when out of grammar)
    problems: list[str] = field(default_factory=list)  # why the reply is out of grammar
    lenient_adequate: Optional[bool] = None  # diagnostics only
    lenient_values: dict = field(default_factory=dict)


def type_problem(environment: str, key: str, json_type: str, value: Any) -> Optional[str]:
    if json_type == "boolean":
        return None if isinstance(value, bool) else f"{key!r} is not a JSON boolean"
    if json_type == "number":
        return None if F.is_number(value) else f"{key!r} is not a JSON number"
    if json_type == "string":
        return None if isinstance(value, str) else f"{key!r} is not a JSON string"
    if json_type == "array":
        if not isinstance(value, list):
            return f"{key!r} is not a JSON array"
        rule = F.rule(environment, key)
        if rule is not None and rule.kind == "rows":
            names = [k for k, _ in rule.row_keys]
            for n, row in enumerate(value):
                if not isinstance(row, dict) or sorted(row) != sorted(names):
                    return f"{key!r} row {n} is not an object with exactly the keys {', '.join(names)}"
                for row_key, row_type in rule.row_keys:
                    if type_problem(environment, row_key, row_type, row[row_key]):
                        return f"{key!r} row {n}: {row_key!r} is not a JSON {row_type}"
        elif rule is not None and rule.kind == "set":
            if not all(isinstance(v, str) for v in value):
                return f"{key!r} holds something other than JSON strings"
        return None
    return f"{key!r} has an unknown type {json_type!r}"


def _verdict_problems(obj: dict, variant: str) -> list[str]:
    """Where `adequate` must be (first, last, nowhere) and that it is a JSON boolean."""
    if variant == NO_VERDICT:
        return ["unexpected key 'adequate' (this prompt asks for no verdict)"] if "adequate" in obj else []
    problems = []
    place = {VERDICT_FIRST: "first", VERDICT_LAST: "last", VERDICT_ONLY: "only"}[variant]
    keys = list(obj)
    if not keys or keys[-1 if variant == VERDICT_LAST else 0] != "adequate":
        problems.append(f"{place} key is not 'adequate'")
    if "adequate" in obj and not isinstance(obj["adequate"], bool):
        problems.append("'adequate' is not a JSON boolean")
    if "adequate" not in obj:
        problems.append("missing key 'adequate'")
    return problems


def parse_strict(text: Optional[str], environment: str, keys: Sequence[tuple[str, str]],
                 variant: str = DEFAULT_VARIANT):
    """(object or None, problems). The object is returned only when the reply is in `variant`'s grammar."""
    if text is None:
        return None, ["no reply"]
    s = text.strip()
    if not s:
        return None, ["empty reply"]
    try:
        obj = _STRICT_DECODER.decode(s)
    except _Duplicate as exc:
        return None, [f"key {exc.args[0]!r} appears twice"]
    except json.JSONDecodeError:
        if s.startswith("```"):
            return None, ["code fence"]
        if s.startswith("{"):
            try:
                json.JSONDecoder().raw_decode(s)
            except ValueError:
                return None, ["malformed JSON"]
            return None, ["text after the JSON object"]
        if "{" in s and _first_object(s) is not None:
            return None, ["prose around the JSON object"]
        return None, ["not JSON"]
    except ValueError as exc:  # NaN, Infinity
        return None, [str(exc)]
    if not isinstance(obj, dict):
        return None, ["not a JSON object"]
    problems = _verdict_problems(obj, variant)
    if variant == VERDICT_ONLY:  # the verdict alone asks no documentation key
        keys = ()
    names = [k for k, _ in keys]
    for name, json_type in keys:
        if name not in obj:
            problems.append(f"missing key {name!r}")
        else:
            p = type_problem(environment, name, json_type, obj[name])
            if p:
                problems.append(p)
    for extra in obj:
        if extra != "adequate" and extra not in names:
            problems.append(f"unexpected key {extra!r}")
    return (None, problems) if problems else (obj, [])


# ---- lenient: diagnostics only -------------------------------------------------------------------

_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.S)
_TRUE = {"true", "yes", "y", "adequate", "accept", "accepted", "1"}
_FALSE = {"false", "no", "n", "inadequate", "reject", "rejected", "0"}


def _first_object(s: str) -> Optional[dict]:
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", s):
        try:
            obj, _ = decoder.raw_decode(s, m.start())
        except ValueError:
            obj = None
            end = s.rfind("}")
            if end > m.start():  # Python-literal dicts: single quotes, True/False/None
                try:
                    obj = ast.literal_eval(s[m.start():end + 1])
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    obj = None
        if isinstance(obj, dict):
            return obj
    return None


def _lenient_bool(v) -> Optional[bool]:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and v in (0, 1):
        return bool(v)
    if isinstance(v, str):
        t = v.strip().lower().rstrip(".")
        if t in _TRUE:
            return True
        if t in _FALSE:
            return False
    return None


_MIXED = re.compile(r"([-+]?\d+)\s+(\d+)\s*/\s*(\d+)")  # 4 5/8
_FRACTION = re.compile(r"([-+]?\d+)\s*/\s*(\d+)")  # 5/8
_DECIMAL = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")


def _lenient_number(v) -> Optional[float]:
    if F.is_number(v):
        return float(v)
    if not isinstance(v, str):
        return None
    try:
        return _number_in_text(v.replace(",", ""))
    except (ValueError, OverflowError):  # digits past Python's int-string limit, a quotient past a float
        return None


def _number_in_text(t: str) -> Optional[float]:
    m = _MIXED.search(t)
    if m and int(m.group(3)):
        whole = int(m.group(1))
        return whole + math.copysign(int(m.group(2)) / int(m.group(3)), -1.0 if m.group(1).startswith("-") else 1.0)
    m = _FRACTION.search(t)
    if m and int(m.group(2)):
        return int(m.group(1)) / int(m.group(2))
    m = _DECIMAL.search(t)
    return float(m.group(0)) if m else None


def _lenient_value(environment: str, key: str, json_type: str, v):
    if json_type == "boolean":
        return _lenient_bool(v)
    if json_type == "number":
        return _lenient_number(v)
    if json_type == "string":
        return None if v is None or isinstance(v, (dict, list)) else str(v)
    if json_type == "array":
        if isinstance(v, str):
            v = [p.strip() for p in v.split(",") if p.strip()]
        if not isinstance(v, list):
            return None
        rule = F.rule(environment, key)
        if rule is not None and rule.kind == "rows":
            rows = []
            for row in v:
                if isinstance(row, dict):
                    lower = {str(k).lower(): val for k, val in row.items()}
                    rows.append({rk: (_lenient_number(lower.get(rk)) if rt == "number" else lower.get(rk))
                                 for rk, rt in rule.row_keys})
            return rows
        return v
    return v


def parse_lenient(text: Optional[str], environment: str, keys: Sequence[tuple[str, str]],
                  variant: str = DEFAULT_VARIANT):
    """(adequate or None, {key: value}) extracted as generously as is reasonable. Diagnostics only; a
    no-verdict prompt asked for no verdict, so none is read."""
    if not text:
        return None, {}
    s = text.strip()
    fence = _FENCE.search(s)
    obj = _first_object(fence.group(1)) if fence else None
    if obj is None:
        obj = _first_object(s)
    if obj is None:
        return None, {}
    lower = {str(k).strip().lower(): v for k, v in obj.items()}
    if variant == VERDICT_ONLY:
        keys = ()
    adequate = None if variant == NO_VERDICT else _lenient_bool(lower.get("adequate"))
    values = {}
    for name, json_type in keys:
        if name.lower() in lower:
            v = _lenient_value(environment, name, json_type, lower[name.lower()])
            if v is not None:
                values[name] = v
    return adequate, values


def parse_reply(text: Optional[str], environment: str, keys: Sequence[tuple[str, str]],
                variant: str = DEFAULT_VARIANT) -> Parsed:
    if text is not None and nesting_depth(text) > MAX_DEPTH:  # before any decoder recurses into it
        return Parsed(False, None, {}, [f"nested more than {MAX_DEPTH} arrays or objects deep"], None, {})
    obj, problems = parse_strict(text, environment, keys, variant)
    lenient_adequate, lenient_values = parse_lenient(text, environment, keys, variant)
    if obj is None:
        return Parsed(False, None, {}, problems, lenient_adequate, lenient_values)
    return Parsed(True, obj.get("adequate"), {} if variant == VERDICT_ONLY else {k: obj[k] for k, _ in keys}, [],
                  lenient_adequate, lenient_values)

"""Environment presets: the terms, thresholds and gray zones of an environment, as data.

One TOML file per environment (`presets/<environment>.toml`). Files are validated on
load; every error names the file, the key, the bad value and what is allowed.

    environment = "rail_attachment"
    blur_limit_px = 5.0            # sharp at target: the threshold of the sharp_at_target term
    acceptability_scored = true    # false: terms are exported, acceptability is not scored
    paper_accept_share = 0.12      # the paper's share of random frames accepted
    positive_stratum = true        # the export also draws scorer-accepted frames (default false)

    [terms.attachment_in_frame]
    label = "Attachment in frame"
    kind = "geometric"             # geometric | image | state
    unit = "fraction"              # see terms.UNIT_RANGES
    comparator = ">="              # >= | <= | between | is_true | is_false
    threshold = 0.9                # [lo, hi] for between; omitted for is_true / is_false
    gray = [0.85, 0.9]             # optional: values here are gray instead of failing
    gray_measure = "..."           # optional: test `gray` on another measurement
    measure = "..."                # optional: measurement key if not the term's name
    description = "..."

Every preset has the sharp_at_target term ('<=' in px); its threshold is the blur limit and is inherited
from `blur_limit_px` when the term leaves it out (the shipped presets do). A threshold stated there must equal
the blur limit. The loaded preset (and so its content hash) is the same either way: it carries the threshold.

A preset outside the shipped folder may only read measurements the environment produces.
Which those are is known without Blender from the shipped preset of the same environment:
its term names, `measure` and `gray_measure` keys. (A term reading a measurement that no
frame carries would count as failing and silently reject every frame.)
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from .capture_terms import SHARP_TERM  # the sharp-at-target term's name, which every preset has
from .errors import RealityBenchError
from .safe_parse import InputError, loads_toml
from .safefs import read_path  # the file layer: regular files only, within a size cap
from .terms import COMPARATORS, KINDS, UNIT_RANGES, TermSpec

NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
TOP_KEYS = {"environment", "blur_limit_px", "acceptability_scored", "paper_accept_share", "positive_stratum",
            "description", "terms"}
TERM_KEYS = {"label", "kind", "unit", "comparator", "threshold", "gray", "gray_measure", "measure", "description"}
REQUIRED_TERM_KEYS = ("label", "kind", "unit", "comparator")
PRESET_MAX_BYTES = 1024 * 1024  # safefs.CAPS["preset"]


class PresetError(RealityBenchError, ValueError):
    """A preset that cannot be used; the message names the file, the key and what is allowed."""

    def __init__(self, source: str, key: str, message: str):
        self.source, self.key = source, key
        super().__init__(f"{source}: {key}: {message}")


class ShippedPresetsError(RealityBenchError, ValueError):
    """A write aimed at the shipped presets folder, which is never written."""


@dataclass(frozen=True)
class Preset:
    environment: str
    blur_limit_px: float
    terms: tuple[TermSpec, ...]
    acceptability_scored: bool = True
    paper_accept_share: Optional[float] = None
    description: str = ""
    source: str = "<memory>"
    # Whether an export draws a positive (scorer-accepted) stratum for this environment: a fact of the design,
    # as the paper's is (seven of its eleven environments), not derived from the accept share.
    positive_stratum: bool = False

    def term(self, name: str) -> TermSpec:
        for t in self.terms:
            if t.name == name:
                return t
        raise KeyError(f"{self.environment} has no term {name!r}; terms: {', '.join(t.name for t in self.terms)}")

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"environment": self.environment, "blur_limit_px": self.blur_limit_px,
                               "acceptability_scored": self.acceptability_scored}
        if self.paper_accept_share is not None:
            out["paper_accept_share"] = self.paper_accept_share
        if self.positive_stratum:  # written only when true, so presets without a stratum keep their hash
            out["positive_stratum"] = True
        if self.description:
            out["description"] = self.description
        terms: dict[str, dict] = {}
        for t in self.terms:
            d: dict[str, Any] = {"label": t.label, "kind": t.kind, "unit": t.unit, "comparator": t.comparator}
            if t.threshold is not None:
                d["threshold"] = list(t.threshold) if isinstance(t.threshold, tuple) else t.threshold
            for key in ("gray", "gray_measure", "measure"):
                value = getattr(t, key)
                if value is not None:
                    d[key] = list(value) if isinstance(value, tuple) else value
            if t.description:
                d["description"] = t.description
            terms[t.name] = d
        out["terms"] = terms
        return out

    def content_hash(self) -> str:
        """A short hash of the preset's content (not its file name), recorded with exports."""
        blob = json.dumps(self.to_dict(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def with_term(self, name: str, **changes: Any) -> "Preset":
        """A copy with one term's threshold / gray range changed, validated like a file."""
        if name not in (t.name for t in self.terms):
            raise PresetError(self.source, f"terms.{name}", f"no such term in {self.environment}; "
                              f"terms: {', '.join(t.name for t in self.terms)}")
        data = self.to_dict()
        for key, value in changes.items():
            if key not in ("threshold", "gray"):
                raise PresetError(self.source, f"terms.{name}.{key}", "only threshold and gray can be tuned")
            if value is None:
                data["terms"][name].pop(key, None)
            else:
                data["terms"][name][key] = list(value) if isinstance(value, tuple) else value
        return preset_from_dict(data, self.source)


def _number(source: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise PresetError(source, key, f"{value!r} is not a finite number")
    return float(value)


def _in_range(source: str, key: str, value: float, unit: str) -> None:
    lo, hi = UNIT_RANGES[unit]
    if not lo <= value <= hi:
        raise PresetError(source, key, f"{value:g} is out of range; a threshold in {unit} must lie in [{lo:g}, {hi:g}]")


def _pair(source: str, key: str, value: Any, unit: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise PresetError(source, key, f"{value!r} must be a list of two numbers [lo, hi]")
    lo, hi = (_number(source, f"{key}[{i}]", v) for i, v in enumerate(value))
    if lo > hi:
        raise PresetError(source, key, f"[{lo:g}, {hi:g}] has lo > hi")
    for i, v in enumerate((lo, hi)):
        _in_range(source, f"{key}[{i}]", v, unit)
    return lo, hi


def _term_from_dict(source: str, name: str, data: Any) -> TermSpec:
    prefix = f"terms.{name}"
    if not NAME_RE.match(name):
        raise PresetError(source, prefix, "a term name must be lower_snake_case")
    if not isinstance(data, dict):
        raise PresetError(source, prefix, "must be a table")
    unknown = set(data) - TERM_KEYS
    if unknown:
        raise PresetError(source, f"{prefix}.{sorted(unknown)[0]}", f"unknown key; allowed: {', '.join(sorted(TERM_KEYS))}")
    for key in REQUIRED_TERM_KEYS:
        if key not in data:
            raise PresetError(source, f"{prefix}.{key}", "is required")
    kind, unit, comparator = data["kind"], data["unit"], data["comparator"]
    if kind not in KINDS:
        raise PresetError(source, f"{prefix}.kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    if unit not in UNIT_RANGES:
        raise PresetError(source, f"{prefix}.unit", f"{unit!r} is not one of {', '.join(UNIT_RANGES)}")
    if comparator not in COMPARATORS:
        raise PresetError(source, f"{prefix}.comparator", f"{comparator!r} is not one of {', '.join(COMPARATORS)}")
    threshold: Any = None
    if comparator in ("is_true", "is_false"):
        if unit != "bool":
            raise PresetError(source, f"{prefix}.unit", f"{comparator} needs unit 'bool', not {unit!r}")
        if "threshold" in data:
            raise PresetError(source, f"{prefix}.threshold", f"{comparator} takes no threshold")
    elif "threshold" not in data:
        raise PresetError(source, f"{prefix}.threshold", "is required")
    elif comparator == "between":
        threshold = _pair(source, f"{prefix}.threshold", data["threshold"], unit)
    else:
        threshold = _number(source, f"{prefix}.threshold", data["threshold"])
        _in_range(source, f"{prefix}.threshold", threshold, unit)
    gray = None
    gray_measure = data.get("gray_measure")
    if "gray" in data:
        if unit == "bool":
            raise PresetError(source, f"{prefix}.gray", "a yes/no term has no gray range")
        gray = _pair(source, f"{prefix}.gray", data["gray"], unit)
        if gray_measure is None and comparator in (">=", "<="):
            t = float(threshold)
            on_fail_side = gray[1] <= t if comparator == ">=" else gray[0] >= t
            if not on_fail_side:
                raise PresetError(source, f"{prefix}.gray", f"[{gray[0]:g}, {gray[1]:g}] must lie on the failing side of "
                                  f"the threshold ({comparator} {t:g}); values there already pass")
    for key in ("gray_measure", "measure"):
        if key in data and (not isinstance(data[key], str) or not NAME_RE.match(data[key])):
            raise PresetError(source, f"{prefix}.{key}", f"{data[key]!r} must be a lower_snake_case measurement name")
    for key in ("label", "description"):
        if key in data and not isinstance(data[key], str):
            raise PresetError(source, f"{prefix}.{key}", "must be a string")
    return TermSpec(name=name, label=data["label"], kind=kind, unit=unit, comparator=comparator, threshold=threshold,
                    gray=gray, gray_measure=gray_measure, measure=data.get("measure"),
                    description=data.get("description", ""))


def _inherit_blur_limit(terms_data: dict, blur: float) -> dict:
    """The term tables with sharp_at_target's threshold set to the blur limit where the preset leaves it out."""
    sharp = terms_data[SHARP_TERM]
    if not isinstance(sharp, dict) or "threshold" in sharp or sharp.get("comparator") != "<=":
        return terms_data
    return {name: ({**t, "threshold": blur} if name == SHARP_TERM else t) for name, t in terms_data.items()}


def preset_from_dict(data: Any, source: str = "<memory>") -> Preset:
    if not isinstance(data, dict):
        raise PresetError(source, "<top>", "a preset must be a table")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise PresetError(source, sorted(unknown)[0], f"unknown key; allowed: {', '.join(sorted(TOP_KEYS))}")
    env = data.get("environment")
    if not isinstance(env, str) or not NAME_RE.match(env):
        raise PresetError(source, "environment", f"{env!r} must be an environment name in lower_snake_case")
    if "blur_limit_px" not in data:
        raise PresetError(source, "blur_limit_px", "is required (the sharp-at-target limit in px)")
    blur = _number(source, "blur_limit_px", data["blur_limit_px"])
    if not 0 < blur <= 100:
        raise PresetError(source, "blur_limit_px", f"{blur:g} is out of range; allowed (0, 100] px")
    scored = data.get("acceptability_scored", True)
    if not isinstance(scored, bool):
        raise PresetError(source, "acceptability_scored", f"{scored!r} must be true or false")
    share = data.get("paper_accept_share")
    if share is not None:
        share = _number(source, "paper_accept_share", share)
        if not 0 <= share <= 1:
            raise PresetError(source, "paper_accept_share", f"{share:g} is out of range; allowed [0, 1]")
    positive = data.get("positive_stratum", False)
    if not isinstance(positive, bool):
        raise PresetError(source, "positive_stratum", f"{positive!r} must be true or false")
    if positive and not scored:
        raise PresetError(source, "positive_stratum", "needs acceptability_scored = true (a positive frame is one "
                          "the scorer accepts)")
    terms_data = data.get("terms")
    if not isinstance(terms_data, dict) or not terms_data:
        raise PresetError(source, "terms", "at least one term table is required")
    if SHARP_TERM not in terms_data:
        raise PresetError(source, f"terms.{SHARP_TERM}", "every environment needs the sharp-at-target term")
    terms = tuple(_term_from_dict(source, name, t) for name, t in _inherit_blur_limit(terms_data, blur).items())
    sharp = next(t for t in terms if t.name == SHARP_TERM)
    if sharp.comparator != "<=" or sharp.unit != "px":
        raise PresetError(source, f"terms.{SHARP_TERM}", f"must be '<=' in px (the blur limit, {blur:g} px)")
    if sharp.threshold != blur:
        raise PresetError(source, f"terms.{SHARP_TERM}.threshold", f"{sharp.threshold:g} differs from blur_limit_px "
                          f"{blur:g}: the term's threshold is the blur limit; leave it out (it is inherited) or "
                          f"state the same value")
    description = data.get("description", "")
    return Preset(env, blur, terms, scored, share, description, source, positive)


def load_preset(path: str | Path) -> Preset:
    path = Path(path)
    source = str(path)
    try:
        raw = read_path(path, "preset")
    except FileNotFoundError:
        raise PresetError(source, "<file>", "no such preset file") from None
    except OSError as exc:
        raise PresetError(source, "<file>", f"cannot be read: {exc.strerror}") from None
    except RealityBenchError as exc:  # a pipe, a device, a folder, or over the preset size cap
        raise PresetError(source, "<file>", str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PresetError(source, "<file>", f"is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                          f"{exc.start}); TOML files must be UTF-8") from None
    try:
        data = loads_toml(text, max_bytes=PRESET_MAX_BYTES)  # a BOM dropped; depth and number limits
    except InputError as exc:
        raise PresetError(source, "<toml>", str(exc)) from None
    preset = preset_from_dict(data, source)
    if path.stem != preset.environment and not path.stem.startswith(preset.environment + "."):
        raise PresetError(source, "environment", f"{preset.environment!r} does not match the file name {path.name!r}")
    shipped = _shipped_file(preset.environment)
    if shipped is None:
        try:
            known = ", ".join(shipped_environments())
        except FileNotFoundError:
            known = "none (no shipped presets folder)"
        raise PresetError(source, "environment", f"{preset.environment!r} is not a known environment; known: {known}")
    if path.resolve() != shipped.resolve():
        check_measurements(preset, measurement_names(load_preset(shipped)))
    return preset


def measurement_names(preset: Preset) -> tuple[str, ...]:
    """Every measurement `preset` reads, in term order: each term's key and gray measure."""
    names: list[str] = []
    for term in preset.terms:
        for name in (term.measurement_key, term.gray_measure):
            if name is not None and name not in names:
                names.append(name)
    return tuple(names)


def check_measurements(preset: Preset, known: Iterable[str]) -> None:
    """PresetError unless every measurement `preset` reads is one of `known` (the environment's)."""
    known = tuple(known)
    for term in preset.terms:
        reads = [(f"terms.{term.name}.measure" if term.measure else f"terms.{term.name}", term.measurement_key)]
        if term.gray_measure is not None:
            reads.append((f"terms.{term.name}.gray_measure", term.gray_measure))
        for key, name in reads:
            if name not in known:
                raise PresetError(preset.source, key, f"{name!r} is not a measurement of {preset.environment}; "
                                  f"measurements: {', '.join(known)}")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def preset_to_toml(preset: Preset) -> str:
    """TOML text that `load_preset` reads back to an equal preset (Blender ships no TOML writer)."""
    data = preset.to_dict()
    terms = data.pop("terms")
    lines = [f"{k} = {_toml_value(v)}" for k, v in data.items()]
    for name, t in terms.items():
        lines += ["", f"[terms.{name}]"] + [f"{k} = {_toml_value(v)}" for k, v in t.items()]
    return "\n".join(lines) + "\n"


def refuse_shipped_folder(directory: str | Path, what: str = "the presets folder") -> None:
    """A PresetError when `directory` is (or resolves into, through links or '..') the shipped presets folder:
    the shipped presets are the benchmark's definition and are never written; edits go to another folder."""
    try:
        shipped = shipped_presets_dir().resolve()
    except FileNotFoundError:
        return
    target = Path(directory).resolve()
    if target == shipped or shipped in target.parents:
        raise ShippedPresetsError(f"{what} {directory} is the shipped presets folder ({shipped}), which is never written: "
                          f"choose another folder (e.g. --presets-out my_presets) and load it with --presets")


def save_preset(preset: Preset, path: str | Path) -> Path:
    """Write atomically (temporary file, then rename); never into the shipped presets folder."""
    path = Path(path)
    refuse_shipped_folder(path.parent, "the preset's folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(preset_to_toml(preset), encoding="utf-8")
    tmp.replace(path)
    return path


def shipped_presets_dir() -> Path:
    """`presets/` beside the package in a checkout, or inside it in a built extension."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "presets", here.parent / "presets"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"no presets folder next to {here}")


def _shipped_file(environment: str) -> Optional[Path]:
    try:
        path = shipped_presets_dir() / f"{environment}.toml"
    except FileNotFoundError:
        return None
    return path if path.is_file() else None


def shipped_environments(directory: Optional[Path] = None) -> list[str]:
    directory = directory or shipped_presets_dir()
    return sorted(p.stem for p in directory.glob("*.toml"))


def load_environment_preset(environment: str, directories: Iterable[Path] = ()) -> Preset:
    """The preset of `environment`: the first of `directories` that has it, else the shipped one."""
    for directory in [*directories, shipped_presets_dir()]:
        path = Path(directory) / f"{environment}.toml"
        if path.is_file():
            return load_preset(path)
    known = shipped_environments()
    raise PresetError(environment, "environment", f"unknown environment; known: {', '.join(known)}")

"""Batch export: environments -> a labeled set on disk (random and positive strata), resumable.

Slots and stream indices. Every frame fills a *slot* of its stratum and is built from a
*stream index* (its id), so any frame is a pure function of its id:
  random slot i     -> index i; when the render sanity check discards it, the replacements
                       REPLACEMENT_BASE + i * REPLACEMENTS + k, k = 0, 1, ...
  positive slot j   -> the first scorer-accepted candidate among indices j * POSITIVE_BLOCK + k,
                       searched as a funnel: geometric terms (no render) first, then a render of
                       the survivors, then the image terms and the sanity check.
Slots never depend on each other, so shards (slot % N == K) need no coordination and a
killed export resumes by skipping the slots already in metadata.jsonl.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

from . import __version__
from .core import debug_images
from .core.presets import PresetError, load_environment_preset
from .envs import registry
from .setio import append_row, atomic_write, read_manifest, read_rows, remove_partials, write_manifest

EXTRAS = "extras"  # masks/, overlays/, contact_sheets/ (beside the set's images)
POSITIVE_BLOCK = 1000
REPLACEMENT_BASE = 10_000_000
REPLACEMENTS = 16
# The positive stratum is drawn where the paper's scorer accepts under a quarter of random
# frames (seven environments, as in the paper).
POSITIVE_BELOW_SHARE = 0.25


class ExportError(ValueError):
    """Bad export input, found before any work; the message names it."""


@dataclass(frozen=True)
class ExportConfig:
    environments: tuple[str, ...]
    random: int = 100
    positive: int = 50
    seed: int = 0
    long_side_px: int = 1600
    samples: int = 16
    denoise: bool = True
    device: str = "cpu"
    shard: tuple[int, int] = (0, 1)
    extras: bool = False  # per-frame target mask and debug overlay, a contact sheet per environment
    preset_dirs: tuple[str, ...] = ()  # user preset folders, searched before the shipped presets

    def identity(self) -> dict:
        """What a resumed export must share with the one that started the folder."""
        return asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "ExportConfig":
        """The config a manifest stored (JSON lists back to tuples)."""
        return ExportConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})

    def content_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:16]


def resolve_environments(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    names = text.split(",") if isinstance(text, str) else list(text)
    names = [n.strip() for n in names if n.strip()]
    if names == ["all"]:
        return registry.available()
    if not names:
        raise ExportError("no environment given; use --env NAME[,NAME...] or --env all")
    for name in names:
        try:
            registry.get(name)
        except registry.UnknownEnvironment as exc:
            raise ExportError(str(exc)) from None
    if len(set(names)) != len(names):
        raise ExportError(f"an environment is named twice in {','.join(names)}")
    return tuple(names)


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ExportError(f"--shard must look like K/N (e.g. 0/4), not {text!r}") from None
    if n < 1 or not 0 <= k < n:
        raise ExportError(f"--shard {text}: need 0 <= K < N")
    return k, n


def validate(config: ExportConfig) -> dict:
    """Check everything before any work; return the loaded presets."""
    if config.random < 0 or config.positive < 0:
        raise ExportError(f"counts must be non-negative (random {config.random}, positive {config.positive})")
    if config.seed < 0:
        raise ExportError(f"--seed must be non-negative, got {config.seed}")
    if config.samples < 1:
        raise ExportError(f"--samples must be at least 1, got {config.samples}")
    if config.device not in ("cpu", "gpu", "auto"):
        raise ExportError(f"--device must be cpu, gpu or auto, not {config.device!r}")
    for directory in config.preset_dirs:
        if not Path(directory).is_dir():
            raise ExportError(f"--presets {directory}: no such folder")
    presets = {}
    for env in config.environments:
        try:
            presets[env] = load_environment_preset(env, [Path(d) for d in config.preset_dirs])
        except PresetError as exc:
            raise ExportError(f"bad preset: {exc}") from None
    return presets


def wants_positive(preset) -> bool:
    share = preset.paper_accept_share
    return preset.acceptability_scored and share is not None and share < POSITIVE_BELOW_SHARE


@dataclass
class Progress:
    """Frames done, rate and ETA, one line per frame on stderr (or a callback, e.g. Blender's progress bar)."""

    total: int
    done: int = 0
    started: float = field(default_factory=time.perf_counter)
    report: Optional[Callable[[int, int, str], None]] = None

    def step(self, label: str) -> None:
        self.done += 1
        elapsed = time.perf_counter() - self.started
        rate = elapsed / self.done
        eta = rate * (self.total - self.done)
        line = f"[{self.done}/{self.total}] {label}  {rate:.1f} s/frame, ETA {eta / 60:.1f} min"
        if self.report is not None:
            self.report(self.done, self.total, line)
        else:
            print(line, file=sys.stderr, flush=True)


def _slots(count: int, shard: tuple[int, int]) -> list[int]:
    k, n = shard
    return [s for s in range(count) if s % n == k]


def metadata_row(record: dict, slot: int, config_hash: str) -> dict:
    """A metadata.jsonl row: the frame record with terms keyed by name (uniform columns for Arrow)."""
    row = {"file_name": f"{record['environment']}/{record['frame_id']}.jpg", "slot": slot}
    row.update({k: v for k, v in record.items() if k not in ("file_name", "discard_reason")})
    row["terms"] = {t["name"]: {k: v for k, v in t.items() if k != "name"} for t in record["terms"]}
    row["config_hash"] = config_hash
    return row


def export(config: ExportConfig, out: Path, *, command: str = "", progress: Optional[Callable] = None,
           max_frames: Optional[int] = None) -> dict:
    """Run (or resume) an export into `out`; returns the manifest. With `max_frames`, stop after that
    many new frames (the manifest then says complete: false; the same call resumes)."""
    from . import pipeline

    presets = validate(config)
    out = Path(out)
    previous = read_manifest(out) if out.is_dir() else None
    if previous is not None and previous.get("config") != json.loads(json.dumps(config.identity())):
        old = previous.get("config", {})
        new = json.loads(json.dumps(config.identity()))
        differing = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise ExportError(f"{out} holds a set made with different settings ({', '.join(differing)}); "
                          "use another --out or the same settings to resume")
    out.mkdir(parents=True, exist_ok=True)
    remove_partials(out)
    rows = read_rows(out, repair=True)
    done = {(r["environment"], r["stratum"], r["slot"]) for r in rows}
    config_hash = config.content_hash()
    stats = previous.get("stats", {}) if previous else {}
    discards = Counter(stats.get("discards", {}))
    search = {env: Counter(stats.get("positive_search", {}).get(env, {})) for env in config.environments}
    timings = Counter(stats.get("timings", {}))

    work = []
    for env in config.environments:
        work += [(env, "random", s) for s in _slots(config.random, config.shard)]
        if wants_positive(presets[env]):
            work += [(env, "positive", s) for s in _slots(config.positive, config.shard)]
    todo = [w for w in work if w not in done]
    if max_frames is not None:
        remaining = len(todo)
        todo = todo[:max_frames]
    else:
        remaining = len(todo)
    tracker = Progress(len(todo), report=progress)

    def save_manifest(complete: bool) -> dict:
        counts: dict = {}
        for r in read_rows(out):
            counts.setdefault(r["environment"], Counter())[r["stratum"]] += 1
        manifest = {
            "command": command, "config": config.identity(), "config_hash": config_hash,
            "complete": complete, "expected_frames": len(work), "counts": {k: dict(v) for k, v in counts.items()},
            "stats": {"discards": dict(discards), "positive_search": {k: dict(v) for k, v in search.items()},
                      "timings": dict(timings)},
            "versions": {"realitybench": __version__,
                         "preset_hashes": {env: p.content_hash() for env, p in presets.items()}},
        }
        write_manifest(out, manifest)
        return manifest

    save_manifest(complete=not todo)
    for env, stratum, slot in todo:
        preset = presets[env]
        started = time.perf_counter()
        if stratum == "random":
            result = _random_frame(pipeline, config, preset, env, slot, discards, timings)
        else:
            result = _positive_frame(pipeline, config, preset, env, slot, discards, search[env], timings)
        fid = result.record["frame_id"]
        row = metadata_row(result.record, slot, config_hash)
        if config.extras:
            atomic_write(out / EXTRAS / "masks" / env / f"{fid}.png", debug_images.mask_png(result.mask))
            atomic_write(out / EXTRAS / "overlays" / env / f"{fid}.jpg",
                         debug_images.overlay_jpeg(result.jpeg, result.mask, row))
        atomic_write(out / env / f"{fid}.jpg", result.jpeg)
        append_row(out, row)
        timings["wall_s"] += time.perf_counter() - started
        save_manifest(complete=False)
        tracker.step(f"{env} {stratum} slot {slot}: {result.record['verdict']}")
    complete = len(todo) == remaining
    if complete and config.extras:
        write_contact_sheets(out)
    return save_manifest(complete=complete)


def write_contact_sheets(out: Path) -> None:
    by_env: dict[str, list] = {}
    for r in read_rows(out):
        by_env.setdefault(r["environment"], []).append(((out / r["file_name"]).read_bytes(), r["verdict"]))
    for env, items in by_env.items():
        atomic_write(out / EXTRAS / "contact_sheets" / f"{env}.jpg", debug_images.contact_sheet(items))


def _render(pipeline, config, preset, spec, timings):
    result = pipeline.run_frame(spec, long_side_px=config.long_side_px, render=True, samples=config.samples,
                                denoise=config.denoise, device=config.device, preset=preset)
    for key, value in result.timings.items():
        timings[key] += value
    return result


def _random_frame(pipeline, config, preset, env, slot, discards, timings):
    indices = [slot] + [REPLACEMENT_BASE + slot * REPLACEMENTS + k for k in range(REPLACEMENTS)]
    for index in indices:
        result = _render(pipeline, config, preset, pipeline.plan_frame(env, config.seed, "random", index), timings)
        if result.discard_reason is None:
            return result
        discards[result.discard_reason] += 1
    raise RuntimeError(f"{env} random slot {slot}: {REPLACEMENTS + 1} poses in a row failed the render sanity check")


def _positive_frame(pipeline, config, preset, env, slot, discards, search, timings):
    for k in range(POSITIVE_BLOCK):
        spec = pipeline.plan_frame(env, config.seed, "positive", slot * POSITIVE_BLOCK + k)
        search["candidates"] += 1
        geometric = pipeline.run_frame(spec, long_side_px=config.long_side_px, render=False, preset=preset)
        timings["geometric_s"] += geometric.timings["geometric_s"]
        timings["scene_build_s"] += geometric.timings["scene_build_s"]
        if geometric.record["verdict"] not in ("accept", "pending") or geometric.discard_reason:
            search["geometric_rejects"] += 1
            continue
        result = _render(pipeline, config, preset, spec, timings)
        search["renders"] += 1
        if result.discard_reason is not None:
            discards[result.discard_reason] += 1
            continue
        if result.record["verdict"] == "accept":
            search["accepted"] += 1
            return result
        search["image_rejects"] += 1
    raise RuntimeError(f"{env} positive slot {slot}: no accepted pose among {POSITIVE_BLOCK} candidates")

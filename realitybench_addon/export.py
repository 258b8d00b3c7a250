"""Batch export: environments -> a labeled set on disk (random and positive strata), resumable.

Slots and stream indices. Every frame fills a *slot* of its stratum and is built from a
*stream index* (its id), so any frame is a pure function of its id:
  random slot i     -> index i; when the render sanity check discards it, the replacements
                       REPLACEMENT_BASE + i * REPLACEMENTS + k, k = 0, 1, ...
  positive slot j   -> the first scorer-accepted candidate among indices j * POSITIVE_BLOCK + k,
                       searched as a funnel: geometric terms (no render) first, then a render of
                       the survivors, then the image terms and the sanity check.
Slots never depend on each other, so shards (slot % N == K) need no coordination and a
killed export resumes by skipping the slots already in metadata.jsonl. Slots are streamed, never
listed, so the size of a set is bounded by its disk, not by memory.

One writer per folder: the export holds the folder's lock (setlock.py) from its first read to its
last write. A damaged metadata log stops the export with the line named; `repair=True` keeps every
good row (byte for byte), drops the bad ones and re-renders their slots.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

from .version import __version__
from .core import debug_images
from .core.errors import RealityBenchError
from .core.feasibility import check_positive_feasible, positive_search_exhausted
from .core.presets import PresetError, load_environment_preset, shipped_presets_dir
from .core.render_settings import RenderSettings, RenderSettingsError
from .core.terms import Verdict
from .envs import registry
from .setio import (METADATA, SetError, append_row, atomic_write, read_image, read_manifest, read_rows,
                    remove_partials, row_problem, scan_jsonl, write_manifest)
from .setlock import SetLock

EXTRAS = "extras"  # masks/, overlays/, contact_sheets/ (beside the set's images)
POSITIVE_BLOCK = 1000
REPLACEMENT_BASE = 10_000_000
REPLACEMENTS = 16
# Random slot i is drawn from index i and its replacements from REPLACEMENT_BASE + ..., so the random
# stratum has REPLACEMENT_BASE slots at most; the positive stratum is held to the same size.
MAX_SLOTS = REPLACEMENT_BASE
# A lower bound on a frame's bytes on disk (JPEG of a rendered photo, its row): the export refuses a set
# that cannot fit in the free space even at this size. Real frames are several times larger.
MIN_JPEG_BYTES_PER_PIXEL = 0.02
ROW_BYTES = 2048


class ExportError(RealityBenchError, ValueError):
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

    def render_settings(self) -> RenderSettings:
        """Cycles' settings for every frame: the samples and denoising asked for, the rest the defaults
        `benchmarks/bench_render.py` chose (docs/export.md, "Render speed"); the manifest records them."""
        return RenderSettings(samples=self.samples, denoise=self.denoise)


def stored_render_settings(manifest: dict, config: ExportConfig, where) -> RenderSettings:
    """The Cycles settings a set's manifest says its frames were rendered with. A manifest from before sets
    recorded them (issue 21) was rendered with `RenderSettings.before_issue_21`."""
    data = manifest.get("render_settings")
    if data is None:
        return RenderSettings.before_issue_21(config.samples, config.denoise)
    try:
        settings = RenderSettings.from_dict(data)
    except (RenderSettingsError, TypeError) as exc:
        raise ExportError(f"{where}/manifest.json: its render_settings cannot be used ({exc}); "
                          "use another --out") from None
    if (settings.samples, settings.denoise) != (config.samples, config.denoise):
        raise ExportError(f"{where}/manifest.json: its render_settings cannot be used (samples {settings.samples}, "
                          f"denoise {settings.denoise} disagree with the set's --samples {config.samples}, "
                          f"denoise {config.denoise}); use another --out")
    return settings


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
    if max(config.random, config.positive) > MAX_SLOTS:
        raise ExportError(f"at most {MAX_SLOTS:,} frames per environment and stratum (asked for random "
                          f"{config.random:,}, positive {config.positive:,}); split a larger set by --seed")
    if config.long_side_px < 16:
        raise ExportError(f"the frame's long side must be at least 16 px, got {config.long_side_px}")
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
    for env, preset in presets.items():  # a positive frame no pose can reach at this size: say so now
        problem = check_positive_feasible(env, preset, config.long_side_px, features=registry.features(env)) if (
            config.positive > 0 and wants_positive(preset)) else None
        if problem:
            raise ExportError(problem)
    _check_renderer(config)
    return presets


def _check_renderer(config: ExportConfig) -> None:
    """This Blender can render the set as asked: a denoiser where it denoises, a GPU where it asks for one."""
    try:
        from .bl.render import cycles_device, denoise_problem
    except ImportError:  # no bpy in this process (a Ray driver): each worker checks again
        return
    problem = denoise_problem(True) if config.denoise and (config.random > 0 or config.positive > 0) else None
    if problem:
        raise ExportError(problem)
    if config.device == "gpu":
        try:
            cycles_device("gpu")
        except RuntimeError as exc:
            raise ExportError(str(exc)) from None


def wants_positive(preset) -> bool:
    """Whether the export draws a positive stratum for this environment: the preset's `positive_stratum`, set
    for the seven environments the paper drew one for (docs/presets.md)."""
    return preset.positive_stratum


def stratum_notes(config: ExportConfig, presets: dict) -> list[str]:
    """What the export will not draw that the command asked for, one line each (stderr and the manifest)."""
    if config.positive <= 0:
        return []
    return [f"{env}: --positive {config.positive} asked, but its preset draws no positive stratum "
            f"(positive_stratum = false in {_preset_file(preset)}); random frames only"
            for env, preset in presets.items() if not wants_positive(preset)]


def _preset_file(preset) -> str:
    """A preset's file as a note names it: within its presets folder, never the checkout's absolute path (two
    checkouts exporting one set write the same manifest)."""
    source = Path(preset.source)
    try:
        shipped = source.resolve().parent == shipped_presets_dir().resolve()
    except OSError:
        shipped = False
    return f"the shipped presets/{source.name}" if shipped else f"{source.name} of --presets"


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


def _slots(count: int, shard: tuple[int, int]) -> range:
    k, n = shard
    return range(k, count, n)


def stratum_slots(config: ExportConfig, presets: dict, env: str, stratum: str) -> range:
    """The slots of one environment's stratum this shard fills (empty where the export draws none): THE slot
    membership, which `planned_work`, `expected_frames` and a repair's check of a row all read."""
    if env not in config.environments:
        return range(0)
    if stratum == "random":
        return _slots(config.random, config.shard)
    if stratum == "positive" and wants_positive(presets[env]):
        return _slots(config.positive, config.shard)
    return range(0)


def planned_work(config: ExportConfig, presets: dict) -> Iterator[tuple[str, str, int]]:
    """Every (environment, stratum, slot) of this shard, in export order, one at a time."""
    for env in config.environments:
        for stratum in ("random", "positive"):
            yield from ((env, stratum, s) for s in stratum_slots(config, presets, env, stratum))


def expected_frames(config: ExportConfig, presets: dict) -> int:
    """How many frames this shard holds when complete (the length of `planned_work`)."""
    return sum(len(stratum_slots(config, presets, env, stratum))
               for env in config.environments for stratum in ("random", "positive"))


def check_disk_space(config: ExportConfig, presets: dict, out: Path, already: int) -> None:
    """Refuse, before any work, a set that cannot fit on its disk even at the smallest plausible frame size."""
    frames = expected_frames(config, presets) - already
    if frames <= 0:
        return
    short = config.long_side_px * 3 // 4
    needed = frames * (config.long_side_px * short * MIN_JPEG_BYTES_PER_PIXEL + ROW_BYTES)
    free = shutil.disk_usage(out).free
    if needed > free:
        raise ExportError(f"{frames:,} more frames need at least {needed / 1e9:,.1f} GB, but {out} has "
                          f"{free / 1e9:,.1f} GB free; export fewer frames or to a larger disk")


def metadata_row(record: dict, slot: int, config_hash: str) -> dict:
    """A metadata.jsonl row: the frame record with terms keyed by name (uniform columns for Arrow).

    A column holds one kind of value across every environment of a set, or Arrow (and so `datasets`) refuses
    the whole log: a term of one name is `between` in one environment and `<=` in another (camera_distance),
    so a range threshold is written as `threshold_range` [lo, hi], with `threshold` null, and a number
    threshold as `threshold`. tests/test_row_schema.py checks every environment's rows unify."""
    row = {"file_name": f"{record['environment']}/{record['frame_id']}.jpg", "slot": slot}
    row.update({k: v for k, v in record.items() if k not in ("file_name", "discard_reason")})
    row["terms"] = {t["name"]: _term_column(t) for t in record["terms"]}
    row["config_hash"] = config_hash
    return row


def _term_column(term: dict) -> dict:
    column = {k: v for k, v in term.items() if k != "name"}
    if isinstance(column.get("threshold"), (list, tuple)):
        column["threshold_range"] = list(column["threshold"])
        column["threshold"] = None
    return column


class SlotStats:
    """The positive-search counters and render discards of each finished slot, keyed by slot, so a slot
    that is done again (after a kill between its manifest and its row, or a repair) replaces its own
    numbers instead of adding to them. The manifest's totals are sums over these."""

    def __init__(self, previous: Optional[dict]):
        stats = (previous or {}).get("stats", {})
        self.slots: dict[str, dict] = dict(stats.get("slots", {}))
        # A manifest from before per-slot stats: keep its totals as a base the slots add to.
        self.base_discards = Counter(stats.get("discards", {})) if "slots" not in stats else Counter()
        self.base_search = ({env: Counter(c) for env, c in stats.get("positive_search", {}).items()}
                            if "slots" not in stats else {})
        self.timings = Counter(stats.get("timings", {}))

    @staticmethod
    def key(env: str, stratum: str, slot: int) -> str:
        return f"{env}/{stratum}/{slot}"

    def record(self, env: str, stratum: str, slot: int, discards: Counter, search: Counter) -> None:
        entry = {k: dict(v) for k, v in (("discards", discards), ("search", search)) if v}
        if entry:
            self.slots[self.key(env, stratum, slot)] = entry
        else:
            self.slots.pop(self.key(env, stratum, slot), None)

    def forget(self, key: str) -> None:
        self.slots.pop(key, None)

    def to_dict(self, environments) -> dict:
        discards = Counter(self.base_discards)
        search = {env: Counter(self.base_search.get(env, {})) for env in environments}
        for key, entry in self.slots.items():
            discards.update(entry.get("discards", {}))
            search.setdefault(key.split("/", 1)[0], Counter()).update(entry.get("search", {}))
        return {"discards": dict(discards), "positive_search": {k: dict(v) for k, v in search.items()},
                "timings": dict(self.timings), "slots": self.slots}


def export_argv(config: ExportConfig, out, *, command: str, max_frames: Optional[int] = None,
                repair: bool = False, recycle_every: int = 0) -> list[str]:
    """The `export` command line that runs `config` into `out` (without Ray; in one process unless
    `recycle_every`): how the CLI's recycled workers, the Ray shards and the sidebar's background export each
    start one. `command` is what the manifest records: the command line the user gave."""
    long_side = config.long_side_px
    argv = ["export", "--env", ",".join(config.environments), "--random", str(config.random),
            "--positive", str(config.positive), "--seed", str(config.seed),
            "--resolution", f"{long_side}x{round(long_side * 3 / 4)}", "--samples", str(config.samples),
            "--device", config.device, "--shard", "{}/{}".format(*config.shard), "--out", str(out),
            "--recycle-every", str(recycle_every), "--record-command", command]
    if not config.denoise:
        argv.append("--no-denoise")
    if config.extras:
        argv.append("--extras")
    for directory in config.preset_dirs:
        argv += ["--presets", directory]
    if max_frames is not None:
        argv += ["--max-frames", str(max_frames)]
    if repair:
        argv.append("--repair")
    return argv


def export_process(argv: list[str], *, blender: Optional[str] = None) -> list[str]:
    """The process that runs this package's command line `argv`: this interpreter, or a Blender binary in the
    background (from inside Blender, whose own Python may have no bpy module to import)."""
    package = Path(__file__).resolve().parent
    runner = (f"import sys; sys.path.insert(0, {str(package.parent)!r}); import importlib; "
              f"sys.exit(importlib.import_module({package.name + '.__main__'!r}).main({list(argv)!r}))")
    if blender:
        return [blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python-expr", runner]
    return [sys.executable, "-c", runner]


def export(config: ExportConfig, out: Path, *, command: str = "", progress: Optional[Callable] = None,
           max_frames: Optional[int] = None, repair: bool = False) -> dict:
    """Run (or resume) an export into `out`; returns the manifest. With `max_frames`, stop after that
    many new frames (the manifest then says complete: false; the same call resumes). With `repair`, first
    drop the damaged rows of the metadata log (the manifest lists them) and then re-render their slots.
    Holds the folder's lock throughout (SetLocked if another writer has it)."""
    presets = validate(config)
    for note in stratum_notes(config, presets):
        print(f"note: {note}", file=sys.stderr, flush=True)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with SetLock(out, "export"):
        return _export_locked(_open_run(config, presets, out, command=command, repair=repair), progress=progress,
                              max_frames=max_frames)


@dataclass
class _Run:
    """One export into its folder: what it was asked, what the folder already holds, what it has written since;
    `save_manifest` writes it all down."""

    config: ExportConfig
    presets: dict
    out: Path
    command: str
    settings: RenderSettings  # a resumed set keeps the Cycles settings it was started with
    preset_hashes: dict  # fixed for the export's length
    stats: SlotStats
    repairs: list
    counts: dict = field(default_factory=dict)  # environment -> Counter of frames per stratum
    done: set = field(default_factory=set)  # (environment, stratum, slot) in the metadata log

    @property
    def config_hash(self) -> str:
        return self.config.content_hash()

    @property
    def expected(self) -> int:
        return expected_frames(self.config, self.presets)

    def save_manifest(self, complete: bool) -> dict:
        manifest = {
            "command": self.command, "config": self.config.identity(), "config_hash": self.config_hash,
            "complete": complete, "expected_frames": self.expected,
            "counts": {k: dict(v) for k, v in self.counts.items()},
            "stats": self.stats.to_dict(self.config.environments),
            "render_settings": self.settings.to_dict(),
            "versions": {"realitybench": __version__, "preset_hashes": self.preset_hashes},
        }
        notes = stratum_notes(self.config, self.presets)
        if notes:
            manifest["notes"] = notes
        if self.repairs:
            manifest["repairs"] = self.repairs
        write_manifest(self.out, manifest)
        return manifest


def _previous_manifest(config: ExportConfig, presets: dict, out: Path, repair: bool) -> Optional[dict]:
    """The manifest of the set being resumed (None for a new one, or a damaged one being repaired), checked
    to be of this export's settings and presets."""
    try:
        previous = read_manifest(out)
    except SetError:
        if not repair:
            raise SetError(f"{out / 'manifest.json'} is damaged; rerun the export's own command with --repair "
                           "to rebuild it from the rows") from None
        return None
    identity = json.loads(json.dumps(config.identity()))
    if previous is not None and previous.get("config") != identity:
        old = previous.get("config", {})
        differing = sorted(k for k in set(old) | set(identity) if old.get(k) != identity.get(k))
        raise ExportError(f"{out} holds a set made with different settings ({', '.join(differing)}); "
                          "use another --out or the same settings to resume")
    if previous is not None:
        versions = previous.get("versions")
        check_same_presets(versions.get("preset_hashes") if isinstance(versions, dict) else None,
                           {env: p.content_hash() for env, p in presets.items()}, out)
    return previous


def _open_run(config: ExportConfig, presets: dict, out: Path, *, command: str, repair: bool) -> _Run:
    """The export into `out` as its folder stands: the previous manifest checked, partial files removed, damaged
    rows dropped (with `repair`), and the slots its rows already fill."""
    previous = _previous_manifest(config, presets, out, repair)
    settings = config.render_settings() if previous is None else stored_render_settings(previous, config, out)
    remove_partials(out)
    run = _Run(config, presets, out, command, settings, {env: p.content_hash() for env, p in presets.items()},
               SlotStats(previous), list((previous or {}).get("repairs", [])))
    if repair:
        dropped = repair_rows(out, config, presets, run.config_hash)
        for entry in dropped:
            if "slot_key" in entry:
                run.stats.forget(entry["slot_key"])
        run.repairs.append({"at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "dropped": dropped})
    for r in read_rows(out, repair=True):
        check_same_presets({r["environment"]: row_preset_hash(r)}, run.preset_hashes, out)
        run.done.add((r["environment"], r["stratum"], r["slot"]))
        run.counts.setdefault(r["environment"], Counter())[r["stratum"]] += 1
    check_disk_space(config, presets, out, len(run.done))
    return run


def _export_locked(run: _Run, *, progress: Optional[Callable] = None, max_frames: Optional[int] = None) -> dict:
    """Render the slots the folder lacks (at most `max_frames`), then the contact sheets (with extras) and the
    dataset card once the set is complete."""
    from .dataset_card import write_dataset_card
    from .pipeline import render_session

    remaining = run.expected - len(run.done)
    tracker = Progress(remaining if max_frames is None else min(max_frames, remaining), report=progress)
    run.save_manifest(complete=remaining == 0)
    new_frames = 0
    with render_session():  # the frames' renders share one compositor set-up (bl.render)
        for env, stratum, slot in planned_work(run.config, run.presets):
            if (env, stratum, slot) in run.done:
                continue
            if max_frames is not None and new_frames >= max_frames:
                break
            result = _fill_slot(run, _SlotJob(run.config, run.settings, run.presets[env], env, stratum, slot))
            new_frames += 1
            tracker.step(f"{env} {stratum} slot {slot}: {result.frame.verdict.value}")
    complete = len(run.done) + new_frames == run.expected
    if complete and run.config.extras:
        write_contact_sheets(run.out)
    manifest = run.save_manifest(complete=complete)
    write_dataset_card(run.out, manifest)  # README.md: the set's Hugging Face card (dataset_card.py)
    return manifest


def _fill_slot(run: _Run, job: "_SlotJob"):
    """Make the slot's frame and write it: its image (and extras), then its stats and count in one manifest
    write, then its row. A kill in between redoes the slot, which replaces its stats; a resume counts the frames
    from the rows."""
    started = time.perf_counter()
    try:
        result = _random_frame(job) if job.stratum == "random" else _positive_frame(job)
    except ExportError:  # a search that ran dry: keep what it tried in the manifest
        run.stats.record(job.env, job.stratum, job.slot, job.discards, job.search)
        run.save_manifest(complete=False)
        raise
    finally:
        run.stats.timings.update(job.timings)
    row = metadata_row(result.record, job.slot, run.config_hash)
    if run.config.extras:
        write_extras(run.out, result.jpeg, result.mask, result.record)
    atomic_write(run.out / job.env / f"{result.frame.frame_id}.jpg", result.jpeg, root=run.out)  # no link followed
    run.stats.timings["wall_s"] += time.perf_counter() - started
    run.stats.record(job.env, job.stratum, job.slot, job.discards, job.search)
    run.counts.setdefault(job.env, Counter())[job.stratum] += 1
    run.save_manifest(complete=False)
    append_row(run.out, row)
    return result


def write_extras(out: Path, jpeg: bytes, mask, record: dict) -> None:
    """A frame's target mask (OUT/extras/masks/ENV/ID.png) and its debug overlay (OUT/extras/overlays/ENV/ID.jpg):
    what `export --extras` and `frame --extras` write beside the frame."""
    env, fid = record["environment"], record["frame_id"]
    atomic_write(out / EXTRAS / "masks" / env / f"{fid}.png", debug_images.mask_png(mask), root=out)
    atomic_write(out / EXTRAS / "overlays" / env / f"{fid}.jpg", debug_images.overlay_jpeg(jpeg, mask, record),
                 root=out)


def check_same_presets(recorded, preset_hashes: dict, where,
                       remedy: str = "restore that preset to resume, or export to another --out") -> None:
    """A resume scores its new frames with the presets the set was started with, or not at all: a set never
    holds rows scored under two presets of one environment. `recorded` maps environments to the preset hashes
    a manifest or a row records (a set from before preset hashes records none, and is let be)."""
    if not isinstance(recorded, dict):
        return
    for env, new in preset_hashes.items():
        old = recorded.get(env)
        if old is not None and old != new:
            raise ExportError(f"{where} was exported with another {env} preset (hash {str(old)[:16]}, now {new}); "
                              f"{remedy}")


def row_preset_hash(row: dict):
    """The hash of the preset a row was scored with (None for a row that records none)."""
    versions = row.get("versions")
    return versions.get("preset_hash") if isinstance(versions, dict) else None


def _whole_jpeg(out: Path, name: str) -> bool:
    """OUT/name is a regular file (reached without following a link: safefs.py) and a JPEG from its start
    marker to its end marker (not cut short). A pipe or a link is not a frame, and is never waited on."""
    from .core import safefs
    try:
        with safefs.open_file(out, name, "image") as fh:
            head = fh.read(2)
            fh.seek(-2, 2)
            return head == b"\xff\xd8" and fh.read(2) == b"\xff\xd9"
    except (OSError, SetError):
        return False


def repair_rows(out: Path, config: ExportConfig, presets: dict, config_hash: str) -> list[dict]:
    """Rewrite metadata.jsonl with its good rows only, each byte for byte; return what was dropped and why.

    A row is good when it parses, passes `row_problem` (keys, plain names, a path inside the set), was
    made with this export's settings, fills a slot of this export that no earlier row fills, and its image
    is a whole JPEG. Rows made with other settings stop the repair: the wrong options were given."""
    path = out / METADATA
    parsed, damaged, _ = scan_jsonl(path)
    dropped = [{"line": number, "why": why} for number, why in damaged]
    kept, seen, other_settings = [], {}, 0
    for number, row, raw in parsed:
        problem = row_problem(row, out)
        key = (row.get("environment"), row.get("stratum"), row.get("slot")) if problem is None else None
        if problem is None and row.get("config_hash") != config_hash:
            problem = f"made with other settings (config_hash {str(row.get('config_hash'))[:16]!r})"
            other_settings += 1
        if problem is None and not _in_plan(config, presets, *key):
            problem = f"slot {key[1]} {key[2]} of {key[0]} is not part of this export"
        if problem is None and key in seen:
            problem = f"slot {key[1]} {key[2]} of {key[0]} again (first on line {seen[key]})"
        if problem is None and not _whole_jpeg(out, row["file_name"]):
            problem = f"image {row['file_name']} is missing or cut short"
        if problem is None:
            seen[key] = number
            kept.append(raw)
        else:
            entry = {"line": number, "why": problem}
            if key is not None:
                entry["slot_key"] = SlotStats.key(*key)
            if isinstance(row, dict) and isinstance(row.get("frame_id"), str):
                entry["frame_id"] = row["frame_id"][:120]
            dropped.append(entry)
    if other_settings and not kept:
        raise ExportError(f"no row of {path} was made with these settings (config_hash {config_hash}); repair "
                          "with the export's own options (its manifest.json or command line)")
    if dropped or (path.exists() and path.stat().st_size != sum(len(r) for r in kept)):
        atomic_write(path, b"".join(kept))
    for entry in dropped:
        print(f"repair: dropped {METADATA} line {entry['line']}: {entry['why']}", file=sys.stderr, flush=True)
    return sorted(dropped, key=lambda e: e["line"])


def _in_plan(config: ExportConfig, presets: dict, env, stratum, slot) -> bool:
    return slot in stratum_slots(config, presets, env, stratum)


def write_contact_sheets(out: Path) -> None:
    by_env: dict[str, list] = {}
    for r in read_rows(out):
        by_env.setdefault(r["environment"], []).append((read_image(out, r), r["verdict"]))
    for env, items in by_env.items():
        atomic_write(out / EXTRAS / "contact_sheets" / f"{env}.jpg", debug_images.contact_sheet(items), root=out)


@dataclass
class _SlotJob:
    """One slot to fill: the export's settings, the environment's preset, and the slot's counters (render
    discards, the positive search's tallies, the stages' seconds)."""

    config: ExportConfig
    settings: RenderSettings
    preset: object
    env: str
    stratum: str
    slot: int
    discards: Counter = field(default_factory=Counter)
    search: Counter = field(default_factory=Counter)
    timings: Counter = field(default_factory=Counter)

    def render(self, spec):
        """The frame rendered and measured as `frame` makes it (`pipeline.render_and_measure`)."""
        from .pipeline import SHARED_CACHE, render_and_measure

        result = render_and_measure(spec, self.settings, long_side_px=self.config.long_side_px,
                                    device=self.config.device, preset=self.preset, cache=SHARED_CACHE)
        self.timings.update(result.timings)
        return result

    def measure(self, spec):
        """The frame's geometric terms and verdict, no render (the positive funnel's first stage)."""
        from .pipeline import SHARED_CACHE, run_frame

        result = run_frame(spec, long_side_px=self.config.long_side_px, render=False, preset=self.preset,
                           cache=SHARED_CACHE)
        self.timings["geometric_s"] += result.timings["geometric_s"]
        self.timings["scene_build_s"] += result.timings["scene_build_s"]
        return result


def _random_frame(job: _SlotJob):
    from .pipeline import plan_frame

    indices = [job.slot] + [REPLACEMENT_BASE + job.slot * REPLACEMENTS + k for k in range(REPLACEMENTS)]
    for index in indices:
        result = job.render(plan_frame(job.env, job.config.seed, "random", index))
        if result.discard_reason is None:
            return result
        job.discards[result.discard_reason] += 1
    raise ExportError(f"{job.env} random slot {job.slot}: {REPLACEMENTS + 1} poses in a row failed the render sanity "
                      f"check ({', '.join(f'{k} {v}' for k, v in job.discards.items())}); the draws are "
                      "deterministic, so a rerun fails the same way: use another --seed or check the environment's "
                      "presets")


def _positive_frame(job: _SlotJob):
    from .pipeline import plan_frame

    failing: Counter = Counter()  # which terms turned candidates away, for the message when none passes
    search = job.search
    for k in range(POSITIVE_BLOCK):
        spec = plan_frame(job.env, job.config.seed, "positive", job.slot * POSITIVE_BLOCK + k)
        search["candidates"] += 1
        geometric = job.measure(spec)
        if geometric.frame.verdict not in (Verdict.ACCEPT, Verdict.PENDING) or geometric.discard_reason:
            search["geometric_rejects"] += 1
            failing.update(geometric.frame.failing_terms + geometric.frame.gray_terms)
            continue
        result = job.render(spec)
        search["renders"] += 1
        if result.discard_reason is not None:
            job.discards[result.discard_reason] += 1
            continue
        if result.frame.accepted:
            search["accepted"] += 1
            return result
        search["image_rejects"] += 1
        failing.update(result.frame.failing_terms + result.frame.gray_terms)
    raise ExportError(positive_search_exhausted(job.env, job.slot, job.config.long_side_px, job.preset, search,
                                                failing, features=registry.features(job.env)))


def set_progress(out: Path) -> tuple[int, int]:
    """(frames written, frames expected) of an export in progress, from its manifest; (0, 0) while the manifest
    is unreadable (the export may be rewriting it; a damaged one is the export's error to report)."""
    try:
        manifest = read_manifest(Path(out)) or {}
    except (SetError, OSError):
        return 0, 0
    counts = manifest.get("counts") or {}
    done = sum(counts.get(env, {}).get(stratum, 0) for env in counts for stratum in ("random", "positive"))
    return done, manifest.get("expected_frames", 0)

"""`ratings DIR`: the whole picture of a set's ratings, per environment and over all of them.

The scorer is the set's presets re-applied to each frame's stored measurements, so a preset edit
shows at once. Which presets: those the set was exported with, as its manifest records them
(`config.preset_dirs` searched before the shipped ones; `versions.preset_hashes` per environment),
not silently the shipped ones: `ratings DIR` loads the recorded folders, and when a loaded preset's
hash differs from the recorded one it stops with one line naming the environment and both hashes.
`--presets DIR` chooses the presets explicitly (the report then lists the environments whose preset
differs from the export's). A set without a manifest is scored with the shipped presets, and the
report says so (`presets_source`). Held-out frames stay sealed until
asked for (`held_out=True`); the first time an environment's held-out frames are reported, its
preset hash is recorded as frozen (store.freeze), and figures under any other preset are marked
as no longer clean.
"""
from __future__ import annotations

import math
import statistics
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Iterable, Optional

from ..answers.counting import documentation_counts
from ..core.presets import PresetError
from ..core.rescoring import presets_for, row_verdict
from .agreement import MIN_MAJORITY_RATINGS, rater_agreement, scorer_vs_majority, votes_by_frame
from .errors import RatingsError
from .gray import CLEAR_SHARE, suggest_gray
from .store import RatingStore


class RatedSet:
    """An exported set with its ratings database and presets."""

    def __init__(self, directory, presets: Iterable = ()):
        from ..setio import METADATA, read_rows

        self.directory = Path(directory)
        if not (self.directory / METADATA).is_file():
            raise RatingsError(f"{self.directory} is not an exported set: no {METADATA}")
        try:
            self.rows = {row["frame_id"]: row for row in read_rows(self.directory)}
        except (OSError, ValueError, KeyError) as exc:
            raise RatingsError(f"cannot read {self.directory / METADATA}: {exc}") from None
        if not self.rows:
            raise RatingsError(f"{self.directory / METADATA} holds no frames")
        self.environments = {f: row["environment"] for f, row in self.rows.items()}
        self.store = RatingStore(self.directory, self.environments)
        self.preset_dirs = [Path(p) for p in presets]
        try:
            self.presets = presets_for(self.environments.values(), self.preset_dirs)
        except PresetError as exc:
            raise RatingsError(f"bad preset: {exc}") from None
        self.results, self.verdicts, self.counts_for_documentation = {}, {}, {}
        for f, row in self.rows.items():
            try:
                results, verdict = row_verdict(self.presets[row["environment"]], row)
            except KeyError as exc:
                raise RatingsError(f"frame {f} has no stored {exc.args[0]}; re-export the set") from None
            self.results[f] = {r.name: r for r in results}
            self.verdicts[f] = verdict.verdict.value
            # the harness's one rule (answers/counting.py): raters' documentation counts where models' does
            frame = SimpleNamespace(environment=row["environment"], verdict=verdict.verdict.value,
                                    failing_terms=verdict.failing, gray_terms=verdict.gray,
                                    unscored_reason=verdict.unscored_reason)
            self.counts_for_documentation[f] = documentation_counts(frame)

    def frame_keys(self) -> dict[str, tuple]:
        """frame_id -> the documentation keys the rating page asks for that frame (name, JSON type)."""
        from ..answers.items import documentation_keys

        cache: dict = {}
        return {f: documentation_keys(row["environment"], row.get("ground_truth") or {}, cache)
                for f, row in self.rows.items()}


def export_presets(directory) -> Optional[dict]:
    """What the set's manifest records about the presets it was exported with: {"preset_dirs": [...],
    "preset_hashes": {environment: hash}}; None for a set without a manifest."""
    from ..core.errors import RealityBenchError
    from ..setio import read_manifest

    try:
        manifest = read_manifest(Path(directory))
    except RealityBenchError as exc:
        raise RatingsError(str(exc)) from None
    if manifest is None:
        return None
    config = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
    versions = manifest.get("versions") if isinstance(manifest.get("versions"), dict) else {}
    hashes = versions.get("preset_hashes") if isinstance(versions.get("preset_hashes"), dict) else {}
    dirs = config.get("preset_dirs") if isinstance(config.get("preset_dirs"), (list, tuple)) else []
    return {"preset_dirs": [str(d) for d in dirs], "preset_hashes": {e: h for e, h in hashes.items()
                                                                     if isinstance(h, str)}}


def rated_set(directory, presets: Iterable = ()) -> RatedSet:
    """The rated set scored with the presets it was exported with (the manifest's preset folders), or with
    `presets` when given explicitly; a RatingsError when a loaded preset is not the one the export recorded and
    the presets were not chosen explicitly."""
    explicit = [Path(p) for p in presets]
    recorded = export_presets(directory)
    dirs = explicit or ([Path(d) for d in recorded["preset_dirs"]] if recorded else [])
    rated = RatedSet(directory, dirs)
    hashes = (recorded or {}).get("preset_hashes", {})
    differ = {}
    for env in sorted(set(rated.environments.values())):
        loaded = rated.presets[env].content_hash()
        if env in hashes and hashes[env] != loaded:
            differ[env] = {"exported": hashes[env], "loaded": loaded}
    if differ and not explicit:
        env, h = next(iter(differ.items()))
        where = ("the preset folders the manifest records, " + ", ".join(map(str, dirs)) + ", then the shipped ones"
                 if dirs else "the shipped presets")
        raise RatingsError(f"{rated.directory} was exported with {env} preset {h['exported']}, but {where} give "
                           f"{h['loaded']}: the verdicts would change silently; give the export's preset folder with "
                           f"--presets DIR (or --presets to rescore with other presets on purpose)")
    rated.presets_source = ("--presets" if explicit else "the set's manifest (config.preset_dirs)" if recorded
                            else "shipped (the set has no manifest.json)")
    rated.presets_differ_from_export = differ
    return rated


def _field_score(rated: RatedSet, rating, cache: dict) -> Optional[float]:
    """The mean score of the documentation fields a rater filled in, scored like a model's answers
    (answers/fields.py) on frames whose documentation counts; None elsewhere."""
    if not rating.fields:
        return None
    from ..answers.fields import score_field
    from ..answers.items import documentation_keys

    row = rated.rows[rating.frame_id]
    if not rated.counts_for_documentation[rating.frame_id]:
        return None
    types = dict(documentation_keys(row["environment"], row["ground_truth"], cache))
    scores = [score_field(row["environment"], key, types[key], row["ground_truth"].get(key), value)
              for key, value in rating.fields.items() if key in types]
    return sum(scores) / len(scores) if scores else None


def _per_rater(rated: RatedSet, ratings) -> dict:
    out, cache, by_rater = {}, {}, defaultdict(list)
    for r in ratings:
        by_rater[r.rater].append(r)
    for rater in sorted(by_rater):
        mine = by_rater[rater]
        seconds = [r.seconds for r in mine if r.seconds is not None]
        fields = [x for x in (_field_score(rated, r, cache) for r in mine if r.fields) if x is not None]
        out[rater] = {"ratings": len(mine), "cant_tell": sum(r.answer == "cant_tell" for r in mine),
                      "median_seconds": statistics.median(seconds) if seconds else None,
                      "documentation": {"frames": len(fields),
                                        "mean_field_score": math.fsum(fields) / len(fields) if fields else None}}
    return out


def _group(rated: RatedSet, frames: set[str], mine, votes, split, held_out: bool, freezes: dict,
           min_ratings: int) -> dict:
    """The figures of one group of frames; `mine` are the ratings of those frames."""
    group_votes = {f: v for f, v in votes.items() if f in frames}
    tuning = [f for f in frames if split.get(f) == "tuning"]
    held = [f for f in frames if split.get(f) == "held_out"]
    out = {"rated_frames": len({r.frame_id for r in mine}), "cant_tell": sum(r.answer == "cant_tell" for r in mine),
           **rater_agreement(group_votes),
           "scorer_vs_majority": {"tuning": {"part": "tuning", **scorer_vs_majority(
               group_votes, rated.verdicts, rated.environments, tuning, min_ratings=min_ratings)}}}
    if held_out:
        result = scorer_vs_majority(group_votes, rated.verdicts, rated.environments, held, min_ratings=min_ratings)
        envs = sorted({rated.environments[f] for f in held})
        stale = [e for e in envs if e in freezes and freezes[e]["preset_hash"] != rated.presets[e].content_hash()]
        result.update(part="held_out", clean=not stale,
                      note=(f"the scorer of {', '.join(stale)} changed after its held-out frames were first "
                            f"reported: these are no longer held-out figures" if stale else None))
    else:
        ready = sum(len(group_votes.get(f, {})) >= min_ratings for f in held)
        result = {"part": "held_out", "sealed": True, "frames_with_enough_ratings": ready,
                  "note": "sealed until the scorer is frozen: run `ratings DIR --held-out` to report it once"}
    out["scorer_vs_majority"]["held_out"] = result
    return out


def summarize(rated: RatedSet, *, held_out: bool = False, clear_share: float = CLEAR_SHARE,
              min_ratings: int = MIN_MAJORITY_RATINGS) -> dict:
    all_ratings = rated.store.ratings(ordered=False)  # every figure below is independent of the order
    ratings = [r for r in all_ratings if r.frame_id in rated.rows]
    votes = votes_by_frame(ratings)
    split = rated.store.split()
    freezes = rated.store.freezes()
    environments = sorted({rated.environments[r.frame_id] for r in ratings})
    report = {"set": str(rated.directory), "ratings": len(ratings), "raters": sorted({r.rater for r in ratings}),
              "ratings_of_unknown_frames": len(all_ratings) - len(ratings),
              "split": {part: sum(1 for p in split.values() if p == part) for part in ("tuning", "held_out")},
              "presets": {e: rated.presets[e].content_hash() for e in environments},
              "preset_folders": [str(p) for p in rated.preset_dirs],
              "presets_source": getattr(rated, "presets_source", "--presets" if rated.preset_dirs else "shipped"),
              "presets_differ_from_export": getattr(rated, "presets_differ_from_export", {}),
              "per_rater": _per_rater(rated, ratings), "environments": {}, "gray_suggestions": []}
    frames_of, ratings_of = defaultdict(set), defaultdict(list)  # by environment, in one pass each
    for f, e in rated.environments.items():
        frames_of[e].add(f)
    for r in ratings:
        ratings_of[rated.environments[r.frame_id]].append(r)
    for env in environments:
        frames = frames_of[env]
        report["environments"][env] = _group(rated, frames, ratings_of[env], votes, split, held_out, freezes,
                                             min_ratings)
        tuning = {f: rated.results[f] for f in frames if split.get(f) == "tuning" and f in votes}
        report["gray_suggestions"] += suggest_gray(rated.presets[env], tuning, votes, split, clear_share)
    rated_frames = {r.frame_id for r in ratings}
    report["all"] = _group(rated, rated_frames, ratings, votes, split, held_out, freezes, min_ratings)
    if held_out:
        for env, figures in report["environments"].items():
            held = figures["scorer_vs_majority"]["held_out"]
            if held["frames"] + held["ties_excluded"] + held["scorer_unscored_excluded"]:
                rated.store.freeze(env, rated.presets[env].content_hash())
        report["frozen"] = rated.store.freezes()
    return report


def _fmt(x, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _scorer_cell(figures: dict) -> str:
    if figures.get("sealed"):
        return f"sealed ({figures['frames_with_enough_ratings']})"
    if not figures["frames"]:
        return "–"
    lo, hi = figures["interval"]
    cell = f"{figures['agreement']:.2f} [{lo:.2f}, {hi:.2f}] ({figures['frames']})"
    return cell if figures.get("clean", True) else cell + " not clean"


def to_markdown(report: dict) -> str:
    """The report as Markdown: the paper's Table 13 layout, then the gray suggestions."""
    lines = ["# Human ratings", "",
             f"{report['ratings']} ratings by {len(report['raters'])} raters; split {report['split']['tuning']} "
             f"tuning / {report['split']['held_out']} held-out frames. Agree: raw agreement over rater pairs; "
             "alpha: Krippendorff's alpha (nominal); scorer: agreement with the raters' strict majority on frames "
             "with enough ratings, ties excluded, 95% interval, (frames).", "",
             f"Scorer: the presets of {report.get('presets_source', 'shipped')}" + (
                 "; differing from the export's: " + ", ".join(
                     f"{e} ({h['exported']} exported, {h['loaded']} loaded)"
                     for e, h in report["presets_differ_from_export"].items())
                 if report.get("presets_differ_from_export") else "") + ".", "",
             "| set | frames | raters | ratings/frame | agree | alpha | scorer (tuning) | scorer (held-out) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, g in [*report["environments"].items(), ("all", report["all"])]:
        svm = g["scorer_vs_majority"]
        lines.append(f"| {name} | {g['frames']} | {g['raters']} | {_fmt(g['ratings_per_frame'], 1)} | "
                     f"{_fmt(g['raw_agreement'])} | {_fmt(g['alpha'])} | {_scorer_cell(svm['tuning'])} | "
                     f"{_scorer_cell(svm['held_out'])} |")
    lines += ["", "## Gray ranges suggested from rater splits (tuning frames)", "",
              "| term | now | accepted | rejected | split | suggested |", "|---|---|---|---|---|---|"]
    for s in report["gray_suggestions"]:
        if not (s["accepted_values"] or s["rejected_values"] or s["split_values"]):
            continue
        now = f"{s['comparator']} {s['threshold']}" + (f", gray {list(s['gray'])}" if s["gray"] else "")
        new = (f"{s['comparator']} {s['suggested']['threshold']:g}, gray {s['suggested']['gray']}" if s["suggested"]
               else s["reason"])
        lines.append(f"| {s['environment']}.{s['term']} | {now} | {len(s['accepted_values'])} | "
                     f"{len(s['rejected_values'])} | {len(s['split_values'])} | {new} |")
    return "\n".join(lines) + "\n"

"""The turn loop of closed-loop guidance (`eval guide`), resumable after a kill.

    RUNDIR/run.json        what guided and how: the policy (a model: provider, model, settings, as `eval run`
                           records them; or a baseline), the episode file's sha256, the turns allowed, the render
    RUNDIR/replies.jsonl   every request's reply, as `eval run` stores them (billing, usage, attempts), appended
                           and fsynced as it comes: a reply is never asked for twice
    RUNDIR/turns.jsonl     one line per finished turn (appended and fsynced): the photo shown and its verdict, the
                           reply, the actions as parsed, what the worker did (clamped), the state after, the end
    RUNDIR/renders/ID/photo-T.jpg (+ .json)   the photo of each turn, its verdict beside it

A turn: the photo of the worker's state (rendered once; a rerun reuses the file), the prompt (requirement,
the notes of the last turn's moves, the grammar), the reply (reused from replies.jsonl when there), then the
actions applied and the turn's line. A kill anywhere in a turn leaves no line for it, and the rerun redoes only
what is missing: no turn lost, none doubled. An episode ends at `done` (on the photo then shown), at a reply out
of grammar (counted as the benchmark counts them: a failed episode) or after `turns` replies.
"""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Optional, TextIO

from ..evaluation.errors import EvalError
from ..evaluation.runs import RunStore, now_iso, package_version, request_hash, scrub
from ..setio import append_jsonl, atomic_write, read_jsonl
from .actions import GRAMMAR_WORDS, WorkerState, grammar_schema, parse_actions

TURNS = "turns.jsonl"
EPISODES = "episodes.json"
RENDERS = "renders"
DEFAULT_TURNS = 4
SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,120}$")


def requirement_parts(episode: dict):
    """(the frame's prompt parts: worker, work, requirement; its phone)."""
    from ..envs import registry
    from .simulator import frame_spec

    spec = frame_spec(episode)
    return registry.get(spec.environment).prompt_parts_for(spec.plan, spec.target), spec.phone


def phone_words(phone, state: WorkerState) -> str:
    lenses = ", ".join(k for k in ("main", "ultra_wide", "telephoto") if k == "main" or getattr(phone, k) is not None)
    c = state.capture
    return (f"The phone's cameras: {lenses}; digital zoom up to {phone.max_digital_zoom:g}x. Now: the {c.lens} camera "
            f"at {c.zoom:g}x, held {c.orientation}.")


def turn_prompt(episode: dict, number: int, turn: int, turns: int, history: list, state: WorkerState) -> str:
    """What the model reads with the photo: who and what for, the requirement, where the episode is, what the
    worker did so far (and what was not possible), the phone's cameras, and the grammar."""
    parts, phone = requirement_parts(episode)
    done = "; ".join(f"turn {h['turn']}: " + ", ".join(_said(r) for r in h["applied"]) for h in history
                     if h.get("applied")) or "nothing yet"
    notes = [r["note"] for r in (history[-1]["applied"] if history else []) if r.get("note")]
    return (f"You are guiding {parts.worker} by phone. The worker is taking a photo as proof of {parts.work}. "
            f"The photo must meet this requirement: {parts.requirement}\n"
            f"Episode {number}, photo {turn} of at most {turns}: the attached photo is what the phone shows now. "
            f"The worker has done: {done}. {phone_words(phone, state)}\n"
            + (f"Not everything could be done: {' '.join(notes)}\n" if notes else "")
            + "Tell the worker what to do next, or say done if this photo meets the requirement. Reply with exactly "
              "one JSON object and nothing else: no prose, no code fence. Its only key is \"actions\", a list of 1 "
              "to 8 actions done in order, each one of:\n" + GRAMMAR_WORDS
            + "\nThe reply's JSON schema: " + json.dumps(grammar_schema(), separators=(",", ":")))


def _said(record: dict) -> str:
    a = record["action"]
    amount = next((f" {a[k]:g} {k}" for k in ("m", "deg") if k in a), "")
    extra = "".join(f" {a[k]}" for k in ("lens", "zoom", "orientation") if k in a)
    return f"{a['do']}{amount}{extra}" + ("" if record["done_share"] >= 1.0 else
                                          f" ({record['done_share']:.0%} of it possible)")


class TurnStore:
    """turns.jsonl and the renders of a guide run."""

    def __init__(self, store: RunStore):
        self.store = store
        self.dir = store.dir

    def turns(self) -> dict:
        """episode id -> {turn number: its first line}."""
        out: dict = {}
        for row in read_jsonl(self.dir / TURNS, repair=True):
            if isinstance(row, dict) and isinstance(row.get("turn"), int):
                out.setdefault(row.get("episode"), {}).setdefault(row["turn"], row)
        return out

    def append(self, row: dict) -> None:
        append_jsonl(self.dir / TURNS, scrub(row, self.store.secrets))

    def photo(self, episode: dict, turn: int, state: WorkerState, make) -> tuple[bytes, dict]:
        """The photo of `turn` in `state`: read back when this run rendered it for the same state, else `make()`
        (the simulator's render) and kept, the JPEG first and then its record (so a record means a whole JPEG)."""
        folder = self.dir / RENDERS / episode["id"]
        jpg, meta = folder / f"photo-{turn}.jpg", folder / f"photo-{turn}.json"
        kept = _kept_photo(jpg, meta)
        if kept is not None and kept[1].get("state") == state.to_dict() and _sha(kept[0]) == kept[1].get("sha256"):
            return kept
        shot = make()
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(jpg, shot["jpeg"])
        info = {k: v for k, v in shot.items() if k != "jpeg"}
        info.update(state=state.to_dict(), file=f"{RENDERS}/{episode['id']}/photo-{turn}.jpg")
        atomic_write(meta, (json.dumps(info, sort_keys=True) + "\n").encode())
        return shot["jpeg"], info


def _kept_photo(jpg: Path, meta: Path) -> Optional[tuple[bytes, dict]]:
    """A kept photo and its record, read through the guarded file and JSON layer; None when either is missing,
    damaged or not a record (a run folder may come from elsewhere): the turn then renders it again."""
    from ..core import safefs
    from ..core.errors import RealityBenchError
    from ..core.safe_parse import loads_json

    try:
        info = loads_json(safefs.read_path(meta, "json"), max_bytes=safefs.CAPS["json"])
        data = safefs.read_path(jpg, "image")
    except (OSError, RealityBenchError):
        return None
    return (data, info) if isinstance(info, dict) else None


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def open_run(out_dir, config: dict, secrets=()) -> RunStore:
    """The run folder, created or resumed; a folder of another episode file, turn count, render or policy is
    refused (the RunStore refuses the rest)."""
    store = RunStore(out_dir, secrets=secrets)
    if store.exists():
        old = store.read_config()
        if old.get("kind") != "guide":
            raise EvalError(f"{out_dir} holds a run that is not a guide run; use another --out")
        for key in ("guide", "policy"):
            if json.dumps(old.get(key), sort_keys=True) != json.dumps(config.get(key), sort_keys=True):
                raise EvalError(f"{out_dir} holds a guide run made with another {key} ({_differs(old.get(key), config.get(key))}); "
                                f"use another --out")
    store.open(config)
    return store


def _differs(old, new) -> str:
    if isinstance(old, dict) and isinstance(new, dict):
        keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
        if keys:
            return f"{keys[0]}: run has {json.dumps(old.get(keys[0]))}, now {json.dumps(new.get(keys[0]))}"
    return f"run has {json.dumps(old)}, now {json.dumps(new)}"


def guide_config(policy, episodes_sha: str, turns: int, long_side_px: int, settings) -> dict:
    return {"kind": "guide", "label": policy.label, "provider": policy.provider, "model": policy.model,
            "base_url": policy.base_url, "settings": policy.settings, "baseline": policy.baseline, "variant": None,
            "policy": policy.identity(),
            "guide": {"episodes_sha256": episodes_sha, "turns": turns, "long_side_px": long_side_px,
                      "render": settings.to_dict()},
            "transport": policy.transport, "auth": policy.auth, "created": now_iso(),
            "package_version": package_version()}


def run_episodes(episodes: dict, episodes_sha: str, out_dir, policy, *, turns: int = DEFAULT_TURNS, settings=None,
                 long_side_px: Optional[int] = None, device: str = "cpu",
                 progress: Optional[TextIO] = sys.stderr) -> dict:
    """Guide every episode not yet ended, turn by turn; returns this invocation's counts. The episode list is kept
    in the run folder (episodes.json), so its report needs nothing else."""
    from .episodes import canonical_bytes

    from ..core.render_settings import RenderSettings

    if not 1 <= turns <= 20:
        raise EvalError(f"--turns must be within 1-20, got {turns}")
    settings = settings or RenderSettings()
    long_side_px = long_side_px or int(episodes.get("long_side_px") or 1600)
    for e in episodes["episodes"]:
        if not SAFE_ID.match(str(e["id"])):
            raise EvalError(f"episode id {str(e['id'])[:80]!r} is not a plain name")
    store = open_run(out_dir, guide_config(policy, episodes_sha, turns, long_side_px, settings), policy.secrets)
    turn_store = TurnStore(store)
    if not (store.dir / EPISODES).exists():
        atomic_write(store.dir / EPISODES, canonical_bytes(episodes))
    counts = {"episodes": len(episodes["episodes"]), "already_ended": 0, "turns_asked": 0, "replies_reused": 0,
              "renders": 0, "failed": 0}
    t0 = time.monotonic()
    for number, episode in enumerate(episodes["episodes"], 1):
        ended = _episode(turn_store, policy, episode, number, turns, settings, long_side_px, device, counts,
                         progress)
        counts["already_ended"] += ended == "already"
    counts["wall_s"] = round(time.monotonic() - t0, 3)
    return counts


def _episode(turn_store: TurnStore, policy, episode: dict, number: int, turns: int, settings, long_side_px: int,
             device: str, counts: dict, progress) -> str:
    from . import simulator

    done_turns = turn_store.turns().get(episode["id"], {})
    history = [done_turns[t] for t in sorted(done_turns)]
    if history and history[-1].get("end"):
        return "already"
    state = WorkerState.from_dict(history[-1]["state_after"] if history else episode["start"]["state"])
    for turn in range(len(history) + 1, turns + 1):
        def make(state=state):
            counts["renders"] += 1
            return simulator.render(episode, state, settings, long_side_px, device)
        photo, info = turn_store.photo(episode, turn, state, make)
        prompt = turn_prompt(episode, number, turn, turns, history, state)
        h = request_hash(policy.provider or "baseline", policy.model or policy.baseline, policy.settings or {},
                         prompt, info["sha256"], blind_item=f"{episode['id']}#{turn}")
        reply = turn_store.store.read_replies().get(h)
        if reply is not None and reply.get("status") == "ok":
            counts["replies_reused"] += 1
        else:
            reply = policy.ask(episode, turn, turns, prompt, photo, h, history)
            turn_store.store.append_reply(reply)
            counts["turns_asked"] += 1
            if reply.get("status") != "ok":
                counts["failed"] += 1
                policy.check_fatal(reply)
                _say(progress, f"[{number}] {episode['id']} turn {turn}: failed: {reply.get('error')}", turn_store)
                return "failed"
        line = _turn_line(episode, turn, turns, state, info, reply, h)
        if line["in_grammar"] and not line["done"]:
            state, records, walked = simulator.move(episode, state, line["actions"])
            line.update(applied=records, walked_m=walked)
        line["state_after"] = state.to_dict()
        turn_store.append(line)
        history.append(line)
        _say(progress, f"[{number}] {episode['id']} turn {turn}: photo {info['verdict']}, "
                       + ("done" if line["done"] else f"out of grammar ({line['grammar_problem']})"
                          if not line["in_grammar"] else f"{len(line['actions'])} actions")
                       + (f"; ended: {line['end']}" if line["end"] else ""), turn_store)
        if line["end"]:
            return line["end"]
    return "open"


def _turn_line(episode: dict, turn: int, turns: int, state: WorkerState, info: dict, reply: dict, h: str) -> dict:
    parsed = parse_actions(reply.get("reply_text"))
    end = "done" if parsed.done else "out_of_grammar" if not parsed.in_grammar else \
        "turns_spent" if turn == turns else None
    return {"episode": episode["id"], "environment": episode["environment"], "turn": turn,
            "photo": info["file"], "photo_sha256": info["sha256"], "verdict": info["verdict"],
            "accepted": bool(info["accepted"]), "failing_terms": info["failing_terms"],
            "render_s": info.get("render_s"), "request_hash": h, "in_grammar": parsed.in_grammar,
            "grammar_problem": parsed.problem, "actions": list(parsed.actions), "done": parsed.done,
            "applied": [], "walked_m": 0.0, "state_before": state.to_dict(), "end": end, "at": now_iso()}


def _say(progress, line: str, turn_store: TurnStore) -> None:
    if progress is not None:
        progress.write(scrub(line, turn_store.store.secrets) + "\n")
        progress.flush()


def read_run(run_dir) -> tuple[dict, dict, list]:
    """(run.json, episode id -> its turn lines in order, the reply lines) of a guide run folder."""
    store = RunStore(run_dir)
    config = store.read_config()
    if config.get("kind") != "guide":
        raise EvalError(f"{run_dir} is not a guide run (its run.json kind is {config.get('kind')!r})")
    by_episode = {k: [v[t] for t in sorted(v)] for k, v in TurnStore(store).turns().items()}
    return config, by_episode, store.reply_lines() if (Path(run_dir) / "replies.jsonl").exists() else []

"""Make an `eval report`, figures included, without Blender or any model API.

    .venv/bin/python scripts/eval_report_figures.py out/eval-figures

builds a small synthetic set over every environment (tests/eval_support.py's `make_set`: tiny JPEGs and
metadata.jsonl, no render), asks it of six scripted models over HTTP (tests/eval_support.py's `ScriptedServer`
on 127.0.0.1, one server per model, started and stopped here; the OpenAI, Anthropic and Gemini shapes), writes
both baselines (always accept, always reject), a price file, and then runs

    python -m realitybench_addon eval report RUNS... --prices OUT/prices.toml --out OUT/report

The scripted models differ in answer quality (how often their verdict agrees with the scorer, how often each
skill's fields are right, how often they answer out of grammar) and in price, so the report's tables, the cost
plots (points, baseline levels, ensemble stars) and the per-field heat map all have something to show. Every
answer is drawn from a seeded hash of (model, frame), so two runs of this script write the same report.

OUT gets set/, runs/<model>/, prices.toml and report/ (the figures are report/*.png). OUT must be new, empty, or
a folder this script made before (it is then rebuilt from scratch).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from eval_support import ENVIRONMENT_RULE, ScriptedServer, frame, make_set

MARKER = ".eval_report_figures"
RANDOM_PER_ENV = 6  # random frames per environment (half accepted, half rejected), plus one positive frame

# ---- the set -----------------------------------------------------------------------------------------------------

BRANDS = ["Sunvolt", "Helion", "Corvex", "Amprise", "Lumera", "Solvane", "Tessar"]
STATES = ["OHIO", "TEXAS", "OREGON", "MAINE", "IOWA", "UTAH", "NEVADA"]
SIDES = ["front", "rear", "driver", "passenger"]
BODIES = ["sedan", "suv", "crossover", "pickup", "hatchback", "coupe", "wagon", "minivan", "van", "convertible"]
SEVERITIES = ["minor", "moderate", "severe"]
DAMAGE = ["dent", "scratch", "rust"]
EQUIPMENT = ["module", "microinverter", "inverter"]
CIRCUITS = ["DRYER", "KITCHEN COUNTER", "LIGHTS", "GARAGE", "WASHER", "FURNACE", "BATH", "RANGE"]
CATEGORIES = {("car_view", "side"): SIDES, ("car_view", "body_style"): BODIES, ("ro_board", "body_style"): BODIES,
              ("damage_view", "severity"): SEVERITIES, ("equipment_label", "on"): EQUIPMENT}


def truth(env: str, i: int, rng: random.Random) -> dict:
    """A plausible ground truth for frame i of an environment (every key its prompt asks)."""
    if env == "tape_gap":
        reading = 3.0 + 0.25 * rng.randrange(12)
        return {"reading_in": reading, "gap_in": round(reading * 1.04, 4), "tilted": rng.random() < 0.3}
    if env == "rail_attachment":
        return {"lag_present": True, "flashing_present": rng.random() < 0.8}
    if env == "slope_gauge":
        return {"reading_deg": round(rng.uniform(8, 40), 1), "on_module": rng.random() < 0.7}
    if env == "equipment_label":
        return {"brand": rng.choice(BRANDS), "model": f"SV-{rng.randrange(200, 500)}M",
                "serial": "".join(rng.choice("ABCDEFGH0123456789") for _ in range(8)), "on": rng.choice(EQUIPMENT)}
    if env == "breaker_label":
        return {"main_amps": rng.choice([100, 150, 200]),
                "entries": [{"name": c, "amps": rng.choice([15, 20, 30])} for c in rng.sample(CIRCUITS, 4)]}
    if env == "damage_view":
        return {"damage_types": sorted(rng.sample(DAMAGE, rng.randrange(1, 3))), "severity": rng.choice(SEVERITIES)}
    if env == "car_view":
        return {"side": rng.choice(SIDES), "body_style": rng.choice(BODIES)}
    if env == "horizon_peak":
        return {"horizon_visible": rng.random() < 0.7, "level": rng.random() < 0.6, "own_roof_blocks": rng.random() < 0.3}
    if env == "wire_adequacy":
        return {"touching": rng.random() < 0.4}
    if env == "ro_board":
        return {"ro": str(rng.randrange(10000, 99999)),
                "vin": "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(17)),
                "body_style": rng.choice(BODIES)}
    if env == "car_plate":
        return {"plate": f"{rng.choice('ABCDEFG')}{rng.choice('HJKLMNP')}{rng.choice('RSTUVWX')}{rng.randrange(1000, 9999)}",
                "state": rng.choice(STATES)}
    raise ValueError(env)


ENVIRONMENTS = ("tape_gap", "rail_attachment", "slope_gauge", "equipment_label", "breaker_label", "damage_view",
                "car_view", "horizon_peak", "wire_adequacy", "ro_board", "car_plate")


def set_frames() -> list[dict]:
    """Every environment: RANDOM_PER_ENV random frames (alternately accepted and rejected by the scorer; car_plate's
    unscored by its environment) and one positive frame; one gray tape frame and one rail attachment without its lag
    bolt (left out of acceptability by the scene rule). `answer` is filled in per model below."""
    rng = random.Random(20250101)
    frames = []
    for env in ENVIRONMENTS:
        for i in range(RANDOM_PER_ENV):
            t = truth(env, i, rng)
            if env == "car_plate":
                frames.append(frame(env, "random", i, "unscored", t, None,
                                    failing=[] if i % 2 == 0 else ["plate_px_per_char"], reason=ENVIRONMENT_RULE))
            else:
                frames.append(frame(env, "random", i, "accept" if i % 2 == 0 else "reject", t, None))
        if env == "car_plate":
            continue  # no positive stratum: the scorer does not judge plates
        frames.append(frame(env, "positive", RANDOM_PER_ENV, "accept", truth(env, RANDOM_PER_ENV, rng), None))
    frames.append(frame("tape_gap", "random", RANDOM_PER_ENV + 1, "gray", truth("tape_gap", 0, rng), None))
    frames.append(frame("rail_attachment", "random", RANDOM_PER_ENV + 1, "unscored",
                        {"lag_present": False, "flashing_present": True}, None))
    return frames


# ---- the scripted models -----------------------------------------------------------------------------------------

SKILL = {"reading": ("main_amps", "entries", "plate", "state", "brand", "model", "serial", "ro", "vin", "reading_deg"),
         "measurement": ("reading_in", "gap_in")}


def skill_of(key: str) -> str:
    return next((s for s, keys in SKILL.items() if key in keys), "judgment")


# label, provider, model, blind, P(verdict agrees with the scorer), P(a field is right) per skill,
# P(reply out of grammar), price in / out per million tokens
MODELS = [
    ("atlas-4-xl", "openai", "atlas-4-xl", False, 0.92,
     {"reading": 0.92, "judgment": 0.85, "measurement": 0.75}, 0.0, (10.00, 40.00)),
    ("borealis-3-pro", "anthropic", "borealis-3-pro", False, 0.84,
     {"reading": 0.90, "judgment": 0.60, "measurement": 0.35}, 0.0, (3.00, 15.00)),
    ("cirrus-2-flash", "gemini", "cirrus-2-flash", False, 0.76,
     {"reading": 0.62, "judgment": 0.72, "measurement": 0.50}, 0.03, (0.30, 2.50)),
    ("drift-mini", "openai", "drift-mini", False, 0.64,
     {"reading": 0.40, "judgment": 0.55, "measurement": 0.20}, 0.15, (0.15, 0.60)),
    ("ember-nano", "openai", "ember-nano", False, 0.52,
     {"reading": 0.15, "judgment": 0.45, "measurement": 0.08}, 0.05, (0.05, 0.40)),
    ("atlas-4-xl (blind)", "openai", "atlas-4-xl", True, 0.50,
     {"reading": 0.02, "judgment": 0.50, "measurement": 0.05}, 0.0, (10.00, 40.00)),
]


def wrong(env: str, key: str, value, rng: random.Random):
    """A wrong answer of the key's type (outside every tolerance; breaker rows half right)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return round(value + rng.choice([-1, 1]) * rng.uniform(1.0, 6.0), 2)
    if (env, key) in CATEGORIES:
        return rng.choice([c for c in CATEGORIES[(env, key)] if c != value])
    if key == "damage_types":
        other = [d for d in DAMAGE if d not in value]
        return sorted(value[1:] + other[:1]) if len(value) > 1 else sorted(value + other[:1])
    if key == "entries":
        return [dict(r) for r in value[: len(value) // 2]] + [{"name": "SPARE", "amps": 20}]
    if isinstance(value, str):
        return value[:-1] + ("7" if value[-1] != "7" else "4")
    raise TypeError((env, key, value))


def answer(model: str, skills: dict, agree: float, fr: dict) -> dict:
    rng = random.Random(f"{model}|{fr['frame_id']}")
    scorer_accepts = fr["verdict"] == "accept"
    if fr["verdict"] in ("accept", "reject"):
        adequate = scorer_accepts if rng.random() < agree else not scorer_accepts
    else:
        adequate = rng.random() < 0.5
    out = {"adequate": adequate}
    for key, value in fr["truth"].items():
        right = rng.random() < skills[skill_of(key)]
        out[key] = value if right else wrong(fr["environment"], key, value, rng)
    return out


# ---- running it ----------------------------------------------------------------------------------------------------

def cli(*args) -> dict:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=REPO, check=False,
                          env={**os.environ, "PYTHONPATH": path}, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"error: `{' '.join(map(str, args[:2]))}` failed (exit {done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout) if done.stdout.strip() else {}


def prepare(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            sys.exit(f"error: {out} is a file, not a folder")
        if any(out.iterdir()) and not (out / MARKER).exists():
            sys.exit(f"error: {out} is not empty and was not made by this script; give a new folder")
        for name in ("set", "runs", "report", "prices.toml"):
            p = out / name
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("made by scripts/eval_report_figures.py; rerunning it rebuilds this folder\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write (set, runs, prices and the report)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    prepare(out)
    frames = set_frames()
    set_dir = make_set(out / "set", frames)
    print(f"set: {len(frames)} frames over {len(ENVIRONMENTS)} environments in {set_dir}", file=sys.stderr)

    run_dirs = []
    for label, provider, model, blind, agree, skills, off_grammar, _ in MODELS:
        answers, script = {}, {}
        for fr in frames:
            answers[fr["frame_id"]] = answer(label, skills, agree, fr)
            if random.Random(f"grammar|{label}|{fr['frame_id']}").random() < off_grammar:
                script[fr["frame_id"]] = ["prose"]  # the JSON wrapped in prose: out of grammar
        run_dir = out / "runs" / label.replace(" ", "-").replace("(", "").replace(")", "")
        with ScriptedServer(answers, script) as server:  # a fresh server per model, stopped on leaving
            base = server.url + {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]
            head = cli("eval", "run", set_dir, "--provider", provider, "--model", model, "--base-url", base,
                       "--no-api-key", "--label", label, *(["--blind"] if blind else []), "--out", run_dir)
        print(f"{label}: F1 {head['f1']['value']:.3f}, documentation {head['documentation']['value']:.3f}",
              file=sys.stderr)
        run_dirs.append(run_dir)
    for kind in ("always-accept", "always-reject"):
        cli("eval", "baseline", set_dir, "--kind", kind, "--out", out / "runs" / kind)
        run_dirs.append(out / "runs" / kind)

    prices = out / "prices.toml"
    seen = {}
    for _, provider, model, _, _, _, _, (p_in, p_out) in MODELS:
        seen[(provider, model)] = (p_in, p_out)
    prices.write_text('currency = "USD"\n' + "".join(
        f'\n[[price]]\nmodel = "{m}"\nprovider = "{p}"\ninput = {i}\noutput = {o}\n'
        f'source = "made up for scripts/eval_report_figures.py"\ndate = "2025-01-01"\n'
        for (p, m), (i, o) in seen.items()))

    report = cli("eval", "report", *run_dirs, "--prices", prices, "--out", out / "report")
    figures = sorted((out / "report").glob("*.png"))
    print(json.dumps({"out": str(out), "report": str(out / "report" / "report.md"),
                      "figures": [str(f) for f in figures], "plots_skipped": report.get("plots", {}).get("skipped")},
                     indent=2))
    return 0 if figures else 1


if __name__ == "__main__":
    sys.exit(main())

"""The set's Hugging Face dataset card: `README.md` at the set's root, so the set loads by config name.

    datasets.load_dataset("out/set")                      every frame (the `default` config)
    datasets.load_dataset("out/set", "tape_gap")          one environment
    datasets.load_dataset("out/set", "tape_gap-positive") one environment's stratum

and a set uploaded to the Hub as it lies on disk loads the same way by its repository's name
(docs/export.md, "Publishing a set"). The card's YAML header holds the licence, task categories,
pretty name, size category, one config per environment and per environment-and-stratum, and the
features; the text under it gives the counts, how the set was made and the paper to cite.

How the configs select rows: the set keeps one `metadata.jsonl` at its root, and `datasets`' folder
loader makes its examples from the metadata rows, not from the image files it is given. So every
config names the same `metadata.jsonl` plus the images of its environment (which a Hub download
needs beside the metadata), and selects its rows with the loader's `filters` on the `environment`
and `stratum` columns. No file is added to the set but `README.md`.

`export` writes the card when it stops (complete or not: the counts are the rows so far) and `merge`
when it has joined shards; each rewrites it from `manifest.json` and `metadata.jsonl`. A `README.md`
that this module did not write (no MARKER in it) is left alone. Pure: no bpy, no `datasets`, no yaml
(the header is written by a small emitter here and read back by `yaml` and `datasets` in the tests).
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Optional

from .version import __version__
from .core import safefs
from .setio import METADATA, SetError, atomic_write, read_manifest, read_rows

CARD = "README.md"
MARKER = ("<!-- realitybench: written by `export` and `merge` from manifest.json and metadata.jsonl, "
          "and rewritten by them; edit it once the set is final -->")
LICENSE = "gpl-3.0"  # the project's licence (pyproject.toml: GPL-3.0-or-later), in the Hub's identifiers
LICENSE_TEXT = "GPL-3.0-or-later"
TASK_CATEGORIES = ("image-classification", "visual-question-answering")
STRATA_ORDER = ("random", "positive")
# `datasets` reads metadata.jsonl in chunks of this size and takes the columns from the first chunk.
ARROW_CHUNK_BYTES = 10 << 20
PAPER_TITLE = ("RealityBench: Simulated Environments to Evaluate a Vision Language Model's Ability to "
               "Document Human Physical Work")
PAPER_AUTHORS = ("Andrew Perrault", "Anmol Takiar", "Dominik Wienecki", "Arnab Nandi")
PAPER_ARXIV = "2610.14397"
PAPER_SET = "https://huggingface.co/datasets/relantic/realitybench"
BIBTEX = f"""@misc{{perrault2026realitybench,
  title         = {{{PAPER_TITLE}}},
  author        = {{{' and '.join(', '.join(reversed(a.split(' ', 1))) for a in PAPER_AUTHORS)}}},
  year          = {{2026}},
  eprint        = {{{PAPER_ARXIV}}},
  archivePrefix = {{arXiv}},
  url           = {{https://arxiv.org/abs/{PAPER_ARXIV}}}
}}"""

# What each top-level column of a row holds (docs/export.md, "On disk", names them too).
COLUMNS = {
    "image": "the phone JPEG (`file_name` in metadata.jsonl: ENVIRONMENT/FRAME_ID.jpg)",
    "slot": "the frame's slot in its stratum",
    "frame_id": "the frame's id; `python -m realitybench_addon frame --id ID --out DIR` rebuilds it",
    "environment": "the environment (one of the configs)",
    "stratum": "`random` (field poses) or `positive` (scorer-accepted frames)",
    "set_seed": "the export's --seed",
    "index": "the stream index the frame was built from",
    "scene_index": "the scene the frame was taken in",
    "target": "which object of the scene the requirement is about",
    "scene": "the environment's summary of the scene",
    "phone": "the phone's lenses",
    "capture": "lens, zoom, orientation, hand shake, shutter",
    "camera": "camera settings, pose and camera-to-world matrix",
    "postprocess": "white balance, exposure, noise, JPEG quality",
    "render": "Cycles' settings and the resolution",
    "terms": "every scorer term by name: value, threshold, unit, gray range, outcome",
    "measurements": "the raw measurements the terms read",
    "verdict": "the scorer's verdict: `accept`, `reject`, `gray`, `unscored` or `pending`",
    "scored": "whether the frame is scored for acceptability",
    "failing_terms": "the terms that failed",
    "gray_terms": "the terms in their gray range",
    "unscored_reason": "why a frame is not scored, or null",
    "ground_truth": "the documentation answers from the scene",
    "prompt": "the question put to a model",
    "versions": "package, Blender and preset versions",
    "config_hash": "the export settings' hash (manifest.json)",
}


class TypeConflict(Exception):
    """Two rows hold values of different kinds in one column: Arrow cannot read the log as one table."""


# ---------------------------------------------------------------- features: Arrow's JSON inference

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?\Z")


def _kind(value):
    """The Arrow type pyarrow's JSON reader infers for one JSON value, as a small tree."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64" if math.isfinite(value) else "null"  # the export writes NaN as null
    if isinstance(value, str):
        return "timestamp[s]" if _DATE.match(value) else "string"
    if isinstance(value, (list, tuple)):
        item = "null"
        for v in value:
            item = _merge(item, _kind(v), "[]")
        return ("list", item)
    if isinstance(value, dict):
        return ("struct", {str(k): _kind(v) for k, v in value.items()})
    raise TypeConflict(f"a {type(value).__name__} value")


def _merge(a, b, where: str, conflicts: Optional[list] = None):
    """The type both rows' values fit, as Arrow promotes them (null to anything, int64 to float64). Kinds that
    Arrow cannot join are a TypeConflict, or with `conflicts` one line there each (the first kind kept)."""
    if a == "null":
        return b
    if b == "null" or a == b:
        return a
    if isinstance(a, str) and isinstance(b, str) and {a, b} in ({"int64", "float64"}, {"string", "timestamp[s]"}):
        return "float64" if "float64" in (a, b) else "string"
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "list":
        return ("list", _merge(a[1], b[1], where + "[]", conflicts))
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "struct":
        fields = dict(a[1])
        for key, kind in b[1].items():
            fields[key] = _merge(fields[key], kind, f"{where}.{key}", conflicts) if key in fields else kind
        return ("struct", fields)
    problem = f"{where.lstrip('.')} is {_describe(a)} in some rows and {_describe(b)} in others"
    if conflicts is None:
        raise TypeConflict(problem)
    if problem not in conflicts:
        conflicts.append(problem)
    return a


def _describe(kind) -> str:
    return kind if isinstance(kind, str) else kind[0]


def infer_features(rows: list[dict]) -> tuple[list[dict], list[str]]:
    """The columns `datasets` reads from these rows, in the card's YAML form (`file_name` becomes `image`), and
    the columns whose rows disagree in kind (Arrow refuses such a log: no `datasets` config loads then)."""
    table, conflicts = ("struct", {}), []
    for row in rows:
        table = _merge(table, _kind(row), "", conflicts)
    features = [_yaml_field("image" if name == "file_name" else name, "image" if name == "file_name" else kind)
                for name, kind in table[1].items()]
    return features, conflicts


def _yaml_type(kind) -> dict:
    if isinstance(kind, str):
        return {"dtype": kind}
    if kind[0] == "struct":
        return {"struct": [_yaml_field(name, k) for name, k in kind[1].items()]}
    inner = _yaml_type(kind[1])
    # the Hub's short forms: `list: float64` for a list of values, `list: [fields]` for a list of structs
    return {"list": inner.get("dtype", inner.get("struct", inner))}


def _yaml_field(name: str, kind) -> dict:
    return {"name": name, **_yaml_type(kind)}


# ---------------------------------------------------------------- configs

def environments_in(rows: list[dict], manifest: Optional[dict]) -> dict[str, dict[str, int]]:
    """Environment -> stratum -> frames, for the environments and strata the rows hold, in the export's order."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        strata = counts.setdefault(row["environment"], {})
        strata[row["stratum"]] = strata.get(row["stratum"], 0) + 1
    order = list((manifest or {}).get("config", {}).get("environments", []) or [])
    ordered = [e for e in order if e in counts] + sorted(e for e in counts if e not in order)
    return {env: {s: counts[env][s] for s in _strata_order(counts[env])} for env in ordered}


def _strata_order(strata) -> list[str]:
    return [s for s in STRATA_ORDER if s in strata] + sorted(s for s in strata if s not in STRATA_ORDER)


def config_name(environment: str, stratum: Optional[str] = None) -> str:
    return environment if stratum is None else f"{environment}-{stratum}"


def card_configs(counts: dict[str, dict[str, int]]) -> list[dict]:
    """`default` (every frame), then per environment: the environment, and each of its strata."""
    configs = [{"config_name": "default", "default": True,
                "data_files": [METADATA, *(f"{env}/*.jpg" for env in counts)]}]
    for env, strata in counts.items():
        files = [METADATA, f"{env}/*.jpg"]
        configs.append({"config_name": config_name(env), "data_files": files,
                        "filters": [["environment", "==", env]]})
        for stratum in strata:
            configs.append({"config_name": config_name(env, stratum), "data_files": files,
                            "filters": [["environment", "==", env], ["stratum", "==", stratum]]})
    return configs


def size_category(frames: int) -> str:
    """The Hub's size bucket for a number of examples."""
    bounds = (("n<1K", 1_000), ("1K<n<10K", 10_000), ("10K<n<100K", 100_000), ("100K<n<1M", 1_000_000),
              ("1M<n<10M", 10_000_000), ("10M<n<100M", 100_000_000), ("100M<n<1B", 1_000_000_000))
    for name, upper in bounds:
        if frames < upper:
            return name
    return "n>1B" if frames < 10_000_000_000 else "n>1T"


# ---------------------------------------------------------------- a small YAML emitter (block style)

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _scalar(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _YAML_WORDS:
        return text
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


def _key(key) -> str:
    key = str(key)
    return key if _PLAIN.match(key) and key.lower() not in _YAML_WORDS else json.dumps(key)


def to_yaml(value, indent: int = 0) -> list[str]:
    """Block-style YAML lines for dicts, lists and scalars (a list inside a mapping sits at its key's column)."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{_key(key)}:")
                lines.extend(to_yaml(item, indent + (0 if isinstance(item, list) else 2)))
            else:
                lines.append(f"{pad}{_key(key)}: {_empty(item) if isinstance(item, (dict, list)) else _scalar(item)}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)) and item:
                inner = to_yaml(item, indent + 2)
                lines.append(f"{pad}- {inner[0][indent + 2:]}")
                lines.extend(inner[1:])
            else:
                lines.append(f"{pad}- {_empty(item) if isinstance(item, (dict, list)) else _scalar(item)}")
    else:
        lines.append(pad + _scalar(value))
    return lines


def _empty(value) -> str:
    return "{}" if isinstance(value, dict) else "[]"


# ---------------------------------------------------------------- the card

def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def card_header(manifest: Optional[dict], rows: list[dict]) -> tuple[dict, list[str]]:
    """The YAML header's data, and the columns whose rows disagree in kind (then the features are left out)."""
    seed = _dict(_dict(manifest).get("config")).get("seed")
    header = {
        "pretty_name": "RealityBench rendered set" + (f" (seed {seed})" if isinstance(seed, int) else ""),
        "license": LICENSE,
        "task_categories": list(TASK_CATEGORIES),
        "language": ["en"],
        "tags": ["synthetic", "blender", "rendered", "proof-of-work", "vision-language-models", "realitybench"],
        "size_categories": [size_category(len(rows))],
    }
    if not rows:
        return header, []
    header["configs"] = card_configs(environments_in(rows, manifest))
    features, conflicts = infer_features(rows)
    if not conflicts:
        header["dataset_info"] = {"config_name": "default", "features": features}
    return header, conflicts


def render_card(manifest: Optional[dict], rows: list[dict], metadata_bytes: int = 0) -> str:
    """The whole README.md: YAML header, then the set in words. `metadata_bytes`: the size of metadata.jsonl
    (over ARROW_CHUNK_BYTES the card says how to load every column)."""
    header, conflicts = card_header(manifest, rows)
    manifest = _dict(manifest)
    config = _dict(manifest.get("config"))
    counts = environments_in(rows, manifest)
    expected = manifest.get("expected_frames")
    shard = config.get("shard")
    version = _dict(manifest.get("versions")).get("realitybench", __version__)
    out = ["---", *to_yaml(header), "---", MARKER, "", f"# {header['pretty_name']}", ""]
    out += [f"Rendered frames of the [RealityBench](https://arxiv.org/abs/{PAPER_ARXIV}) environments, exported by "
            f"`realitybench` {version}: phone photos of rooftop solar and vehicle repair work, each with the "
            "scorer's acceptability verdict and its terms, the documentation ground truth and the question put "
            "to a model. Every frame rebuilds from its `frame_id`. The paper's own set (1,378 frames) is "
            f"published at <{PAPER_SET}>; this set is another draw from the same environments.", ""]
    if manifest.get("complete") is not True:
        so_far = f"{len(rows):,} of {expected:,}" if isinstance(expected, int) else f"{len(rows):,}"
        out += [f"**Incomplete:** {so_far} frames so far. Rerun the export's own command (`command` in "
                "manifest.json) to finish it; the card is rewritten when it stops.", ""]
    if isinstance(shard, list) and len(shard) == 2 and shard[1] != 1:
        out += [f"**Shard {shard[0]} of {shard[1]}:** join the shards with "
                "`python -m realitybench_addon merge SHARD... --out SET` before publishing.", ""]
    notes = manifest.get("notes")
    out += [line for note in (notes if isinstance(notes, list) else []) for line in (f"Note: {note}", "")]
    if conflicts:
        out += ["**`datasets` cannot load this set:** it reads metadata.jsonl as one Arrow table, and in it "
                + "; ".join(conflicts) + ". No config loads until the rows agree.", ""]
    out += ["## Configs", "", "| config | environment | stratum | frames |", "|---|---|---|---|",
            f"| `default` | all | all | {len(rows):,} |"]
    for env, strata in counts.items():
        out.append(f"| `{config_name(env)}` | {env} | all | {sum(strata.values()):,} |")
        out += [f"| `{config_name(env, s)}` | {env} | {s} | {n:,} |" for s, n in strata.items()]
    first = config_name(next(iter(counts))) if counts else "default"
    out += ["", "```python", "import datasets", "",
            'everything = datasets.load_dataset("REPO_OR_FOLDER", split="train")',
            f'one = datasets.load_dataset("REPO_OR_FOLDER", "{first}", split="train")', "```", "",
            "`REPO_OR_FOLDER` is this set's folder, or its repository on the Hub once uploaded. The `random` "
            "stratum holds frames from field poses; `positive` holds frames the scorer accepts, drawn for the "
            "environments the paper drew them for.", ""]
    if metadata_bytes > ARROW_CHUNK_BYTES:
        out += [f"metadata.jsonl is {metadata_bytes / 1e6:.0f} MB: `datasets` takes the columns from its first "
                f"{ARROW_CHUNK_BYTES >> 20} MiB and drops the others without a word. Load with this card's features "
                'to keep every column: `datasets.load_dataset("REPO_OR_FOLDER", CONFIG, '
                'features=datasets.load_dataset_builder("REPO_OR_FOLDER").info.features)`.', ""]
    made = [("command", f"`{manifest['command']}`" if isinstance(manifest.get("command"), str) else None),
            ("seed", config.get("seed")), ("random frames per environment", config.get("random")),
            ("positive frames per environment", config.get("positive")),
            ("long side (px)", config.get("long_side_px")), ("Cycles samples", config.get("samples")),
            ("denoised", config.get("denoise")), ("export settings hash", manifest.get("config_hash")),
            ("merged from shards", len(manifest["merged_from"]) if isinstance(manifest.get("merged_from"), list)
             else None)]
    out += ["## How it was made", "", *(f"- {name}: {value}" for name, value in made if value is not None)]
    hashes = _dict(_dict(manifest.get("versions")).get("preset_hashes"))
    if hashes:
        out.append("- preset hashes: " + ", ".join(f"{env} `{h}`" for env, h in hashes.items()))
    out += ["", "manifest.json beside the images holds every setting, the Cycles settings and the counts.", ""]
    out += ["## Columns", ""]
    names = ["image" if k == "file_name" else k for k in (rows[0] if rows else {})]
    out += [f"- `{name}`: {COLUMNS.get(name, 'see the realitybench docs (docs/export.md)')}" for name in names]
    out += ["", "## Licence", "",
            f"{LICENSE_TEXT}, the licence of the `realitybench` code that rendered the set; whoever publishes "
            "it may choose another by editing `license` above.", "",
            "## Citation", "", f"The environments and the benchmark are those of *{PAPER_TITLE}* "
            f"({', '.join(PAPER_AUTHORS)}; arXiv {PAPER_ARXIV}).", "", "```bibtex", BIBTEX, "```", ""]
    return "\n".join(out)


def write_dataset_card(directory, manifest: Optional[dict] = None, rows: Optional[list[dict]] = None) -> Optional[Path]:
    """Write DIR/README.md from the manifest and rows given (read from the set where not), atomically.
    A README.md this module did not write is left as it is (a note on stderr); returns the card's path or None.
    Columns `datasets` cannot read (rows that disagree in kind) are named on stderr too."""
    directory = Path(directory)
    path = directory / CARD
    if path.is_symlink() or path.exists():
        try:  # without following a link, and never waiting on a pipe (safefs.py)
            with safefs.open_file(directory, CARD, "json") as fh:
                head = fh.read(64 * 1024)
        except (OSError, SetError):
            head = b""
        if MARKER.encode() not in head:
            print(f"note: {path} was not written by realitybench, so the set's dataset card is not written "
                  "(move that file away and rerun the command to get one)", file=sys.stderr, flush=True)
            return None
    if manifest is None:
        manifest = read_manifest(directory)
    if rows is None:
        rows = read_rows(directory)
    metadata = directory / METADATA
    size = metadata.stat().st_size if metadata.is_file() else 0
    atomic_write(path, render_card(manifest, rows, size).encode("utf-8"))
    conflicts = infer_features(rows)[1]
    if conflicts:
        print(f"note: `datasets` cannot load {directory}: in metadata.jsonl " + "; ".join(conflicts)
              + f" (said in {path})", file=sys.stderr, flush=True)
    return path

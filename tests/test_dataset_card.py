"""The set's Hugging Face card (dataset_card.py): the header parses, every config loads exactly its rows with
`datasets` (offline), the features it states are the ones `datasets` reads, and the export and merge write it."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # a set on disk loads without the network
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from realitybench_addon import dataset_card as dc  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--resolution", "96x72", "--samples", "1", "--no-denoise"]
BASE = ["--env", "rail_attachment,tape_gap", "--random", "2", "--positive", "1", "--seed", "7", *SMALL]


def header(path: Path) -> dict:
    yaml = pytest.importorskip("yaml")
    text = path.read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def rows_of(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "metadata.jsonl").read_text().splitlines()]


def load(directory: Path, name: str, cache: Path):
    datasets = pytest.importorskip("datasets")
    return datasets.load_dataset(str(directory), name, split="train", cache_dir=str(cache))


def expected_ids(rows: list[dict], name: str) -> list[str]:
    keep = {"default": lambda r: True}
    for r in rows:
        keep[r["environment"]] = lambda x, e=r["environment"]: x["environment"] == e
        keep[f"{r['environment']}-{r['stratum']}"] = (
            lambda x, e=r["environment"], s=r["stratum"]: (x["environment"], x["stratum"]) == (e, s))
    return sorted(r["frame_id"] for r in rows if keep[name](r))


# ------------------------------------------------------------------ pure: no bpy

def test_yaml_emitter_round_trips_awkward_values():
    yaml = pytest.importorskip("yaml")
    value = {"plain": "tape_gap", "words": ["yes", "no", "null", "true", "On"], "ops": ["==", "*/*.jpg", "n<1K"],
             "quotes": 'say "hi": it\'s #1', "unicode": "Zürich – 5 °", "empty": {"l": [], "d": {}},
             "nested": [[["environment", "==", "x"]], {"a": [1, 2.5, None, False]}], "key: odd": 3,
             "multi": "two\nlines"}
    assert yaml.safe_load("\n".join(dc.to_yaml(value))) == value


def test_size_categories_are_the_hubs_buckets():
    assert [dc.size_category(n) for n in (0, 999, 1_000, 9_999, 10_000, 150_000, 2_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M"]


def _tiny_set(directory: Path, rows: list[dict]) -> None:
    """A set's files without rendering: a small JPEG per row and the metadata log."""
    from PIL import Image

    for i, row in enumerate(rows):
        (directory / row["environment"]).mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (8, 6), (i * 40 % 256, 10, 200)).save(directory / row["file_name"])
    (directory / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _row(env, stratum, slot, **extra) -> dict:
    fid = f"{env}-{stratum}-s1-{slot:06d}"
    return {"file_name": f"{env}/{fid}.jpg", "slot": slot, "frame_id": fid, "environment": env,
            "stratum": stratum, **extra}


def test_features_are_what_datasets_reads_and_configs_filter_rows(tmp_path):
    """Arrow's promotions (int then float, null then struct, keys only later rows have, lists of structs and of
    lists) in the card's features are exactly the features `datasets` builds; each config holds its rows."""
    datasets = pytest.importorskip("datasets")
    rows = [
        _row("tape_gap", "random", 0, terms={"a": {"value": 1, "pass": True}}, target=None, seen=[],
             pose=[[1, 2], [3, 4]], parts=[{"k": "x"}], unscored_reason=None),
        _row("tape_gap", "positive", 0, terms={"a": {"value": 0.5, "pass": False}}, target={"tape": 0},
             seen=[1.5], pose=[[1.5, 2], [3, 4]], parts=[{"k": "y", "n": 2}], unscored_reason="why"),
        _row("car_view", "random", 0, terms={"b": {"value": None, "note": "z"}}, target={"car": "Car0"},
             seen=[], pose=[], parts=[], unscored_reason=None),
    ]
    out = tmp_path / "set"
    _tiny_set(out, rows)
    (out / "manifest.json").write_text(json.dumps({"config": {"environments": ["tape_gap", "car_view"], "seed": 1},
                                                   "complete": True, "expected_frames": 3}))
    assert dc.write_dataset_card(out) == out / "README.md"
    head = header(out / "README.md")
    assert [c["config_name"] for c in head["configs"]] == [
        "default", "tape_gap", "tape_gap-random", "tape_gap-positive", "car_view", "car_view-random"]
    want = datasets.Features._from_yaml_list(head["dataset_info"]["features"])
    for name in [c["config_name"] for c in head["configs"]]:
        ds = load(out, name, tmp_path / "cache")
        assert sorted(ds["frame_id"]) == expected_ids(rows, name), name
        assert ds.features == want, name
    ds = load(out, "tape_gap", tmp_path / "cache")
    assert ds.features["terms"]["a"]["value"] == datasets.Value("float64")
    assert ds.features["pose"] == datasets.List(datasets.List(datasets.Value("float64")))
    assert ds[0]["image"].size == (8, 6)


def test_rows_that_disagree_in_kind_are_named_and_no_features_claimed(tmp_path, capsys):
    pa_json = pytest.importorskip("pyarrow.json")
    import pyarrow as pa

    rows = [_row("wire_adequacy", "random", 0, target={"side": -1}),
            _row("car_view", "random", 0, target={"side": "driver"})]
    out = tmp_path / "set"
    _tiny_set(out, rows)
    with pytest.raises(pa.ArrowInvalid):  # the claim the card makes: Arrow refuses this log
        pa_json.read_json(out / "metadata.jsonl")
    dc.write_dataset_card(out, {"complete": True}, rows)
    text = (out / "README.md").read_text()
    assert "`datasets` cannot load this set" in text and "target.side is int64 in some rows and string" in text
    assert "dataset_info" not in header(out / "README.md")
    assert "target.side" in capsys.readouterr().err


def test_incomplete_shard_says_so_and_a_foreign_readme_is_kept(tmp_path, capsys):
    rows = [_row("tape_gap", "random", 1)]
    manifest = {"complete": False, "expected_frames": 5, "config": {"shard": [1, 2], "seed": 3},
                "notes": ["car_view: no positive stratum"]}
    text = dc.render_card(manifest, rows)
    assert "**Incomplete:** 1 of 5 frames so far" in text and "**Shard 1 of 2:**" in text
    assert "Note: car_view: no positive stratum" in text
    for placeholder in ("TODO", "TBD", "XXX", "{", "}"):
        assert placeholder not in text.split("```bibtex")[0].split("---\n", 2)[2], placeholder
    assert dc.PAPER_TITLE in text and "2610.14397" in text
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("# my own notes\n")
    assert dc.write_dataset_card(mine, manifest, rows) is None
    assert (mine / "README.md").read_text() == "# my own notes\n"
    assert "not written by realitybench" in capsys.readouterr().err
    (mine / "README.md").write_text(text)  # a card it wrote is rewritten
    assert dc.write_dataset_card(mine, {**manifest, "complete": True}, rows) == mine / "README.md"
    assert "Incomplete" not in (mine / "README.md").read_text()


def test_large_metadata_gets_the_loading_note():
    rows = [_row("tape_gap", "random", 1)]
    assert "drops the others" not in dc.render_card({"complete": True}, rows, 9 << 20)
    assert "load_dataset_builder" in dc.render_card({"complete": True}, rows, 11 << 20)


# ------------------------------------------------------------------ a real export (bpy)

def cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    pytest.importorskip("bpy")
    out = tmp_path_factory.mktemp("card") / "set"
    result = cli("export", *BASE, "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_exported_set_loads_by_config(exported, tmp_path):
    """`load_dataset(OUT, "tape_gap")` and each stratum's config give exactly their frames, images included."""
    import numpy as np
    from PIL import Image

    datasets = pytest.importorskip("datasets")
    head = header(exported / "README.md")
    assert head["license"] == "gpl-3.0" and head["size_categories"] == ["n<1K"]
    assert {"image-classification", "visual-question-answering"} <= set(head["task_categories"])
    assert head["pretty_name"] == "RealityBench rendered set (seed 7)"
    names = [c["config_name"] for c in head["configs"]]
    assert names == ["default", "rail_attachment", "rail_attachment-random", "rail_attachment-positive",
                     "tape_gap", "tape_gap-random", "tape_gap-positive"]
    assert datasets.get_dataset_config_names(str(exported)) == names
    rows = rows_of(exported)
    want = datasets.Features._from_yaml_list(head["dataset_info"]["features"])
    for name in names:
        ds = load(exported, name, tmp_path / "cache")
        assert sorted(ds["frame_id"]) == expected_ids(rows, name), name
        assert ds.features == want, name
    ds = load(exported, "tape_gap", tmp_path / "cache")
    assert ds.num_rows == 3 and set(ds["environment"]) == {"tape_gap"}
    for item in ds:
        on_disk = np.asarray(Image.open(exported / f"tape_gap/{item['frame_id']}.jpg"))
        assert np.array_equal(np.asarray(item["image"]), on_disk)
    assert load(exported, "tape_gap-positive", tmp_path / "cache")["verdict"] == ["accept"]
    text = (exported / "README.md").read_text()
    assert "Incomplete" not in text and "| `tape_gap-positive` | tape_gap | positive | 1 |" in text
    hub = pytest.importorskip("huggingface_hub")
    card = hub.DatasetCard.load(exported / "README.md")
    assert card.data.license == "gpl-3.0" and len(card.data.configs) == 7


def test_readers_accept_the_card_and_merge_writes_one(exported, tmp_path):
    from realitybench_addon.merge import merge
    from realitybench_addon.setio import read_manifest, read_rows

    assert len(read_rows(exported)) == 6 and read_manifest(exported)["complete"]
    merged = tmp_path / "merged"
    merge([exported], merged)  # a set is its own single shard 0/1
    assert "merged from shards: 1" in (merged / "README.md").read_text()
    ds = load(merged, "rail_attachment-positive", tmp_path / "cache")
    assert ds["frame_id"] == expected_ids(rows_of(exported), "rail_attachment-positive")


def test_a_stopped_export_has_a_card_with_the_counts_so_far(tmp_path):
    pytest.importorskip("bpy")
    out = tmp_path / "partial"
    result = cli("export", *BASE, "--max-frames", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr
    text = (out / "README.md").read_text()
    assert "**Incomplete:** 1 of 6 frames so far" in text
    assert [c["config_name"] for c in header(out / "README.md")["configs"]] == [
        "default", "rail_attachment", "rail_attachment-random"]
    assert load(out, "rail_attachment-random", tmp_path / "cache").num_rows == 1

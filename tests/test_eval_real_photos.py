"""Real photographs: a labelled imagefolder asked like a set (`eval run REALDIR`), several acceptable truths per
field, and the report's rendered-against-real comparison (`eval report ... --real`) with Spearman and Pearson
across models, worked out by hand below. The photos are scikit-image's sample photographs, which ship inside
the package, labelled for these tests (a motorcycle or a cup of coffee stands in for a car face)."""
from __future__ import annotations

import base64
import itertools
import json
import math
import shutil
from pathlib import Path

import pytest

from eval_support import ScriptedServer, cli, csv_rows, frame, make_set, one_line_error, prompt_for, served_run
from realitybench_addon.core.prompt import build_prompt
from realitybench_addon.envs import registry

skimage_data = pytest.importorskip("skimage.data")

SAMPLES = Path(skimage_data.__file__).parent
MODELS = ("m1", "m2", "m3", "m4")



def real_folder(directory: Path, photos: list[dict], *, marked: bool = True) -> Path:
    """A real-photo folder: each photo {"id", "sample", "environment", "truth"} copied byte for byte from the
    package into photos/; `marked` prompts name their frame (the scripted server answers by frame)."""
    (directory / "photos").mkdir(parents=True, exist_ok=True)
    lines = []
    for p in photos:
        shutil.copyfile(SAMPLES / p["sample"], directory / "photos" / p["sample"])
        row = {"file_name": f"photos/{p['sample']}", "frame_id": p["id"], "environment": p["environment"],
               "ground_truth": p["truth"], "note": "labelled for the tests"}
        if marked:
            row["prompt"] = prompt_for(p["environment"], p["id"])
        lines.append(json.dumps(row))
    (directory / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return directory


PHOTOS = [  # car_view.side on four photos, damage_view.severity on three; any_of where two answers are right
    {"id": "c0", "sample": "motorcycle_left.png", "environment": "car_view", "truth": {"side": "driver"}},
    {"id": "c1", "sample": "motorcycle_right.png", "environment": "car_view",
     "truth": {"side": {"any_of": ["front", "passenger"]}}},
    {"id": "c2", "sample": "rocket.jpg", "environment": "car_view", "truth": {"side": "rear"}},
    {"id": "c3", "sample": "coffee.png", "environment": "car_view", "truth": {"side": {"any_of": ["driver", "rear"]}}},
    {"id": "d0", "sample": "chelsea.png", "environment": "damage_view", "truth": {"severity": "minor"}},
    {"id": "d1", "sample": "astronaut.png", "environment": "damage_view",
     "truth": {"severity": {"any_of": ["moderate", "severe"]}}},
    {"id": "d2", "sample": "hubble_deep_field.jpg", "environment": "damage_view", "truth": {"severity": "severe"}},
]
# per model: the real photos answered right, and how (an alternative of an any_of where there is one)
REAL_RIGHT = {"m1": {"c0": "driver", "c1": "front", "c2": "rear", "d0": "minor", "d1": "severe", "d2": "severe"},
              "m2": {"c0": "Driver", "c1": "PASSENGER", "c2": "rear", "c3": "rear", "d0": "minor", "d1": "moderate"},
              "m3": {"c1": "front"},
              "m4": {"d0": "minor"}}
REAL_WRONG = {"c0": "front", "c1": "rear", "c2": "driver", "c3": "front", "d0": "severe", "d1": "minor",
              "d2": "minor"}
# per model: how many of the rendered car_view frames (4) and damage_view frames (3) it answers right
RENDERED_RIGHT = {"m1": (4, 1), "m2": (3, 2), "m3": (2, 3), "m4": (1, 0)}
SIDES = ("front", "rear", "driver", "passenger")


def real_answers(model: str) -> dict:
    out = {}
    for p in PHOTOS:
        value = REAL_RIGHT[model].get(p["id"], REAL_WRONG[p["id"]])
        out[p["id"]] = ({"adequate": True, "side": value, "body_style": "sedan"} if p["environment"] == "car_view"
                        else {"adequate": True, "damage_types": ["dent"], "severity": value})
    return out


def rendered_set(tmp_path):
    cars = [frame("car_view", "random", i, "accept", {"side": SIDES[i], "body_style": "sedan"}, None) for i in range(4)]
    damage = [frame("damage_view", "random", i, "accept", {"damage_types": ["dent"], "severity": "minor"}, None)
              for i in range(3)]
    set_dir = make_set(tmp_path / "set", cars + damage)
    answers = {}
    for m, (car_right, damage_right) in RENDERED_RIGHT.items():
        answers[m] = {}
        for i, f in enumerate(cars):
            side = f["truth"]["side"] if i < car_right else SIDES[(i + 1) % 4]
            answers[m][f["frame_id"]] = {"adequate": True, "side": side, "body_style": "sedan"}
        for i, f in enumerate(damage):
            answers[m][f["frame_id"]] = {"adequate": True, "damage_types": ["dent"],
                                         "severity": "minor" if i < damage_right else "severe"}
    return set_dir, answers


def pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


def exact_p(x, y, statistic):
    """Two-sided permutation p over all pairings, by enumeration: 2 min(P(null <= observed), P(null >= observed))."""
    observed = statistic(x, y)
    null = [statistic(x, list(p)) for p in itertools.permutations(y)]
    less = sum(v <= observed + 1e-12 for v in null) / len(null)
    greater = sum(v >= observed - 1e-12 for v in null) / len(null)
    return min(1.0, 2 * min(less, greater))


def test_rendered_against_real_per_question_with_correlations_across_models(tmp_path):
    set_dir, answers = rendered_set(tmp_path)
    real = real_folder(tmp_path / "real", PHOTOS)
    for m in MODELS:
        served_run(set_dir, tmp_path / "rendered" / m, answers[m], model=m)
        served_run(real, tmp_path / "photos" / m, real_answers(m), model=m)
    done = cli("eval", "report", *(tmp_path / "rendered" / m for m in MODELS), "--real",
               *(tmp_path / "photos" / m for m in MODELS), "--out", tmp_path / "report", "--no-plots")
    assert done.returncode == 0, done.stderr
    table = {(r["question"], r["label"]): r for r in csv_rows(tmp_path / "report" / "sim_to_real.csv")}
    # side: rendered 4/4 3/4 2/4 1/4; real (any_of: one of the listed faces is right) 3/4 4/4 1/4 0/4
    side_rendered, side_real = [1, 3 / 4, 1 / 2, 1 / 4], [3 / 4, 1, 1 / 4, 0]
    # severity: rendered 1/3 2/3 3/3 0/3; real 3/3 2/3 0/3 1/3
    severity_rendered, severity_real = [1 / 3, 2 / 3, 1, 0], [1, 2 / 3, 0, 1 / 3]
    for question, rendered, real_scores, frames, photos in (
            ("car_view.side", side_rendered, side_real, 4, 4),
            ("damage_view.severity", severity_rendered, severity_real, 3, 3)):
        for m, want_rendered, want_real in zip(MODELS, rendered, real_scores):
            row = table[(question, m)]
            assert float(row["rendered"]) == pytest.approx(want_rendered), (question, m)
            assert float(row["real"]) == pytest.approx(want_real), (question, m)
            assert (int(row["rendered_frames"]), int(row["real_photos"])) == (frames, photos)
            assert float(row["real_lo"]) <= float(row["real"]) <= float(row["real_hi"])
    corr = {r["question"]: r for r in csv_rows(tmp_path / "report" / "sim_to_real_correlations.csv")}
    # side: ranks 4 3 2 1 against 3 4 2 1, sum of squared rank differences 2: rho = 1 - 6 * 2 / (4 * 15) = 0.8;
    # 4 of the 24 pairings (the identity and the three adjacent swaps) reach 0.8: p = 2 * 4/24
    side = corr["car_view.side"]
    assert int(side["models"]) == 4 and int(side["real_photos"]) == 4
    assert float(side["spearman_rho"]) == pytest.approx(0.8) and float(side["spearman_p"]) == pytest.approx(1 / 3)
    assert float(side["pearson_r"]) == pytest.approx(pearson(side_rendered, side_real))
    assert float(side["pearson_p"]) == pytest.approx(exact_p(side_rendered, side_real, pearson))
    # severity: ranks 2 3 4 1 against 4 3 1 2, squared differences 4 + 0 + 9 + 1 = 14: rho = 1 - 84/60 = -0.4
    severity = corr["damage_view.severity"]
    assert float(severity["spearman_rho"]) == pytest.approx(-0.4)
    ranks = lambda v: [sorted(v).index(x) + 1 for x in v]  # noqa: E731  (no ties here)
    spearman = lambda a, b: 1 - 6 * sum((p - q) ** 2 for p, q in zip(ranks(a), ranks(b))) / (4 * 15)  # noqa: E731
    assert float(severity["spearman_p"]) == pytest.approx(exact_p(severity_rendered, severity_real, spearman))
    assert float(severity["pearson_r"]) == pytest.approx(pearson(severity_rendered, severity_real))
    assert float(severity["pearson_p"]) == pytest.approx(exact_p(severity_rendered, severity_real, pearson))
    text = (tmp_path / "report" / "report.md").read_text()
    assert "## Rendered frames against real photographs" in text
    assert "| car_view.side | 4 | 4 | 4 | 0.800 | 0.3333 |" in text  # photos, measured items (each photo its own), models
    # the real runs are scored like any run: only the labelled keys, acceptability n/a
    summary = json.loads(cli("eval", "rescore", tmp_path / "photos" / "m2").stdout)
    assert summary["f1"]["value"] is None and summary["documentation"]["value"] == pytest.approx((4 + 2) / 7)


def test_eval_run_asks_real_photos_byte_for_byte_with_the_environment_prompt(tmp_path):
    photos = [PHOTOS[0], PHOTOS[2], PHOTOS[4]]  # a PNG, a JPEG, a PNG; no prompt column: the environment's own
    real = real_folder(tmp_path / "real", photos, marked=False)
    with ScriptedServer(None) as server:
        done = cli("eval", "run", real, "--provider", "openai", "--base-url", server.url + "/v1", "--model", "m",
                   "--no-api-key", "--out", tmp_path / "run")
        log = list(server.log)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["items"] == 3 and out["f1"]["value"] is None
    sent = {}
    for r in log:
        image, text = r["body"]["messages"][0]["content"]
        media, data = image["image_url"]["url"][len("data:"):].split(";base64,")
        sent[text["text"]] = sent.get(text["text"], []) + [(media, base64.b64decode(data))]
    for p in photos:
        prompt = build_prompt(registry.get(p["environment"]).prompt_parts)
        media = "image/jpeg" if p["sample"].endswith(".jpg") else "image/png"
        assert (media, (SAMPLES / p["sample"]).read_bytes()) in sent[prompt], p["id"]
    items = [json.loads(line) for line in (tmp_path / "run" / "items.jsonl").open()]
    assert [i["frame_id"] for i in items] == ["c0", "c2", "d0"] and {i["stratum"] for i in items} == {"real"}
    assert items[0]["keys"] == [["side", "string"], ["body_style", "string"]]  # every key is asked
    # the scripted server answers side "" and severity "": every labelled field wrong, nothing else scored
    scores = [json.loads(line) for line in (tmp_path / "run" / "scores.jsonl").open()]
    assert [s["fields"] for s in scores] == [{"side": 0.0, "body_style": None}, {"side": 0.0, "body_style": None},
                                             {"damage_types": None, "severity": 0.0}]


def broken(tmp_path, rows_text: str, files=()):
    folder = tmp_path / "broken"
    (folder / "photos").mkdir(parents=True)
    for name in files:
        shutil.copyfile(SAMPLES / name, folder / "photos" / name)
    (folder / "metadata.jsonl").write_text(rows_text)
    return folder


def row(**fields):
    base = {"file_name": "photos/chelsea.png", "environment": "car_view", "ground_truth": {"side": "driver"}}
    return json.dumps({k: v for k, v in {**base, **fields}.items() if v is not None}) + "\n"


@pytest.mark.parametrize("text, fragment", [
    (row() + "{not json\n", "line 2: not JSON"),
    ("[1, 2]\n", "line 1: a JSON list, not an object"),
    (row(file_name=None), "line 1: lacks file_name"),
    (row(file_name="../outside.png"), "must be a path inside the folder (no leading /, no ..)"),
    (row(file_name="/etc/hostname"), "must be a path inside the folder"),
    (row(file_name="photos/none.png"), "the photo 'photos/none.png' is missing"),
    (row(file_name="photos/notes.txt"), "the photo 'photos/notes.txt' is not a JPEG, PNG, GIF or WebP image"),
    (row(file_name="photos"), "'photos' is a folder, not a photo"),
    (row(environment="kitchen"), "unknown environment 'kitchen'"),
    (row(ground_truth={"colour": "red"}), "ground_truth key 'colour' is not a key of car_view (side, body_style)"),
    (row(ground_truth={"side": 3}), "ground_truth 'side' is not a JSON string"),
    (row(ground_truth={"side": {"any_of": []}}), "ground_truth 'side': any_of lists no value"),
    (row(ground_truth={"side": {"any_of": ["driver", 4]}}), "ground_truth 'side' is not a JSON string"),
    (row(ground_truth={"side": {"one_of": ["driver"]}}), 'an object must be {"any_of": [value, ...]}'),
    (row(ground_truth={}), "ground_truth must be a JSON object with at least one labelled key"),
    (row(ground_truth=["driver"]), "ground_truth must be a JSON object"),
    (row(frame_id="../x"), "frame_id '../x' is not a plain name"),
    (row(frame_id="c0") + row(frame_id="c0"), "line 2: frame_id c0 again (first on line 1)"),
    (row(prompt=""), "prompt must be a non-empty string"),
])
def test_a_malformed_real_photo_folder_is_one_line_error(tmp_path, text, fragment):
    folder = broken(tmp_path, text, files=["chelsea.png"])
    (folder / "photos" / "notes.txt").write_text("not a photo")
    one_line_error(cli("eval", "run", folder, "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1",
                       "--model", "m", "--no-api-key", "--out", tmp_path / "run"), "real-photo folder", fragment)
    assert not (tmp_path / "run").exists()  # refused before anything is written


def test_a_link_out_of_the_folder_and_a_folder_without_metadata(tmp_path):
    folder = broken(tmp_path, row(file_name="photos/linked.png"))
    shutil.copyfile(SAMPLES / "chelsea.png", tmp_path / "outside.png")
    (folder / "photos" / "linked.png").symlink_to(tmp_path / "outside.png")
    args = ["--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--no-api-key"]
    one_line_error(cli("eval", "run", folder, *args, "--out", tmp_path / "run"),
                   "file_name 'photos/linked.png'", "is a link")  # the file layer follows no link below the folder
    (tmp_path / "empty").mkdir()
    one_line_error(cli("eval", "run", tmp_path / "empty", *args, "--out", tmp_path / "run"), "no metadata.jsonl")


def test_real_and_rendered_runs_in_their_places(tmp_path):
    set_dir, answers = rendered_set(tmp_path)
    real = real_folder(tmp_path / "real", PHOTOS[:2])
    other = real_folder(tmp_path / "other", [{**PHOTOS[0], "truth": {"side": "rear"}}])
    served_run(set_dir, tmp_path / "rendered", answers["m1"], model="m1")
    served_run(real, tmp_path / "photos", real_answers("m1"), model="m1")
    served_run(other, tmp_path / "other-photos", real_answers("m1"), model="m1")
    assert cli("eval", "baseline", real, "--kind", "always-accept", "--out", tmp_path / "accept").returncode == 0
    out = tmp_path / "report"
    one_line_error(cli("eval", "report", tmp_path / "photos", "--out", out),
                   "is a run of real photographs: give it after --real")
    one_line_error(cli("eval", "report", tmp_path / "rendered", "--real", tmp_path / "rendered", "--out", out),
                   "is a run of a rendered set, not of real photographs")
    one_line_error(cli("eval", "report", tmp_path / "rendered", "--real", tmp_path / "accept", "--out", out),
                   "is a baseline: it answers no documentation question")
    one_line_error(cli("eval", "report", tmp_path / "rendered", "--real", tmp_path / "photos",
                       tmp_path / "other-photos", "--out", out), "different sets")
    # fewer than three models: the scores, no correlation
    done = cli("eval", "report", tmp_path / "rendered", "--real", tmp_path / "photos", "--out", out, "--no-plots")
    assert done.returncode == 0, done.stderr
    corr = csv_rows(out / "sim_to_real_correlations.csv")
    assert [(r["question"], r["models"], r["spearman_rho"]) for r in corr] == [("car_view.side", "1", "")]

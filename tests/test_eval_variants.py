"""Prompt variants (`eval run --variant`): the verdict asked first (the benchmark's prompt), last, or not at all,
each with its own grammar, recorded and hashed; and the report's re-ask comparison of defect claims (McNemar),
every count worked out by hand below. Runs are asked over HTTP of the scripted local server."""
from __future__ import annotations

import json

import pytest

from eval_support import TAPE, ScriptedServer, cli, csv_rows, frame, make_set, one_line_error, served_run
from realitybench_addon.core import prompt as P
from realitybench_addon.envs import registry
from realitybench_addon.evaluation import providers
from realitybench_addon.evaluation.grammar import parse_reply, parse_strict
from realitybench_addon.evaluation.runs import request_hash

TAPE_KEYS = (("reading_in", "number"), ("gap_in", "number"), ("tilted", "boolean"))



# ---- the prompts and their grammars ---------------------------------------------------------------------------

@pytest.mark.every_environment
def test_each_variant_rewrites_the_benchmark_prompt_of_every_environment():
    for env in registry.available():
        parts = registry.get(env).prompt_parts
        benchmark = P.build_prompt(parts)
        assert P.build_prompt(parts, P.VERDICT_FIRST) == benchmark  # the default is the benchmark's prompt
        for variant in P.VARIANTS:  # text after the prompt (a frame marker) is kept
            assert P.rewrite_prompt(benchmark + "\n\n(frame x)", variant) == P.build_prompt(parts, variant) + \
                "\n\n(frame x)", (env, variant)
    tape = registry.get("tape_gap").prompt_parts
    last, alone = P.build_prompt(tape, P.VERDICT_LAST), P.build_prompt(tape, P.NO_VERDICT)
    # verdict last: the instructions swapped, `adequate` after the keys; no verdict: no `adequate` anywhere
    assert last.index("First answer the question") < last.index("Question:")
    assert last.index('- "tilted"') < last.index('Its last key is "adequate"') < last.index("Values in any other")
    assert '"adequate"' not in alone and "meets the requirement" not in alone.split("Requirement for the photo")[1]
    assert "Requirement for the photo: " + tape.requirement in alone  # the same framing and requirement
    with pytest.raises(P.PromptShapeError):
        P.rewrite_prompt("Synthetic question. Reply with one JSON object.", P.VERDICT_LAST)


@pytest.mark.parametrize("variant, text, problems", [
    ("verdict-first", '{"adequate": true, "reading_in": 4.5, "gap_in": 5, "tilted": false}', []),
    ("verdict-first", '{"reading_in": 4.5, "gap_in": 5, "tilted": false, "adequate": true}',
     ["first key is not 'adequate'"]),
    ("verdict-last", '{"reading_in": 4.5, "gap_in": 5, "tilted": false, "adequate": true}', []),
    ("verdict-last", '{"adequate": true, "reading_in": 4.5, "gap_in": 5, "tilted": false}',
     ["last key is not 'adequate'"]),
    ("verdict-last", '{"reading_in": 4.5, "gap_in": 5, "tilted": false}',
     ["last key is not 'adequate'", "missing key 'adequate'"]),
    ("no-verdict", '{"reading_in": 4.5, "gap_in": 5, "tilted": false}', []),
    ("no-verdict", '{"reading_in": 4.5, "gap_in": 5, "tilted": false, "adequate": true}',
     ["unexpected key 'adequate' (this prompt asks for no verdict)"]),
])
def test_each_variant_has_its_own_grammar(variant, text, problems):
    obj, found = parse_strict(text, "tape_gap", TAPE_KEYS, variant)
    assert found == problems and (obj is None) == bool(problems)
    parsed = parse_reply(text, "tape_gap", TAPE_KEYS, variant)
    assert parsed.in_grammar == (not problems)
    if not problems:  # no verdict asked: none read, not even by the lenient parser
        assert parsed.adequate == (None if variant == "no-verdict" else True)
        assert parsed.values == {"reading_in": 4.5, "gap_in": 5, "tilted": False}
    assert (parsed.lenient_adequate is None) == (variant == "no-verdict" or '"adequate"' not in text)


# ---- three runs of one model, asked over HTTP -----------------------------------------------------------------

GAUGE = {"reading_deg": 22.4, "on_module": True}
RAIL = {"lag_present": True, "flashing_present": True}
LABEL = {"brand": "Sunvolt", "model": "SV-400M", "serial": "A1B2C3", "on": "module"}


def tape(tilted):
    return {"reading_in": 4.5, "gap_in": 4.9408, "tilted": tilted}


def gauge(claim):
    return {"reading_deg": 22.4, "on_module": not claim}


def rail(lag, flashing):
    return {"lag_present": lag, "flashing_present": flashing}


def with_verdict(answer: dict, variant: str, adequate: bool) -> dict:
    """The reply in the variant's shape (key order is what the server sends)."""
    if variant == "verdict-first":
        return {"adequate": adequate, **answer}
    if variant == "verdict-last":
        return {**answer, "adequate": adequate}
    return dict(answer)


def study(tmp_path):
    """Ten frames where a defect can be claimed (tape t0..t5, gauge s0 s1, rail r0 r1) and one label frame e0.

      claims, verdict first  t0 t1 t2 t3 t4, s0, r0          (7; each rejected, everything else accepted)
      claims, verdict last   t0, s0, r0, r1                  (4; each rejected)
      claims, no verdict     t0                              (1; t5's reply gives `adequate`: out of grammar)
    Answers are otherwise right: a tape claim costs 1/3 of the frame's documentation, a gauge or rail claim 1/2."""
    plan = [("tape_gap", 0, "accept", TAPE), ("tape_gap", 1, "accept", TAPE),
            ("tape_gap", 2, "reject", {**TAPE, "tilted": True}), ("tape_gap", 3, "reject", {**TAPE, "tilted": True}),
            ("tape_gap", 4, "accept", TAPE), ("tape_gap", 5, "accept", TAPE),
            ("slope_gauge", 0, "accept", GAUGE), ("slope_gauge", 1, "reject", GAUGE),
            ("rail_attachment", 0, "accept", RAIL), ("rail_attachment", 1, "reject", RAIL),
            ("equipment_label", 0, "accept", LABEL)]
    frames = [frame(env, "random", i, verdict, truth, None) for env, i, verdict, truth in plan]
    set_dir = make_set(tmp_path / "set", frames)
    ids = {f"{f['environment'][0]}{f['frame_id'][-1]}": f["frame_id"] for f in frames}  # t0 -> tape_gap-...-000000
    claims = {"verdict-first": {"t0", "t1", "t2", "t3", "t4", "s0", "r0"},
              "verdict-last": {"t0", "s0", "r0", "r1"}, "no-verdict": {"t0"}}
    answers = {}
    for variant, claimed in claims.items():
        answers[variant] = {}
        for short, fid in ids.items():
            claim = short in claimed
            answer = {"t": tape(claim), "s": gauge(claim), "r": rail(not claim, True) if short == "r0" else
                      rail(True, not claim), "e": dict(LABEL)}[short[0]]
            answers[variant][fid] = with_verdict(answer, variant, not claim)
    answers["no-verdict"][ids["t5"]] = {**tape(False), "adequate": True}  # asked for none: out of grammar
    answers["verdict-last"][ids["e0"]] = {"adequate": True, **LABEL}  # the benchmark's shape: out of grammar here
    return set_dir, ids, answers


def test_variants_are_run_settings_recorded_hashed_and_compared_by_mcnemar(tmp_path):
    set_dir, ids, answers = study(tmp_path)
    served_run(set_dir, tmp_path / "first", answers["verdict-first"], model="m")
    served_run(set_dir, tmp_path / "none", answers["no-verdict"], model="m", variant="no-verdict")
    with ScriptedServer(answers["verdict-last"]) as server:  # the CLI flag, end to end
        done = cli("eval", "run", set_dir, "--provider", "openai", "--base-url", server.url + "/v1", "--model", "m",
                   "--no-api-key", "--variant", "verdict-last", "--out", tmp_path / "last")
        sent = {r["frame_id"]: r["body"]["messages"][0]["content"][1]["text"] for r in server.log}
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["variant"] == "verdict-last" and out["label"] == "m (verdict last)"
    assert out["in_grammar_share"] == pytest.approx(10 / 11) and out["grammar_problems"] == {
        "last key is not 'adequate'": 1}
    # recorded in run.json; the prompt sent is the set's prompt rewritten; the request hash names the variant
    assert json.loads((tmp_path / "last" / "run.json").read_text())["variant"] == "verdict-last"
    metadata = {json.loads(line)["frame_id"]: json.loads(line) for line in (set_dir / "metadata.jsonl").open()}
    settings = providers.Settings().to_dict()
    items = {json.loads(line)["frame_id"]: json.loads(line) for line in (tmp_path / "last" / "items.jsonl").open()}
    first_items = {json.loads(line)["frame_id"]: json.loads(line)
                   for line in (tmp_path / "first" / "items.jsonl").open()}
    for fid, row in metadata.items():
        asked = P.rewrite_prompt(row["prompt"], "verdict-last")
        assert sent[fid] == asked and 'Its last key is "adequate"' in asked
        image = items[fid]["image_sha256"]
        assert items[fid]["request_hash"] == request_hash("openai", "m", settings, asked, image, variant="verdict-last")
        assert items[fid]["request_hash"] != request_hash("openai", "m", settings, asked, image)
        # the benchmark's prompt hashes as it always did (no variant named): old runs resume as they are
        assert first_items[fid]["request_hash"] == request_hash("openai", "m", settings, row["prompt"], image)
        assert items[fid]["prompt_sha256"] == first_items[fid]["prompt_sha256"]  # the frame's identity is the set's

    done = cli("eval", "report", tmp_path / "first", tmp_path / "last", tmp_path / "none", "--out", tmp_path / "rep",
               "--no-plots")
    assert done.returncode == 0, done.stderr
    report = tmp_path / "rep"
    models = {r["label"]: r for r in csv_rows(report / "models.csv")}
    assert models["m (no verdict)"]["f1"] == "" and models["m (no verdict)"]["false_accept"] == ""  # n/a, not 0
    assert float(models["m (no verdict)"]["grammar_share"]) == pytest.approx(10 / 11)
    # verdict first: accepted frames t0 t1 t4 t5 s0 r0 e0 (random, all scored); accepts t5 e0 (right), s1 r1
    # (wrong): precision 2/4, recall 2/7
    assert float(models["m"]["f1"]) == pytest.approx(2 * (2 / 4) * (2 / 7) / (2 / 4 + 2 / 7))
    table = {(r["a"], r["b"], r["environment"]): r for r in csv_rows(report / "variants.csv")}
    assert {k[:2] for k in table} == {("m", "m (verdict last)"), ("m", "m (no verdict)"),
                                      ("m (verdict last)", "m (no verdict)")}

    def check(a, b, env, in_grammar, claims, only, p, rejects=None):
        r = table[(a, b, env)]
        assert int(r["in_grammar_both"]) == in_grammar, (a, b, env)
        assert (int(r["claims_a"]), int(r["claims_b"])) == claims, (a, b, env)
        assert (int(r["claims_a_only"]), int(r["claims_b_only"])) == only, (a, b, env)
        assert float(r["claims_p_exact"]) == pytest.approx(p), (a, b, env)
        if rejects is None:
            assert r["rejects_a"] == "" and r["rejects_p_exact"] == ""
        else:
            assert (int(r["rejects_a"]), int(r["rejects_b"]), float(r["rejects_p_exact"])) == \
                (rejects[0], rejects[1], pytest.approx(rejects[2]))

    # first against last: tape t1..t4 claimed first only: p = 2 (1/2)^4; pooled 4 against 1 (r1): p = 2 * 6/32
    check("m", "m (verdict last)", "tape_gap", 6, (5, 1), (4, 0), 2 / 16, (5, 1, 2 / 16))
    check("m", "m (verdict last)", "slope_gauge", 2, (1, 1), (0, 0), 1.0, (1, 1, 1.0))
    check("m", "m (verdict last)", "rail_attachment", 2, (1, 2), (0, 1), 1.0, (1, 2, 1.0))
    check("m", "m (verdict last)", "all", 10, (7, 4), (4, 1), 12 / 32, (7, 4, 12 / 32))
    # against no verdict: t5 is out of grammar there, so 9 frames; 6 claims dropped, none added: p = 2 (1/2)^6
    check("m", "m (no verdict)", "tape_gap", 5, (5, 1), (4, 0), 2 / 16)
    check("m", "m (no verdict)", "all", 9, (7, 1), (6, 0), 2 / 64)
    check("m (verdict last)", "m (no verdict)", "all", 9, (4, 1), (3, 0), 2 / 8)
    assert ("m", "m (verdict last)", "equipment_label") not in table  # no defect to claim there
    # documentation on t0 t1 t4 t5 s0 r0: first 2/3 2/3 2/3 1 1/2 1/2; last 2/3 1 1 1 1/2 1/2; none 2/3 1 1 0 1 1
    pooled = table[("m", "m (no verdict)", "all")]
    assert int(pooled["documentation_frames"]) == 6
    assert float(pooled["documentation_a"]) == pytest.approx(4 / 6)
    assert float(pooled["documentation_b"]) == pytest.approx((2 / 3 + 4) / 6)
    assert float(table[("m", "m (verdict last)", "all")]["documentation_b"]) == pytest.approx((2 / 3 + 4) / 6)
    # the analyses across models keep to the benchmark's prompt; McNemar on acceptability skips the no-verdict run
    assert {r["label"] for r in csv_rows(report / "misreading.csv")} == {"m", "all models"}
    assert {(r["a"], r["b"]) for r in csv_rows(report / "mcnemar.csv")} == {("m", "m (verdict last)")}
    data = json.loads((report / "report.json").read_text())
    assert [r["label"] for r in data["top_groups"]["documentation"]["rows"]] == ["m"]
    text = (report / "report.md").read_text()
    assert "## Prompt variants" in text
    assert "| m | m (no verdict) | verdict-first / no-verdict | all | 9 | 7 / 1 | 6 / 0 | 0.0312 | n/a |" in text


def test_a_rerun_of_one_variant_is_the_noise_floor(tmp_path):
    set_dir, ids, answers = study(tmp_path)
    again = {**answers["verdict-first"], ids["t1"]: with_verdict(tape(False), "verdict-first", True)}
    served_run(set_dir, tmp_path / "first", answers["verdict-first"], model="m")
    served_run(set_dir, tmp_path / "again", again, model="m", label="m again")
    build = cli("eval", "report", tmp_path / "first", tmp_path / "again", "--out", tmp_path / "rep", "--no-plots")
    assert build.returncode == 0, build.stderr
    pooled = {r["environment"]: r for r in csv_rows(tmp_path / "rep" / "variants.csv")}["all"]
    assert pooled["comparison"] == "rerun" and (int(pooled["claims_a_only"]), int(pooled["claims_b_only"])) == (1, 0)
    assert float(pooled["claims_p_exact"]) == 1.0


# ---- hostile inputs: one line each -----------------------------------------------------------------------------

def test_variant_mismatches_are_one_line_errors(tmp_path):
    set_dir, ids, answers = study(tmp_path)
    served_run(set_dir, tmp_path / "first", answers["verdict-first"], model="m")
    served_run(set_dir, tmp_path / "last", answers["verdict-last"], model="m", variant="verdict-last")
    # resuming a run folder with another variant
    one_line_error(cli("eval", "run", set_dir, "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1",
                       "--model", "m", "--no-api-key", "--variant", "no-verdict", "--out", tmp_path / "last"),
                   "holds a run made with other settings", 'variant: run has "verdict-last", now "no-verdict"')
    # the same model asked with another variant and other settings: the comparison would be confounded
    served_run(set_dir, tmp_path / "last-t0", answers["verdict-last"], model="m", variant="verdict-last",
               settings=providers.Settings(temperature=0.0))
    one_line_error(cli("eval", "report", tmp_path / "first", tmp_path / "last-t0", "--out", tmp_path / "r1"),
                   "ask m with other settings as well as another prompt variant", "temperature: 0.0 against null")
    assert not (tmp_path / "r1").exists()  # refused before the report is written
    # a run.json whose variant is not one
    config = json.loads((tmp_path / "last" / "run.json").read_text())
    (tmp_path / "last" / "run.json").write_text(json.dumps({**config, "variant": "sideways"}))
    one_line_error(cli("eval", "report", tmp_path / "first", tmp_path / "last", "--out", tmp_path / "r2"),
                   "run.json: 'variant' is 'sideways', not one of verdict-first, verdict-last, no-verdict")
    one_line_error(cli("eval", "rescore", tmp_path / "last"), "'variant' is 'sideways'")
    # a set whose prompts are not the benchmark's cannot be asked as a variant: refused before anything is written
    hand = make_set(tmp_path / "hand", [frame("widget", "random", 0, "accept", {"count": 3}, None)])
    one_line_error(cli("eval", "run", hand, "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1",
                       "--model", "m", "--no-api-key", "--variant", "verdict-last", "--out", tmp_path / "never"),
                   "frame widget-random-s0-000000: its prompt is not the benchmark's", "--variant verdict-last")
    assert not (tmp_path / "never").exists()

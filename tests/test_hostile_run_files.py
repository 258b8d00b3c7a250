"""A run folder, a price file and a report folder are files someone else may hand over too: they are read and
written through the same file and input layers as a set (core/safefs.py, core/safe_parse.py), so a pipe, a link,
deep nesting or a long number is one `error:` line and nothing is written through a link (issue 38)."""
from __future__ import annotations

import json
import os

from eval_support import cli, make_set, one_line_error, standard_frames


def _baseline(tmp_path):
    set_dir = make_set(tmp_path / "set", standard_frames())
    run = tmp_path / "run"
    done = cli("eval", "baseline", set_dir, "--kind", "always-accept", "--out", run)
    assert done.returncode == 0, done.stderr
    return set_dir, run


def test_a_hostile_run_json_is_one_line(tmp_path):
    _, run = _baseline(tmp_path)
    good = (run / "run.json").read_bytes()
    hostile = {
        "fifo": None,
        "deep": b'{"kind": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "long number": b'{"kind": "baseline", "items": ' + b"7" * 5000 + b"}",
        "link": None,
    }
    for what, body in hostile.items():
        (run / "run.json").unlink()
        if what == "fifo":
            os.mkfifo(run / "run.json")
        elif what == "link":
            (tmp_path / "elsewhere.json").write_bytes(good)
            (run / "run.json").symlink_to(tmp_path / "elsewhere.json")
        else:
            (run / "run.json").write_bytes(body)
        one_line_error(cli("eval", "rescore", run), "cannot read", "run.json")  # answers at once: no hang
    (run / "run.json").unlink()
    (run / "run.json").write_bytes(good)
    assert cli("eval", "rescore", run).returncode == 0


def test_a_hostile_price_file_is_one_line(tmp_path):
    _, run = _baseline(tmp_path)
    prices = tmp_path / "prices.json"
    prices.write_text('{"currency": "USD", "price": ' + "[" * 50_000 + "]" * 50_000 + "}")
    one_line_error(cli("eval", "report", run, "--out", tmp_path / "rep", "--prices", prices, "--no-plots"),
                   "price file", "nested more than 64")
    toml = tmp_path / "prices.toml"
    toml.write_text('currency = "USD"\n[[price]]\nmodel = "m"\ninput = ' + "9" * 5000 + "\n")
    one_line_error(cli("eval", "report", run, "--out", tmp_path / "rep", "--prices", toml, "--no-plots"),
                   "price file", "is not valid TOML", "4300 digits")


def test_a_report_never_writes_through_a_link(tmp_path):
    _, run = _baseline(tmp_path)
    rep = tmp_path / "rep"
    rep.mkdir()
    victim = tmp_path / "victim.md"
    victim.write_text("keep me\n")
    (rep / "report.md").symlink_to(victim)
    (rep / "environments.csv").symlink_to(victim)
    done = cli("eval", "report", run, "--out", rep, "--no-plots")
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == "keep me\n"  # the links were replaced by the report's own files
    assert not (rep / "report.md").is_symlink() and (rep / "report.md").read_text().startswith("#")
    assert json.loads((rep / "report.json").read_text())["runs"]


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from realitybench_addon.core.errors import RealityBenchError  # noqa: E402
from realitybench_addon.evaluation.runs import RunStore  # noqa: E402

_run_json = st.one_of(
    st.binary(max_size=300),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
                 lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                 max_leaves=25).map(lambda v: json.dumps(v).encode()),
    st.builds(lambda n, body: b"[" * n + body, st.integers(0, 50_000), st.binary(max_size=20)),
    st.builds(lambda digits: b'{"kind": "model", "items": ' + b"9" * digits + b"}", st.integers(1, 6000)),
    st.builds(lambda text: b"\xef\xbb\xbf" + text.encode(), st.text(max_size=40)))


@settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_run_json)
def test_any_run_json_is_read_or_refused_in_one_line(tmp_path, data):
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    (run / "run.json").write_bytes(data)
    try:
        config = RunStore(run).read_config()
    except RealityBenchError as exc:
        assert "\n" not in str(exc) and "run.json" in str(exc)
    else:
        assert isinstance(config, dict)

"""Generated hostile input (Hypothesis) for every reader of outside input the file and input layers serve.

Each property: whatever the input, the reader returns a value or raises the project's one-line error (a
RealityBenchError subclass whose message has no line break); never another exception, never a hang. The
budget is fixed (max_examples, derandomize=True: the same cases on every run, so CI is deterministic).
Run with `--hypothesis-show-statistics` to see how many cases each property ran.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, event, given, settings, strategies as st  # noqa: E402

from realitybench_addon import setio  # noqa: E402
from realitybench_addon.core import rng  # noqa: E402
from realitybench_addon.core.errors import RealityBenchError  # noqa: E402
from realitybench_addon.core.presets import PresetError, load_preset  # noqa: E402
from realitybench_addon.core.safe_parse import MAX_DEPTH, InputError, loads_json  # noqa: E402
from realitybench_addon.rating.errors import RatingsError  # noqa: E402
from realitybench_addon.rating.files import read_ratings_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BUDGET = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Characters that some line splitter or other takes for a line end, and other troublemakers.
BREAKS = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x00", "\ufeff"]
hostile_char = st.sampled_from(BREAKS + ["[", "]", "{", "}", '"', "\\", ",", ":", "9", "\ud800", "é", " "])


def one_line_error(exc: BaseException, kind=RealityBenchError) -> None:
    assert isinstance(exc, kind), f"{type(exc).__name__}: {exc}"
    assert "\n" not in str(exc) and "\r" not in str(exc), repr(str(exc))
    try:
        event("refused in one line")  # the split is shown by --hypothesis-show-statistics
    except hypothesis.errors.InvalidArgument:
        pass  # outside a property


@pytest.fixture(scope="module")
def folder():
    path = Path(tempfile.mkdtemp(prefix="rb-props-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def row(i: int, note: str = "ok") -> dict:
    fid = f"tape_gap-random-s0-{i:06d}"
    return {"file_name": f"tape_gap/{fid}.jpg", "frame_id": fid, "environment": "tape_gap", "stratum": "random",
            "slot": i, "note": note}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


json_value_text = st.one_of(
    st.integers(min_value=0, max_value=200).map(nested),
    st.integers(min_value=4200, max_value=6000).map(lambda n: "9" * n),
    st.text(hostile_char, max_size=30).map(lambda t: json.dumps(t, ensure_ascii=False)),
    st.text(hostile_char, max_size=30),
    st.just('"\\ud800"'),
)


# ---- metadata.jsonl -------------------------------------------------------------------------------------

metadata_piece = st.one_of(st.binary(max_size=40), st.integers(0, 3).map(lambda i: json.dumps(row(i)).encode()),
                           json_value_text.map(lambda t: t.encode("utf-8", "surrogatepass")))


@BUDGET
@given(data=st.one_of(st.binary(max_size=400),
                      st.builds(lambda pieces, end: b"\n".join(pieces) + end, st.lists(metadata_piece, max_size=6),
                                st.sampled_from([b"\n", b"", b"\r\n", b"\x85"]))))
def test_any_bytes_as_metadata_read_or_refused(folder, data):
    (folder / setio.METADATA).write_bytes(data)
    try:
        rows = setio.read_rows(folder)
    except RealityBenchError as exc:
        one_line_error(exc, setio.SetError)
    else:
        assert isinstance(rows, list) and all(isinstance(r, dict) for r in rows)
        event("read")
    parsed, damaged, whole_end = setio.scan_jsonl(folder / setio.METADATA)
    assert whole_end == len(data) - len(data.split(b"\n")[-1])  # every whole line counted, split on \n only
    assert len(parsed) + len(damaged) == data.count(b"\n")


@BUDGET
@given(notes=st.lists(st.text(hostile_char, max_size=12), min_size=1, max_size=6),
       stray=st.lists(st.sampled_from(["\r", " ", "\t"]), max_size=6),
       poison=st.one_of(st.none(), json_value_text))
def test_generated_rows_with_line_breaks_deep_arrays_and_long_ints(folder, notes, stray, poison):
    """Rows whose strings hold \\r, \\x85, \\u2028... and whose whitespace holds a stray \\r are all read, in
    order; a row holding a 100-deep array or a 5000-digit number is a SetError naming its line."""
    texts = []
    for i, note in enumerate(notes):
        if "\ud800" in note:
            note = note.replace("\ud800", "?")
        line = json.dumps(row(i, note), ensure_ascii=False, separators=(",", ":"))
        if stray:  # JSON whitespace between tokens: `bytes.splitlines` cut the line here
            line = line.replace(",", "," + "".join(stray), 1)
        texts.append(line)
    bad_line = None
    if poison is not None:
        bad_line = len(texts)  # 0-based index of the line with the poison
        texts.append(json.dumps(row(len(texts)))[:-1] + ',"poison":' + poison + "}")
    (folder / setio.METADATA).write_bytes(("\n".join(texts) + "\n").encode("utf-8", "surrogatepass"))
    try:
        rows = setio.read_rows(folder)
    except setio.SetError as exc:
        one_line_error(exc)
        assert bad_line is not None and f"line {bad_line + 1}" in str(exc), str(exc)
        return
    event("read")
    assert [r["note"] for r in rows[: len(notes)]] == [n.replace("\ud800", "?") for n in notes]
    if bad_line is not None:  # the poison was harmless: a shallow array, a short string
        assert len(rows) == len(notes) + 1
        try:
            loads_json(poison)
        except InputError:
            pytest.fail(f"{poison[:40]!r} was read in a row but refused alone")


def test_a_stray_carriage_return_hides_no_row(folder):
    """The probe's case: one \\r in line 2 of 6 hid 5 rows (rescore saw 1 frame of 6)."""
    lines = [json.dumps(row(i), separators=(",", ":")) for i in range(6)]
    lines[1] = lines[1].replace(",", ",\r", 1)
    (folder / setio.METADATA).write_text("\n".join(lines) + "\n", newline="")
    assert [r["slot"] for r in setio.read_rows(folder)] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("poison, why", [(nested(100_000), "nested more than 64"),
                                         ("9" * 5000, "number too long"),
                                         (nested(MAX_DEPTH + 1), "nested more than 64"),
                                         ('"\\udc00"', "surrogate")])
def test_deep_and_huge_values_are_one_line_errors(folder, poison, why):
    lines = [json.dumps(row(0)), json.dumps(row(1))[:-1] + ',"x":' + poison + "}"]
    (folder / setio.METADATA).write_text("\n".join(lines) + "\n")
    with pytest.raises(setio.SetError, match=rf"metadata.jsonl line 2 is damaged: .*{why}.*--repair") as info:
        setio.read_rows(folder)
    one_line_error(info.value)
    shallow = json.dumps(row(1))[:-1] + ',"x":' + nested(MAX_DEPTH - 1) + "}"  # 64 levels with the row
    (folder / setio.METADATA).write_text(json.dumps(row(0)) + "\n" + shallow + "\n")
    assert len(setio.read_rows(folder)) == 2  # 64 deep is still read


# ---- manifest.json --------------------------------------------------------------------------------------

@BUDGET
@given(data=st.one_of(st.binary(max_size=300),
                      json_value_text.map(lambda t: ('{"complete": true, "x": ' + t + "}").encode("utf-8",
                                                                                                 "surrogatepass"))))
def test_any_manifest_read_or_refused(folder, data):
    (folder / setio.MANIFEST).write_bytes(data)
    try:
        manifest = setio.read_manifest(folder)
    except RealityBenchError as exc:
        one_line_error(exc, setio.SetError)
    else:
        assert isinstance(manifest, dict)
        event("read")


# ---- presets --------------------------------------------------------------------------------------------

SHIPPED = (ROOT / "presets" / "tape_gap.toml").read_text(encoding="utf-8")
toml_piece = st.one_of(
    st.sampled_from(["x = 1", "[terms]", "[[a]]", "a = [", "]", "b = {", "}", 'c = "', "d = 1979-05-27",
                     "e = 0x7f", "f = inf", "g = nan", "[terms.sharp_at_target]", "threshold = 1e999",
                     "environment = \"tape_gap\"", "\ufeff", "blur_limit_px = -1", "gray = [2, 1]"]),
    st.integers(min_value=1, max_value=3000).map(lambda n: "deep = " + nested(n)),
    st.integers(min_value=1, max_value=3000).map(lambda n: "t = " + "{a = " * n + "1" + "}" * n),
    st.integers(min_value=4000, max_value=6000).map(lambda n: "big = " + "9" * n),
    st.text(hostile_char, max_size=20),
)


@BUDGET
@given(pieces=st.lists(toml_piece, max_size=6), keep_shipped=st.booleans(), bom=st.booleans())
def test_generated_presets_load_or_fail_with_preset_error(folder, pieces, keep_shipped, bom):
    text = ("\ufeff" if bom else "") + (SHIPPED if keep_shipped else "") + "\n" + "\n".join(pieces) + "\n"
    path = folder / "tape_gap.toml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        preset = load_preset(path)
    except RealityBenchError as exc:
        one_line_error(exc, PresetError)
    else:
        assert preset.environment == "tape_gap"
        event("read")


def test_a_preset_with_a_byte_order_mark_loads(folder):
    path = folder / "tape_gap.toml"
    path.write_bytes(b"\xef\xbb\xbf" + SHIPPED.encode())
    assert load_preset(path).content_hash() == load_preset(ROOT / "presets" / "tape_gap.toml").content_hash()


@pytest.mark.parametrize("extra, why", [("deep = " + nested(30_000), "nests more than 64"),
                                        ("big = " + "9" * 5000, "cannot be read")])
def test_deep_and_huge_presets_are_preset_errors(folder, extra, why):
    path = folder / "tape_gap.toml"
    path.write_text(SHIPPED + "\n" + extra + "\n")
    with pytest.raises(PresetError, match=why) as info:
        load_preset(path)
    one_line_error(info.value)


# ---- ratings files --------------------------------------------------------------------------------------

FRAMES = {"tape_gap-random-s0-000000": (("tilted", "boolean"),), "tape_gap-random-s0-000001": ()}
hostile_cell = st.one_of(st.text(hostile_char, max_size=12),
                         st.integers(min_value=130_000, max_value=140_000).map(lambda n: "x" * n), json_value_text)
VALID = [st.sampled_from(list(FRAMES)), st.sampled_from(["ann", "bob", " cy "]),
         st.sampled_from(["accept", "reject", "cant_tell", "ACCEPT"]), st.sampled_from(["", "7.5", "0"]),
         st.sampled_from(["", '{"tilted": true}', "{}"]), st.sampled_from(["", "2026-11-29T20:01:02Z"])]
csv_row = st.one_of(st.tuples(*[st.one_of(*[v] * 9, hostile_cell) for v in VALID]).map(list),
                    st.lists(hostile_cell, min_size=1, max_size=7))


@BUDGET
@given(rows=st.lists(csv_row, max_size=4), header=st.sampled_from([True, True, True, False]))
def test_generated_ratings_csv_read_or_refused(folder, rows, header):
    import csv
    import io
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if header:
        writer.writerow(["frame_id", "rater", "rating", "seconds", "fields", "rated_at"])
    for r in rows:
        writer.writerow(r)
    path = folder / "ratings.csv"
    path.write_bytes(buf.getvalue().encode("utf-8", "surrogatepass"))
    try:
        ratings = read_ratings_file(path, FRAMES)
    except RealityBenchError as exc:
        one_line_error(exc, RatingsError)
    else:
        assert ratings and all(r.frame_id in FRAMES for r in ratings)
        event("read")


@BUDGET
@given(lines=st.lists(st.one_of(
    st.fixed_dictionaries({"frame_id": st.sampled_from(list(FRAMES) + ["x\r\ny"]),
                           "rater": st.one_of(st.sampled_from(["ann", "bob"]), st.text(hostile_char, max_size=6)),
                           "rating": st.sampled_from(["accept", "no"]),
                           "fields": st.one_of(st.none(), st.just({"tilted": True}), st.just("{\"tilted\": 1}"))}
                          ).map(lambda d: json.dumps(d, ensure_ascii=False)),
    json_value_text), max_size=5), raw=st.binary(max_size=60))
def test_generated_ratings_jsonl_read_or_refused(folder, lines, raw):
    path = folder / "ratings.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass") + b"\n" + raw)
    try:
        ratings = read_ratings_file(path, FRAMES)
    except RealityBenchError as exc:
        one_line_error(exc, RatingsError)
    else:
        assert all(r.frame_id in FRAMES for r in ratings)
        event("read")


def test_a_131k_character_csv_cell_is_one_line_error(folder):
    path = folder / "ratings.csv"
    path.write_text("frame_id,rater,rating,seconds,fields\n"
                    f"tape_gap-random-s0-000000,ann,accept,1,\"{'x' * 2_000_000}\"\n")
    with pytest.raises(RatingsError, match=r"line \d+: not CSV \(field larger than field limit") as info:
        read_ratings_file(path, FRAMES)
    one_line_error(info.value)
    path.write_text("frame_id,rater,rating,seconds,rated_at\n"
                    f"tape_gap-random-s0-000000,ann,accept,1,{'x' * 131_073}\n")
    with pytest.raises(RatingsError, match="rated_at") as info:  # read (under 1 MiB), then refused as a time
        read_ratings_file(path, FRAMES)
    one_line_error(info.value)


# ---- frame ids ------------------------------------------------------------------------------------------

@BUDGET
@given(text=st.one_of(
    st.text(max_size=40),
    st.builds(lambda e, s, seed, i: f"{e}-{s}-s{seed}-{i}",
              st.sampled_from(["tape_gap", "Tape", "tape gap", "t-g", ""]),
              st.sampled_from(["random", "positive", "demo", "bogus", "RANDOM"]),
              st.one_of(st.integers(min_value=0, max_value=10 ** 25).map(str),
                        st.sampled_from(["٣", "1_0", " 1", "+1"])),
              st.one_of(st.integers(min_value=0, max_value=10 ** 25).map(lambda n: f"{n:06d}"),
                        st.sampled_from(["٣٣", "1\n", "9" * 5000])))))
def test_frame_ids_parse_and_round_trip_or_fail_in_one_line(text):
    try:
        seed, env, stratum, index = rng.parse_frame_id(text)
    except RealityBenchError as exc:
        one_line_error(exc, rng.FrameIdError)
        assert isinstance(exc, ValueError)  # callers that caught ValueError still do
    else:
        assert stratum in rng.STRATA and text.isascii()
        event("read")
        assert int(text.rsplit("-", 1)[1]) == index and env == text.split("-")[0]
        assert rng.parse_frame_id(rng.frame_id(seed, env, stratum, index)) == (seed, env, stratum, index)

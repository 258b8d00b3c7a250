"""A guide run's kept photos are read through the guarded layer: whatever bytes lie in a photo's record (a run
folder handed over, a damaged disk), the turn either reuses a whole photo or renders it again; never a traceback."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from realitybench_addon.guide.loop import _kept_photo


def write(tmp_path, meta: bytes, jpeg: bytes = b"\xff\xd8jpeg\xff\xd9"):
    jpg, rec = tmp_path / "photo-1.jpg", tmp_path / "photo-1.json"
    jpg.write_bytes(jpeg)
    rec.write_bytes(meta)
    return jpg, rec


def test_a_whole_record_is_read_back(tmp_path):
    jpg, rec = write(tmp_path, json.dumps({"state": {"d": 1.0}, "sha256": "x"}).encode())
    assert _kept_photo(jpg, rec) == (b"\xff\xd8jpeg\xff\xd9", {"state": {"d": 1.0}, "sha256": "x"})


def test_a_missing_photo_or_record_is_none(tmp_path):
    assert _kept_photo(tmp_path / "none.jpg", tmp_path / "none.json") is None
    jpg, rec = write(tmp_path, b"{}")
    jpg.unlink()
    assert _kept_photo(jpg, rec) is None


@settings(max_examples=200, deadline=None)
@given(meta=st.one_of(st.binary(max_size=300),
                      st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                                   lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids,
                                                                                              max_size=3),
                                   max_leaves=8).map(lambda v: json.dumps(v).encode())))
def test_any_record_bytes_give_a_record_or_none(tmp_path_factory, meta):
    jpg, rec = write(tmp_path_factory.mktemp("kept"), meta)
    kept = _kept_photo(jpg, rec)
    assert kept is None or (isinstance(kept[1], dict) and kept[0] == b"\xff\xd8jpeg\xff\xd9")
    def no_duplicates(pairs):
        if len({k for k, _ in pairs}) < len(pairs):
            raise ValueError("duplicate key")  # the guarded parser refuses these
        return dict(pairs)

    try:
        parsed = json.loads(meta, object_pairs_hook=no_duplicates)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and len(meta) < 200:  # a small whole record is reused as it was written
        assert kept is not None and kept[1] == parsed

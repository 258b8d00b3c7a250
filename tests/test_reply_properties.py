"""A model's reply is outside input: whatever it holds, the grammar judges it (in grammar or not, with the reason)
and never raises, so one hostile reply cannot make a run unscorable (every rescore would crash on it)."""
import json

from hypothesis import HealthCheck, given, settings, strategies as st

from realitybench_addon.core.safe_parse import MAX_DEPTH, nesting_depth
from realitybench_addon.evaluation.grammar import parse_reply

KEYS = [("leaning", "boolean"), ("crossing_inches", "number")]
BUDGET = settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_a_deep_reply_is_a_failed_item_with_its_reason():
    for reply in ("[" * 100_000, "{\"a\": " * 50_000, "Sure! " + "[" * 3000 + "]" * 3000):
        parsed = parse_reply(reply, "tape_gap", KEYS)
        assert not parsed.in_grammar and parsed.problems == [f"nested more than {MAX_DEPTH} arrays or objects deep"]
    ok = parse_reply(json.dumps({"adequate": True, "leaning": False, "crossing_inches": 12.5}), "tape_gap", KEYS)
    assert ok.in_grammar and ok.adequate is True and ok.values == {"leaning": False, "crossing_inches": 12.5}


def test_nesting_is_counted_outside_strings_only():
    assert nesting_depth('{"a": "[[[[{{{{\\"[[["}') == 1
    assert nesting_depth("[[1], [[2]]]") == 3
    assert nesting_depth("]]]] [") == 1  # stray closers never go below zero


_json_like = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                      max_size=4), max_leaves=30)


@BUDGET
@given(st.one_of(st.text(max_size=400),
                 _json_like.map(lambda v: json.dumps(v, allow_nan=True)),
                 st.builds(lambda n, tail: "[" * n + tail, st.integers(0, 20_000), st.text(max_size=20)),
                 st.builds(lambda prose, v: f"{prose} {json.dumps(v)} {prose}", st.text(max_size=40), _json_like),
                 st.builds(lambda digits: '{"adequate": true, "crossing_inches": ' + "9" * digits + "}",
                           st.integers(1, 6000)),
                 st.builds(lambda a, b, c: '{"adequate": true, "crossing_inches": "%s %s/%s"}' % ("7" * a, "3" * b,
                                                                                                "1" * c),
                           st.integers(1, 5000), st.integers(1, 5000), st.integers(1, 5000))))
def test_any_reply_is_judged_never_raised(reply):
    parsed = parse_reply(reply, "tape_gap", KEYS)
    assert isinstance(parsed.in_grammar, bool)
    assert parsed.in_grammar or parsed.problems  # out of the grammar always says why
    assert all("\n" not in p for p in parsed.problems)

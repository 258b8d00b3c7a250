"""Argument types for every command line: numbers in ASCII digits only.

Python's int() and float() accept any Unicode decimal digit ('٣' is 3, '１' is 1), underscores ('1_0') and
surrounding whitespace; a frame index or a seed typed with them would name a frame its id never spells. These
types take an optional sign and ASCII digits (a float also a point, an exponent, 'nan' and 'inf', which the
commands that need a finite value refuse with their own line) and refuse anything else through argparse
(`error: argument --index: ...`, exit 2).
"""
from __future__ import annotations

import argparse
import re

_INT = re.compile(r"[+-]?[0-9]{1,30}")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,4})?|[+-]?(?:nan|inf|infinity)",
                    re.IGNORECASE)


def ascii_int(text: str) -> int:
    if not isinstance(text, str) or not _INT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text[:60]!r} is not a whole number in ASCII digits (0-9)")
    return int(text)


def ascii_float(text: str) -> float:
    if not isinstance(text, str) or not _FLOAT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text[:60]!r} is not a number in ASCII digits (0-9)")
    return float(text)

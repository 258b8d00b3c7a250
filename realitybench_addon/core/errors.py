"""The root of every error a user can cause: bad input, a missing file or object, a damaged set.

Every such error derives from RealityBenchError, so callers catch one class: the CLI prints its
message as one `error: ...` line and exits with code 2, the sidebar shows it in a report, and
anything else that escapes is a bug. Subclasses (SetError, ExportError, PresetError, EvalError,
RatingsError, ...) say which part refused; their messages name the problem and the fix.
"""
from __future__ import annotations


class RealityBenchError(Exception):
    """A user error: the message names what was wrong and how to fix it."""

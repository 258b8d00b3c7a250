"""The one exception a user can cause (bad input, missing key variable, malformed file).

The CLI prints it as one `error: ...` line and exits with code 2; anything else is a bug.
"""
from __future__ import annotations

from ..core.errors import RealityBenchError


class EvalError(RealityBenchError):
    pass

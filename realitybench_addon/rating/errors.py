"""The one exception a rater or designer can cause here; the CLI prints it as one `error:` line."""
from __future__ import annotations

from ..core.errors import RealityBenchError


class RatingsError(RealityBenchError):
    pass

"""The one exception a rater or designer can cause here; the CLI prints it as one `error:` line."""
from __future__ import annotations

from ..evaluation.errors import EvalError


class RatingsError(EvalError):
    pass

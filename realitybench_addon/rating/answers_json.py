"""A blind viewer's answers file, decoded: read through the guarded file and JSON layer (a regular file, size,
depth and number limits), every failure one RatingsError naming the file. blind_pairs and blind_single check
what it holds."""
from __future__ import annotations

from pathlib import Path

from .errors import RatingsError


def load_answers_json(path: Path):
    from ..core.errors import RealityBenchError
    from ..core.safe_parse import InputError, loads_json
    from ..core.safefs import CAPS, read_path
    try:
        return loads_json(read_path(Path(path), "json"), max_bytes=CAPS["json"])
    except FileNotFoundError:
        raise RatingsError(f"{path}: no such answers file") from None
    except OSError as err:
        raise RatingsError(f"{path}: cannot be read ({err.strerror or err})") from None
    except (InputError, RealityBenchError) as err:
        raise RatingsError(f"{path}: not a JSON answers file ({err})") from None

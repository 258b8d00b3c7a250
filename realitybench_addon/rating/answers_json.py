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


def read_panel(paths, read_one) -> dict:
    """Each viewer's answers, {viewer: answers}, from one file per viewer; `read_one(path)` reads a file as
    (viewer, answers). A viewer named in two files is a RatingsError (one file per viewer)."""
    viewers: dict = {}
    for path in paths:
        name, answers = read_one(Path(path))
        if name in viewers:
            raise RatingsError(f"{path}: viewer {name!r} answered twice; one file per viewer")
        viewers[name] = answers
    return viewers

"""Which loader a folder needs: an exported set (answers/items.py) or real photographs (real_photos.py).

Both are imagefolders with a metadata.jsonl; every exported row carries its `slot`, a real photo's
row never does. `eval run` and `eval baseline` take either.

Gray frames (answers/counting.is_gray: no failing term, a gray one) are left out of what is asked,
as the paper's 1,378 frames are "after the gray zones"; `include_gray=True` (`--include-gray`) keeps
them for a study of the gray zones.
"""
from __future__ import annotations

from pathlib import Path

from ..answers.counting import is_gray
from ..answers.items import AskItem, load_set
from ..setio import METADATA, SetError
from .real_photos import is_real_folder, load_real_photos


def load_items(directory, *, include_gray: bool = False) -> list[AskItem]:
    """The items asked: every frame of the set but its gray frames (all of them with `include_gray`)."""
    if Path(directory).is_dir() and not (Path(directory) / METADATA).exists():
        raise SetError(f"{directory} holds no {METADATA}: neither an exported set nor a folder of real photographs "
                       f"(docs/evaluation.md)")
    items = load_real_photos(directory) if is_real_folder(directory) else load_set(directory)
    return items if include_gray else [a for a in items if not is_gray(a.item)]

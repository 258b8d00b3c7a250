"""Which loader a folder needs: an exported set (answers/items.py) or real photographs (real_photos.py).

Both are imagefolders with a metadata.jsonl; every exported row carries its `slot`, a real photo's
row never does. `eval run` and `eval baseline` take either.
"""
from __future__ import annotations

from pathlib import Path

from ..answers.items import AskItem, load_set
from ..setio import METADATA, SetError
from .real_photos import is_real_folder, load_real_photos


def load_items(directory) -> list[AskItem]:
    if Path(directory).is_dir() and not (Path(directory) / METADATA).exists():
        raise SetError(f"{directory} holds no {METADATA}: neither an exported set nor a folder of real photographs "
                       f"(docs/evaluation.md)")
    return load_real_photos(directory) if is_real_folder(directory) else load_set(directory)

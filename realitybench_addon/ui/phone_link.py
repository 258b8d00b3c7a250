"""The link to the phone view (ui/phone_view.py, written beside this): its functions are called only where
that module and the function exist, so the sidebar works before and without it."""
from __future__ import annotations

import importlib


def function(name: str):
    """phone_view.<name>, or None."""
    try:
        module = importlib.import_module(f"{__package__}.phone_view")
    except ImportError:
        return None
    return getattr(module, name, None)


def record_render(image_path: str, mask_path: str, failing_terms: list, caption: str = "") -> bool:
    """Show a render in the phone view; False where there is no phone view. Its errors (a RealityBenchError:
    an unreadable picture) propagate, one line each."""
    record = function("record_render")
    if record is None:
        return False
    record(image_path, mask_path, failing_terms, caption=caption)
    return True


def clear() -> None:
    """The phone view's frame no longer stands (another scene was built)."""
    forget = function("clear_phone_view")
    if forget is not None:
        forget()

"""The link to the phone view (ui/phone_view.py, written beside this): its functions are called only where
that module and the function exist, so the sidebar works before and without it.

`show_job_render` hands a background job's render (a Check's, or Suggest a Pose's confirming render at the
suggested pose: the JPEG as the phone saves it and the target mask, written by the API's `keep_pictures`) to the
phone view, with the failing terms `failing_regions` says where to draw.
"""
from __future__ import annotations

import importlib
import shutil

KEEP_FILES = 4  # the last two renders' JPEG and mask stay (the phone view may still read them)


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


def failing_regions(terms: list, failing: list, target_terms=()) -> list[dict]:
    """The failing terms as the phone view lists them: each with its label, and region "target" (drawn over the
    target's mask) for an image term and for the target's standard capture terms (`target_terms`, a check's:
    sharp at target, in frame, unoccluded); the others are listed as not shown."""
    by_name = {t["name"]: t for t in terms}
    drawn = set(target_terms)
    return [{"name": name, "label": by_name.get(name, {}).get("label") or name,
             "region": "target" if name in drawn or by_name.get(name, {}).get("kind") == "image" else None}
            for name in failing]


def show_job_render(result: dict, job, failing: list, caption: str) -> bool:
    """Show a background job's render in the phone view: its JPEG and mask copied out of the job's folder under a
    name of their own (Blender never shows a cached picture), `result`'s paths pointed at the copies; False where
    the job rendered nothing or there is no phone view."""
    if not result.get("image_path"):
        return False
    keep = job.keep_files()
    pictures = sorted((p for p in keep.iterdir() if p.name.startswith(("check-", "suggest-"))),
                      key=lambda p: p.stat().st_mtime)
    for old in pictures[: max(0, len(pictures) - KEEP_FILES)]:
        old.unlink(missing_ok=True)
    stamp = f"{job.job['kind']}-{job.folder.name}"
    image, mask = keep / f"{stamp}.jpg", keep / f"{stamp}-mask.png"
    shutil.copyfile(result["image_path"], image)
    shutil.copyfile(result["mask_path"], mask)
    result["image_path"], result["mask_path"] = str(image), str(mask)
    return record_render(str(image), str(mask), failing, caption=caption)


def clear() -> None:
    """The phone view's frame no longer stands (another scene was built)."""
    forget = function("clear_phone_view")
    if forget is not None:
        forget()

"""Live readouts: geometric terms of the active camera, cached, refreshed when the camera moves.

A depsgraph handler marks the cache stale when the active camera (object or lens) changed,
and recomputes at most every DEBOUNCE_S so dragging the camera stays smooth; a timer (in
the UI) picks up the last move. It never writes Blender data; panels only read `STATE`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

import bpy

DEBOUNCE_S = 0.1


@dataclass
class LiveState:
    key: Optional[tuple] = None  # (environment, seed, index, stratum): the scene the readouts belong to
    result: Optional[dict] = None
    error: str = ""
    stale: bool = True
    busy: bool = False  # computing: ignore the updates the computation itself causes
    preset: object = None  # the sidebar's edited preset (None: the shipped one)
    computed_at: float = 0.0
    compute_s: float = 0.0
    timings: list = field(default_factory=list)


STATE = LiveState()


def bind(environment: str, seed: int, index: int, stratum: str = "random") -> None:
    """Readouts now follow this frame's scene."""
    if STATE.preset is not None and STATE.preset.environment != environment:
        STATE.preset = None
    STATE.key = (environment, seed, index, stratum)
    STATE.result = None
    STATE.stale = True


def unbind() -> None:
    STATE.key = None
    STATE.result = None


def refresh() -> Optional[dict]:
    """Recompute the geometric terms of the active camera now."""
    from .. import api

    if STATE.key is None:
        return None
    environment, seed, index, stratum = STATE.key
    t = time.perf_counter()
    STATE.busy = True
    try:
        # never builds: a handler must not change the scene it is watching
        STATE.result = api.check_active(environment, seed, index, stratum=stratum, render=False, build=False,
                                        preset=STATE.preset)
        STATE.error = ""
    except api.RealityBenchError as exc:
        STATE.result, STATE.error = None, str(exc)
    finally:
        STATE.busy = False
    STATE.compute_s = time.perf_counter() - t
    STATE.computed_at = time.perf_counter()
    STATE.stale = False
    return STATE.result


def _camera_changed(scene, depsgraph) -> bool:
    camera = scene.camera
    if camera is None:
        return False
    for update in depsgraph.updates:
        original = getattr(update.id, "original", update.id)
        if original == camera and update.is_updated_transform:
            return True
        if original == camera.data:
            return True
    return False


def _deferred_refresh():
    if STATE.stale:
        refresh()
        _redraw()
    return None  # one shot


def _redraw() -> None:
    for window in getattr(bpy.context.window_manager, "windows", ()):
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()


@bpy.app.handlers.persistent
def on_depsgraph_update(scene, depsgraph) -> None:
    if STATE.key is None or STATE.busy or not _camera_changed(scene, depsgraph):
        return
    STATE.stale = True
    if time.perf_counter() - STATE.computed_at >= DEBOUNCE_S:
        refresh()
    elif not bpy.app.background and not bpy.app.timers.is_registered(_deferred_refresh):
        bpy.app.timers.register(_deferred_refresh, first_interval=DEBOUNCE_S)


@bpy.app.handlers.persistent
def on_load_post(*_args) -> None:
    """A loaded file has other objects: forget the bound scene."""
    unbind()

"""What this Blender can render with: the denoiser and the Cycles devices, detected once, offered as options.

Debian's Blender 3.4.1 has no OpenImageDenoise: there the sidebar shows denoising as off, with the reason,
and every button renders without it (a denoised render would fail there). A GPU choice is offered only when
Cycles finds a device of one of its GPU backends.
"""
from __future__ import annotations

import functools
from typing import Optional

import bpy

from ..bl import compat

GPU_BACKENDS = ("OPTIX", "CUDA", "HIP", "METAL", "ONEAPI")  # bl.render's order
BACKEND_NAMES = {"OPTIX": "OptiX", "CUDA": "CUDA", "HIP": "HIP", "METAL": "Metal", "ONEAPI": "oneAPI"}


class Forced:
    """Tests (and a designer checking the no-denoiser path) can force a capability off: None means detect."""

    denoiser: Optional[bool] = None
    gpu_backends: Optional[tuple] = None


def has_denoiser() -> bool:
    if Forced.denoiser is not None:
        return Forced.denoiser
    return compat.has_openimagedenoise()


NO_DENOISER = "this Blender was built without OpenImageDenoise: renders are not denoised"


def denoise(settings) -> bool:
    """The sidebar's Denoise option as a render can use it: on only where this Blender can denoise."""
    return bool(settings.denoise) and has_denoiser()


@functools.lru_cache(maxsize=1)
def _detected_gpu_backends() -> tuple:
    addon = bpy.context.preferences.addons.get("cycles")
    prefs = addon.preferences if addon is not None else None
    if prefs is None:
        return ()
    found, before = [], prefs.compute_device_type
    try:
        for backend in GPU_BACKENDS:
            try:
                prefs.compute_device_type = backend
            except TypeError:  # this build has no such backend
                continue
            prefs.get_devices()
            if any(d.type == backend for d in prefs.devices):
                found.append(backend)
    finally:
        try:
            prefs.compute_device_type = before
        except TypeError:
            pass
    return tuple(found)


def gpu_backends() -> tuple:
    if Forced.gpu_backends is not None:
        return Forced.gpu_backends
    return _detected_gpu_backends()


_ITEMS: list = []  # Blender keeps only pointers to a dynamic enum's strings: hold them here


def device_items(self, context):
    """CPU always; GPU only where Cycles finds a device (the export's 'gpu' takes the first backend found)."""
    items = [("cpu", "CPU", "Render on the processor (every Blender can)")]
    backends = gpu_backends()
    if backends:
        items.append(("gpu", f"GPU ({BACKEND_NAMES.get(backends[0], backends[0])})",
                      f"Render on the graphics card ({', '.join(backends)} found)"))
    _ITEMS[:] = items
    return _ITEMS


def device(settings) -> str:
    """The chosen device as the export and the check take it ('cpu' where a GPU went away)."""
    chosen = settings.device
    return chosen if chosen == "cpu" or gpu_backends() else "cpu"

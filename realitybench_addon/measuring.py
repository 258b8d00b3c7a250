"""`measure`: every primitive of a target in any .blend from any camera, and a render's image terms."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .core import image_terms as img
from .core import postprocess
from .core.errors import RealityBenchError

# Surface samples on a measured target: each costs ~350 bytes and a ray cast (measured: 10^6 samples add
# ~0.35 GB and ~2 s), so 10^8 was killed at ~23 GB; 10^6 already pins fractions to ~0.1%.
MIN_TARGET_SAMPLES, MAX_TARGET_SAMPLES = 10, 1_000_000


def image_terms(frame, names: Sequence[str], display: Optional[np.ndarray] = None) -> dict:
    """Image terms of a target from a rendered frame (and the final phone image for saturation)."""
    mask = frame.mask(names)
    if display is None:
        display = postprocess.develop(frame.linear_rgb, postprocess.NEUTRAL)
    return {
        "target_pixels": img.pixel_count(mask),
        "target_pixel_share": img.pixel_share(mask),
        "weber_contrast": img.weber_contrast(frame.linear_rgb, mask),
        "paper_luminance": img.paper_luminance(frame.linear_rgb, mask),
        "saturated_fraction": img.saturated_fraction(display, mask),
        "edge_contrast": img.edge_contrast(frame.linear_rgb, mask),
        "laplacian_variance": img.laplacian_variance(frame.linear_rgb, mask),
    }


def check_target_samples(n_samples: int) -> None:
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or not (
            MIN_TARGET_SAMPLES <= n_samples <= MAX_TARGET_SAMPLES):
        raise RealityBenchError(f"--samples-on-target must be a whole number from {MIN_TARGET_SAMPLES:,} to "
                                f"{MAX_TARGET_SAMPLES:,} (about 350 bytes of memory each), not {n_samples!r}")


def check_unit(unit_length_m: float, axis: str) -> None:
    if axis not in ("x", "y", "z"):
        raise RealityBenchError(f"--axis must be x, y or z, not {axis!r}")
    if not unit_length_m > 0:
        raise RealityBenchError(f"--unit-length must be a positive length in metres, not {unit_length_m}")


def measure(target: str | Sequence[str], camera: Optional[str] = None, *, blend: Optional[str] = None,
            unit_length_m: float = 0.01, axis: str = "y", render: bool = False, samples: int = 16,
            n_samples: int = 2000) -> dict:
    """Every primitive of `target` (one object name or several) for `camera` (default: the scene camera).
    `n_samples` (surface samples on the target) must lie in [MIN_TARGET_SAMPLES, MAX_TARGET_SAMPLES]."""
    from .bl.measure import measure_target
    from .bl.render import render_frame
    from .bl.scene_data import scene_and_camera
    from .outputs import open_blend

    check_target_samples(n_samples)
    if blend is not None:
        open_blend(blend)
    check_unit(unit_length_m, axis)
    names = [target] if isinstance(target, str) else list(target)
    scene, cam = scene_and_camera(camera)
    check_finite_geometry(cam, names)
    result = measure_target(scene, cam, names, unit_length_m=unit_length_m, axis=axis, n_samples=n_samples)
    if render:
        frame = render_frame(scene, cam, samples=samples)
        result.update(image_terms(frame, names))
    return result


def _check_finite_placement(obj, what: str) -> None:
    if not np.isfinite(np.array(obj.matrix_world, float)).all():
        raise RealityBenchError(f"{what} {obj.name!r} has a placement (location, rotation or scale) that is not a "
                                f"finite number (NaN or infinite); fix it before measuring")


def check_finite_geometry(cam, names: Sequence[str]) -> None:
    """A one-line RealityBenchError when the camera's or a target's placement, or a vertex of a target mesh (or of
    its children), is not a finite number: a NaN would otherwise flow through every measurement."""
    import bpy

    _check_finite_placement(cam, "camera")
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is None:
            continue  # measure_target names a missing object
        for o in [obj, *obj.children_recursive]:
            _check_finite_placement(o, "object")
            if o.type != "MESH" or not len(o.data.vertices):
                continue
            co = np.empty(3 * len(o.data.vertices), np.float64)
            o.data.vertices.foreach_get("co", co)
            bad = np.flatnonzero(~np.isfinite(co.reshape(-1, 3)).all(axis=1))
            if bad.size:
                raise RealityBenchError(f"object {o.name!r} has {bad.size:,} vertex(es) with a coordinate that is not "
                                        f"a finite number (NaN or infinite), the first vertex {int(bad[0])}; fix the "
                                        f"mesh before measuring")

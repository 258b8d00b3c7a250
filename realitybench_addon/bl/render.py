"""Render a frame with Cycles and read back linear RGB plus the object-index mask.

Background Blender never fills the compositor's Viewer image, so the compositor writes
two float EXR files (Combined and IndexOB) into a temporary folder, which are read back
through bpy's image loader and deleted. While rendering, every visible object gets its
own pass index (restored afterwards), so one render gives the mask of any object.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Optional

import bpy
import numpy as np

from ..core.render_settings import RenderSettings
from . import compat


@dataclass
class RenderedFrame:
    linear_rgb: np.ndarray  # (H, W, 3) float32, scene-referred linear Rec.709, row 0 at the top
    object_index: np.ndarray  # (H, W) int32; 0 = background
    index_of: dict[str, int]  # object name -> its index in `object_index`

    def mask(self, names) -> np.ndarray:
        ids = [self.index_of[n] for n in names if n in self.index_of]
        return np.isin(self.object_index, ids)


GPU_BACKENDS = ("OPTIX", "CUDA", "HIP", "METAL", "ONEAPI")


def cycles_device(kind: str) -> str:
    """'cpu' -> CPU; 'gpu' -> the first GPU backend with a device (an error if none); 'auto' -> GPU if any."""
    if kind == "cpu":
        return "CPU"
    addon = bpy.context.preferences.addons.get("cycles")
    prefs = addon.preferences if addon is not None else None
    for backend in GPU_BACKENDS if prefs is not None else ():
        try:
            prefs.compute_device_type = backend
        except TypeError:  # this build has no such backend
            continue
        prefs.get_devices()
        devices = [d for d in prefs.devices if d.type == backend]
        if devices:
            for d in devices:
                d.use = True
            return "GPU"
    if kind == "gpu":
        raise RuntimeError("--device gpu: Cycles finds no GPU on this machine (tried "
                           f"{', '.join(GPU_BACKENDS)}); use --device cpu or auto")
    return "CPU"


def denoise_problem(denoise: bool) -> Optional[str]:
    """None, or one line saying that this Blender cannot denoise and which option turns denoising off.
    An export checks it before any work: a build without OpenImageDenoise fails every denoised render."""
    if not denoise or compat.has_openimagedenoise():
        return None
    return (f"this Blender ({bpy.app.version_string}) was built without OpenImageDenoise, so Cycles cannot "
            "denoise; use --no-denoise (denoise=False from Python or the export operator)")


def configure_cycles(scene, samples: int = 16, denoise: bool = False, device: str = "cpu",
                     settings: Optional[RenderSettings] = None) -> RenderSettings:
    """Apply `settings` (or, without them, the defaults with `samples` and `denoise`) to the scene's Cycles.
    Returns the settings applied. A setting this Blender lacks (OpenImageDenoise's quality before 4.1) keeps
    its own default."""
    settings = settings or RenderSettings(samples=samples, denoise=denoise)
    problem = denoise_problem(settings.denoise)
    if problem:
        raise RuntimeError(problem)
    scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = cycles_device(device)
    cycles.samples = settings.samples
    cycles.seed = 0
    cycles.use_denoising = settings.denoise
    values = {
        "use_adaptive_sampling": settings.adaptive_threshold > 0,
        "adaptive_threshold": settings.adaptive_threshold,
        "adaptive_min_samples": settings.adaptive_min_samples,
        "max_bounces": settings.max_bounces,
        "diffuse_bounces": settings.diffuse_bounces,
        "glossy_bounces": settings.glossy_bounces,
        "transmission_bounces": settings.transmission_bounces,
        "transparent_max_bounces": settings.transparent_bounces,
        "volume_bounces": 0,
        "use_light_tree": settings.light_tree,
        "caustics_reflective": settings.caustics,
        "caustics_refractive": settings.caustics,
        "blur_glossy": settings.blur_glossy,
        # Few samples on metal and glass leave fireflies; clamping indirect light removes them
        # at a small bias (a phone's pipeline would suppress them too).
        "sample_clamp_indirect": settings.clamp_indirect,
    }
    if settings.denoise:  # a build without OpenImageDenoise has no such enum items (denoise_problem refuses it)
        values.update({"denoiser": "OPENIMAGEDENOISE", "denoising_input_passes": settings.denoise_passes,
                       "denoising_prefilter": settings.denoise_prefilter,
                       "denoising_quality": settings.denoise_quality})
    for name, value in values.items():
        if hasattr(cycles, name):
            try:
                setattr(cycles, name, value)
            except TypeError:  # an enum value this Blender does not have: its own default stays
                pass
    scene.render.use_persistent_data = settings.persistent_data
    if scene.world is not None:  # the sky's multiple importance sampling is the world's own setting
        scene.world.cycles.sampling_method = "AUTOMATIC" if settings.sky_as_light else "NONE"
    scene.render.film_transparent = False
    return settings


def _read_exr(path: str) -> np.ndarray:
    img = bpy.data.images.load(path, check_existing=False)
    try:
        w, h = img.size
        buf = np.empty(w * h * img.channels, np.float32)
        img.pixels.foreach_get(buf)
        return buf.reshape(h, w, img.channels)[::-1]  # Blender images start at the bottom row
    finally:
        bpy.data.images.remove(img)


def render_frame(scene, camera_obj=None, *, samples: int = 16, denoise: bool = False,
                 device: str = "cpu", settings: Optional[RenderSettings] = None) -> RenderedFrame:
    if camera_obj is not None:
        scene.camera = camera_obj
    if scene.camera is None:
        raise LookupError(f"scene {scene.name!r} has no camera to render from")
    configure_cycles(scene, samples=samples, denoise=denoise, device=device, settings=settings)
    view_layer = scene.view_layers[0]
    saved_pass = view_layer.use_pass_object_index
    objects = [o for o in scene.objects if o.type not in {"CAMERA", "LIGHT", "EMPTY"}]
    saved_index = {o.name: o.pass_index for o in objects}
    index_of = {o.name: i + 1 for i, o in enumerate(objects)}
    added = []
    with tempfile.TemporaryDirectory(prefix="rb_render_") as tmp, compat.compositor(scene) as tree:
        try:
            view_layer.use_pass_object_index = True
            for o in objects:
                o.pass_index = index_of[o.name]
            layers = tree.nodes.new("CompositorNodeRLayers")
            layers.layer = view_layer.name
            out = compat.exr_file_output(tree, tmp, {"rgb": "RGBA", "index": "FLOAT"})
            added += [layers, out]
            tree.links.new(layers.outputs["Image"], out.inputs["rgb"])
            tree.links.new(compat.render_layer_socket(layers, "IndexOB"), out.inputs["index"])
            if compat.needs_composite_node() and not any(n.bl_idname == "CompositorNodeComposite"
                                                         for n in tree.nodes):
                composite = tree.nodes.new("CompositorNodeComposite")
                added.append(composite)
                tree.links.new(layers.outputs["Image"], composite.inputs[0])
            bpy.ops.render.render(write_still=False, scene=scene.name)
            files = sorted(os.listdir(tmp))
            rgb_file = next(f for f in files if f.startswith("rgb"))
            index_file = next(f for f in files if f.startswith("index"))
            rgb = _read_exr(os.path.join(tmp, rgb_file))[..., :3].copy()
            index = np.rint(_read_exr(os.path.join(tmp, index_file))[..., 0]).astype(np.int32)
        finally:
            for node in added:
                tree.nodes.remove(node)
            for o in objects:
                o.pass_index = saved_index[o.name]
            view_layer.use_pass_object_index = saved_pass
    return RenderedFrame(rgb, index, index_of)

"""Render a frame with Cycles and read back linear RGB plus the object-index mask.

Background Blender never fills the compositor's Viewer image, so the compositor writes
two float EXR files (Combined and IndexOB) into a temporary folder, which are read back
through bpy's image loader and deleted. While rendering, every visible object gets its
own pass index (restored afterwards), so one render gives the mask of any object.

That set-up (compositor nodes, output folder, two images, the pass indices) is a `_RenderRig`. A render on its own
makes one and removes it; inside `render_session` the renders of a scene share one, because Blender
rebuilds the depsgraph's relations after any datablock or node comes or goes (some 10 ms in a
300-object scene, paid by whatever next updates the scene: the next frame's camera).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from typing import Optional

import bpy
import numpy as np

from ..core.render_settings import RenderSettings
from . import compat
from .camera import set_scene_camera


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
        "use_fast_gi": settings.fast_gi_bounces > 0,
        "ao_bounces_render": settings.fast_gi_bounces,
        "fast_gi_method": "REPLACE",
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


def _read_pixels(image) -> np.ndarray:
    w, h = image.size
    buf = np.empty(w * h * image.channels, np.float32)
    image.pixels.foreach_get(buf)
    return buf.reshape(h, w, image.channels)[::-1]  # Blender images start at the bottom row


class _RenderRig:
    """What a render adds to a scene: the object-index pass, compositor nodes writing the Combined and
    IndexOB passes as float EXRs into a temporary folder, the images that read them back, and each object's
    own pass index (numbered for the mask while the rig lives, put back when it closes)."""

    def __init__(self, scene):
        self.images: dict[str, object] = {}  # EXR path -> the image reading it
        self.node_names: list[str] = []
        self.saved_pass_index: dict = {}  # object identity (`_identity`) -> its own pass index
        self._exit = contextlib.ExitStack()
        self._folder = tempfile.TemporaryDirectory(prefix="rb_render_")
        self.folder = self._folder.name
        self.view_layer = scene.view_layers[0]
        self._saved_pass = self.view_layer.use_pass_object_index
        self.view_layer.use_pass_object_index = True  # before the Render Layers node: it adds the output
        try:
            self.tree = self._exit.enter_context(compat.compositor(scene))
            layers = self._add_node("CompositorNodeRLayers")
            layers.layer = self.view_layer.name
            out = compat.exr_file_output(self.tree, self.folder, {"rgb": "RGBA", "index": "FLOAT"})
            self.node_names.append(out.name)
            self.tree.links.new(layers.outputs["Image"], out.inputs[0])  # "rgb"
            self.tree.links.new(compat.render_layer_socket(layers, "IndexOB"), out.inputs[1])  # "index"
            if compat.needs_composite_node() and not any(n.bl_idname == "CompositorNodeComposite"
                                                         for n in self.tree.nodes):
                composite = self._add_node("CompositorNodeComposite")
                self.tree.links.new(layers.outputs["Image"], composite.inputs[0])
        except BaseException:
            self.close()
            raise

    def number_objects(self, objects) -> dict[str, int]:
        """Give `objects` the pass indices 1, 2, ... in order (the object-index pass then tells them apart);
        returns name -> index. Only a changed index is written: every write makes the next depsgraph update
        re-evaluate that object, so the frames of one scene in a session write none."""
        index_of = {}
        for i, obj in enumerate(objects, start=1):
            index_of[obj.name] = i
            self.saved_pass_index.setdefault(_identity(obj), obj.pass_index)
            if obj.pass_index != i:
                obj.pass_index = i
        return index_of

    def _restore_pass_indices(self) -> None:
        """Give each numbered object its own index back: found by its session identity, so a renamed object
        gets its index and an object made since under a numbered one's name (a scene emptied or a file
        loaded under the rig) keeps its own."""
        saved, self.saved_pass_index = self.saved_pass_index, {}
        if not saved:
            return
        by_identity = {_identity(obj): obj for obj in bpy.data.objects}
        for identity, index in saved.items():
            obj = by_identity.get(identity)
            if obj is not None and obj.pass_index != index:
                obj.pass_index = index

    def _add_node(self, kind: str):
        node = self.tree.nodes.new(kind)
        self.node_names.append(node.name)
        return node

    def alive(self) -> bool:
        """Are its nodes and images still there? (Something else may have emptied the scene.) Looked up by
        name: a Python reference to a removed node is not safe to touch."""
        try:
            nodes = self.tree.nodes
            return all(nodes.get(n) is not None for n in self.node_names) and \
                all(bpy.data.images.get(i.name) == i for i in self.images.values())
        except ReferenceError:
            return False

    def empty_folder(self) -> None:
        """Before a render: nothing a failed render left behind can be read as this one's."""
        for name in os.listdir(self.folder):
            os.remove(os.path.join(self.folder, name))

    def read(self, prefix: str) -> np.ndarray:
        """The pass the last render wrote to `prefix`*.exr, as (H, W, channels) float32 rows from the top;
        the file is deleted, so the next render's is never mistaken for it."""
        name = next((f for f in sorted(os.listdir(self.folder)) if f.startswith(prefix)), None)
        if name is None:
            raise RuntimeError(f"the render wrote no {prefix} pass into {self.folder}")
        path = os.path.join(self.folder, name)
        image = self.images.get(path)
        if image is None:
            image = self.images[path] = bpy.data.images.load(path, check_existing=False)
        else:
            image.reload()
        try:
            return _read_pixels(image)  # a fresh buffer: the image may be reloaded at once
        finally:
            os.remove(path)

    def close(self, *, blender_data: bool = True) -> None:
        """Remove what it added and restore what it changed; with blender_data=False (its nodes or images
        went under it) only the objects' pass indices and its folder are seen to."""
        try:
            self._restore_pass_indices()
        finally:
            try:
                if blender_data:
                    for image in self.images.values():
                        bpy.data.images.remove(image)
                    for name in self.node_names:
                        node = self.tree.nodes.get(name)
                        if node is not None:
                            self.tree.nodes.remove(node)
                    self.view_layer.use_pass_object_index = self._saved_pass
                    self._exit.close()  # the scene's own compositing set-up back
                else:
                    self._exit.pop_all()  # nothing of it is left in the scene to restore
            finally:
                self._folder.cleanup()
                self.images = {}


def _identity(obj) -> tuple:
    """An object as this Blender session knows it: its session_uid (unique for the session, kept through
    renames; None where this Blender has none, and then its name stands in)."""
    uid = getattr(obj, "session_uid", None)
    return (uid, None) if uid is not None else (None, obj.name)


_KEPT: dict[str, Optional[_RenderRig]] = {}  # scene name -> the rig its render_session keeps (None: not yet made)


@contextlib.contextmanager
def render_session(scene):
    """Within this block the renders of `scene` share one `_RenderRig`, made at the first render and removed
    when the block ends; the scene's compositing and passes are then as they were. `bl.analytic.reset_scene`
    removes it early (the next render makes another)."""
    name = scene.name
    if name in _KEPT:  # already inside one
        yield
        return
    _KEPT[name] = None
    try:
        yield
    finally:
        rig = _KEPT.pop(name, None)
        if rig is not None:
            rig.close(blender_data=rig.alive())


def release_render_rigs() -> None:
    """Remove every kept rig now; their sessions stay open (`bl.analytic.reset_scene` calls this before it
    empties the scene)."""
    # in reverse: the first session's rig, which saw the objects' own indices, puts them back last
    for name, rig in reversed(list(_KEPT.items())):
        if rig is not None:
            rig.close(blender_data=rig.alive())
            _KEPT[name] = None


def render_frame(scene, camera_obj=None, *, samples: int = 16, denoise: bool = False,
                 device: str = "cpu", settings: Optional[RenderSettings] = None) -> RenderedFrame:
    if camera_obj is not None:
        set_scene_camera(scene, camera_obj)
    if scene.camera is None:
        raise LookupError(f"scene {scene.name!r} has no camera to render from")
    configure_cycles(scene, samples=samples, denoise=denoise, device=device, settings=settings)
    kept = scene.name in _KEPT
    rig = _KEPT.get(scene.name)
    if rig is not None and not rig.alive():
        rig.close(blender_data=False)
        rig = None
    if rig is None:
        rig = _RenderRig(scene)
        if kept:
            _KEPT[scene.name] = rig
    try:
        index_of = rig.number_objects([o for o in scene.objects if o.type not in {"CAMERA", "LIGHT", "EMPTY"}])
        rig.empty_folder()
        bpy.ops.render.render(write_still=False, scene=scene.name)
        rgb = rig.read("rgb")[..., :3].copy()
        index = np.rint(rig.read("index")[..., 0]).astype(np.int32)
    finally:
        if not kept:
            rig.close()
    return RenderedFrame(rgb, index, index_of)

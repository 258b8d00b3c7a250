"""Every difference between the Blender versions we run on, in one place.

Targets: Blender 4.2+ (extension; the bpy 4.5 wheel is the embedded default) and
Debian's Blender 3.4.1 (legacy add-on, the only windowed Blender on our machines).
"""
from __future__ import annotations

import functools

import bpy

VERSION = bpy.app.version
IS_4X = VERSION >= (4, 0, 0)
HAS_EXTENSIONS = VERSION >= (4, 2, 0)


def principled_input(node, name: str):
    """Principled BSDF sockets were renamed in 4.0 ("Emission" -> "Emission Color", ...)."""
    renamed = {"Emission Color": "Emission", "Specular IOR Level": "Specular"} if not IS_4X else {}
    return node.inputs[renamed.get(name, name)]


def user_data_dir(package: str) -> str:
    """A writable folder for user presets: the extension's user path on 4.2+, the config folder before."""
    if HAS_EXTENSIONS and package.startswith("bl_ext."):
        return bpy.utils.extension_path_user(package, path="", create=True)
    import os

    base = bpy.utils.user_resource("CONFIG", path="realitybench", create=True)
    os.makedirs(base, exist_ok=True)
    return base


def compositor_tree(scene):
    """The scene's compositing node tree (made if absent)."""
    scene.use_nodes = True
    return scene.node_tree


def file_output_slots(node):
    return node.file_slots


def uniform_color_shader():
    """The flat-colour line shader: 'UNIFORM_COLOR' in 4.x, '3D_UNIFORM_COLOR' in 3.x."""
    import gpu

    try:
        return gpu.shader.from_builtin("UNIFORM_COLOR")
    except ValueError:
        return gpu.shader.from_builtin("3D_UNIFORM_COLOR")


@functools.lru_cache(maxsize=1)
def has_openimagedenoise() -> bool:
    """Can this build's Cycles denoise with OpenImageDenoise? Debian's 3.4.1 and some ARM builds cannot: every
    render with denoising fails there ("Build without OpenImageDenoiser")."""
    flag = getattr(bpy.app.build_options, "openimagedenoise", None)
    if flag is not None:
        return bool(flag)
    try:
        import _cycles
    except ImportError:  # no Cycles at all: nothing here can denoise
        return False
    flag = getattr(_cycles, "with_openimagedenoise", None)  # 3.x and 4.x builds both report it
    if flag is not None:
        return bool(flag)
    return denoise_test_render()


def denoise_test_render() -> bool:
    """Render 4 x 4 px with OpenImageDenoise in a throw-away scene: False when the build refuses to denoise.
    Any other failure proves nothing about the denoiser, so it counts as True (the real render will say)."""
    scene = bpy.data.scenes.new("RB_DenoiseProbe")
    camera_data = bpy.data.cameras.new("RB_DenoiseProbe")
    camera = bpy.data.objects.new("RB_DenoiseProbe", camera_data)
    try:
        scene.collection.objects.link(camera)
        scene.camera = camera
        scene.render.engine = "CYCLES"
        scene.render.resolution_x = scene.render.resolution_y = 4
        scene.render.resolution_percentage = 100
        scene.cycles.samples = 1
        scene.cycles.use_denoising = True
        try:
            scene.cycles.denoiser = "OPENIMAGEDENOISE"
        except TypeError:  # the build does not even offer it
            return False
        try:
            bpy.ops.render.render(write_still=False, scene=scene.name)
        except RuntimeError as exc:
            return "denois" not in str(exc).lower()
        return True
    finally:
        bpy.data.objects.remove(camera)
        bpy.data.cameras.remove(camera_data)
        bpy.data.scenes.remove(scene)

"""Every difference between the Blender versions we run on, in one place.

Targets: Blender 4.2+ (extension; the bpy 4.5 wheel is the embedded default) and
Debian's Blender 3.4.1 (legacy add-on, the only windowed Blender on our machines).
"""
from __future__ import annotations

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

"""An empty scene to build the next frame's in: every data block a RealityBench scene makes removed, the
materials `bl.material_cache` keeps aside."""
from __future__ import annotations

import bpy

from . import compat

BUILD_STAMP = "realitybench_build"  # the scene's property naming the build it holds (`pipeline.SceneCache`)

# Data kinds a RealityBench scene creates; `reset_scene` empties all of them.
_SCENE_DATA = ("objects", "meshes", "curves", "materials", "lights", "cameras", "worlds", "node_groups",
               "actions", "collections", "textures")


def reset_scene():
    """Empty the current scene and the data blocks scenes are built from; return the scene.

    Not `read_homefile`/`read_factory_settings`: loading a file from inside an operator (the
    export and build operators call this) hangs or crashes Blender, and the factory reset
    also disables the running add-on.
    """
    from .material_cache import template_names
    from .render import release_render_rigs

    release_render_rigs()  # a render session's compositor nodes and images go first, cleanly
    scene = bpy.context.scene
    if BUILD_STAMP in scene:  # the scene cache's stamp: what it built is going
        del scene[BUILD_STAMP]
    for other in [s for s in bpy.data.scenes if s != scene]:
        bpy.data.scenes.remove(other)
    keep = template_names()  # materials kept to be copied into later scenes (`bl.material_cache`)
    doomed = [block for kind in _SCENE_DATA for block in getattr(bpy.data, kind)
              if not (kind == "materials" and block.name in keep)]
    doomed += [img for img in bpy.data.images if img.type not in {"RENDER_RESULT", "COMPOSITING"}]
    bpy.data.batch_remove(doomed)
    scene.camera = None
    scene.world = None
    compat.clear_compositor(scene)
    scene.frame_set(1)
    scene.render.engine = "CYCLES"
    scene.render.use_motion_blur = False
    return scene

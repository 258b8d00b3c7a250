"""Every difference between the Blender versions we run on, in one place.

Targets: Blender 4.2+ and 5.x (extension; the bpy 5.2 wheel is the embedded default, 4.5 is tested too) and
Debian's Blender 3.4.1 (legacy add-on, the only windowed Blender on our machines).
"""
from __future__ import annotations

import contextlib
import functools

import bpy
import numpy as np

VERSION = bpy.app.version
IS_4X = VERSION >= (4, 0, 0)
HAS_EXTENSIONS = VERSION >= (4, 2, 0)
# 5.0 replaced the scene's own compositing tree (Scene.node_tree, Scene.use_nodes) with a node group
# the scene points at (Scene.compositing_node_group), and the File Output node's slots with items.
NODE_GROUP_COMPOSITOR = "compositing_node_group" in bpy.types.Scene.bl_rna.properties
# 5.3 made that a stack of compositor effects, each with a node group (compositing_node_group is
# a deprecated shim over the active effect).
COMPOSITOR_EFFECTS = "compositor_effects" in bpy.types.Scene.bl_rna.properties


def principled_input(node, name: str):
    """Principled BSDF sockets were renamed in 4.0 ("Emission" -> "Emission Color", ...)."""
    renamed = {"Emission Color": "Emission", "Specular IOR Level": "Specular"} if not IS_4X else {}
    return node.inputs[renamed.get(name, name)]


def fill_mesh(mesh, vertices: np.ndarray, corner_verts: np.ndarray, face_sizes: np.ndarray) -> None:
    """Write vertices ((V, 3) float32), faces (each face's vertex indices, concatenated: int32) and face
    sizes into an empty mesh. From 4.0 positions and corners are attributes, written in one copy each;
    3.4's MeshVertex and MeshLoop collections are written element by element (some 30x slower for 90,000
    vertices, which a lawn's grass reaches). The faces' offsets are a legacy collection everywhere; from 4.0
    they alone define the faces (their sizes follow)."""
    mesh.vertices.add(len(vertices))
    mesh.loops.add(len(corner_verts))
    mesh.polygons.add(len(face_sizes))
    position = mesh.attributes.get("position")
    corners = mesh.attributes.get(".corner_vert")
    if position is not None:
        position.data.foreach_set("vector", vertices.ravel())
    else:
        mesh.vertices.foreach_set("co", vertices.ravel())
    if corners is not None:
        corners.data.foreach_set("value", corner_verts)
    else:
        mesh.loops.foreach_set("vertex_index", corner_verts)
    starts = np.zeros(len(face_sizes), np.int32)
    np.cumsum(face_sizes[:-1], out=starts[1:])
    mesh.polygons.foreach_set("loop_start", starts)
    if corners is None:
        mesh.polygons.foreach_set("loop_total", face_sizes)


def vertex_positions(mesh) -> np.ndarray:
    """A mesh's vertex positions, (V, 3) float64: from the "position" attribute where there is one (3.5+),
    read in one copy, rather than vertex by vertex from MeshVertex.co."""
    flat = np.empty(len(mesh.vertices) * 3, np.float32)
    position = mesh.attributes.get("position")
    if position is not None:
        position.data.foreach_get("vector", flat)
    else:
        mesh.vertices.foreach_get("co", flat)
    return flat.astype(np.float64).reshape(-1, 3)


def set_face_shading(mesh, smooth: bool) -> None:
    """Every face flat or smooth, explicitly: 4.1+ makes faces built from Python smooth unless told (which
    shades boxes with shared corners like cylinders), 3.4 made them flat. From 4.0 flat faces are the
    "sharp_face" attribute."""
    if IS_4X:
        sharp = mesh.attributes.get("sharp_face")
        if smooth:
            if sharp is not None:
                mesh.attributes.remove(sharp)
        else:
            sharp = sharp or mesh.attributes.new("sharp_face", "BOOLEAN", "FACE")
            sharp.data.foreach_set("value", np.ones(len(mesh.polygons), bool))
    else:
        mesh.polygons.foreach_set("use_smooth", np.full(len(mesh.polygons), smooth, bool))


def smooth_by_angle(mesh, angle_rad: float) -> None:
    """Faces smooth, edges between faces that meet at more than `angle_rad` kept sharp: a moulded part's
    rounded corners shade round while its edges stay crisp (4.1+ marks the edges; 3.4-4.0 smooth at render)."""
    set_face_shading(mesh, True)
    if hasattr(mesh, "set_sharp_from_angle"):
        mesh.set_sharp_from_angle(angle=angle_rad)
    else:
        mesh.use_auto_smooth = True
        mesh.auto_smooth_angle = angle_rad


def set_face_materials(mesh, indices: np.ndarray) -> None:
    """Each face's material slot (from 4.0 the "material_index" attribute)."""
    indices = np.asarray(indices, np.int32)
    if IS_4X:
        attr = mesh.attributes.get("material_index") or mesh.attributes.new("material_index", "INT", "FACE")
        attr.data.foreach_set("value", indices)
    else:
        mesh.polygons.foreach_set("material_index", indices)


def add_group_socket(tree, in_out: str, socket_type: str, name: str) -> None:
    """A socket on a node group's interface ("INPUT" or "OUTPUT"): `tree.interface` on 4.0+, the group's own
    inputs and outputs before."""
    if hasattr(tree, "interface"):
        tree.interface.new_socket(name=name, in_out=in_out, socket_type=socket_type)
    else:
        (tree.inputs if in_out == "INPUT" else tree.outputs).new(socket_type, name)


def user_data_dir(package: str) -> str:
    """A writable folder for user presets: the extension's user path on 4.2+, the config folder before."""
    if HAS_EXTENSIONS and package.startswith("bl_ext."):
        return bpy.utils.extension_path_user(package, path="", create=True)
    import os

    base = bpy.utils.user_resource("CONFIG", path="realitybench", create=True)
    os.makedirs(base, exist_ok=True)
    return base


@contextlib.contextmanager
def compositor(scene):
    """A compositing node tree that the scene renders through for the duration; the scene's own
    compositing set-up is as it was afterwards."""
    if COMPOSITOR_EFFECTS:
        others = {effect.name: effect.enable_for_render for effect in scene.compositor_effects}
        tree = bpy.data.node_groups.new("RB_Compositor", "CompositorNodeTree")
        for effect in scene.compositor_effects:  # only ours runs in this render
            effect.enable_for_render = False
        ours = scene.compositor_effects.new("RB_Render")
        ours.node_group = tree
        try:
            yield tree
        finally:
            scene.compositor_effects.remove(ours)
            bpy.data.node_groups.remove(tree)
            for effect in scene.compositor_effects:
                effect.enable_for_render = others.get(effect.name, effect.enable_for_render)
    elif NODE_GROUP_COMPOSITOR:
        saved = scene.compositing_node_group
        tree = bpy.data.node_groups.new("RB_Compositor", "CompositorNodeTree")
        scene.compositing_node_group = tree
        try:
            yield tree
        finally:
            scene.compositing_node_group = saved
            bpy.data.node_groups.remove(tree)
    else:
        saved = scene.use_nodes
        scene.use_nodes = True
        try:
            yield scene.node_tree
        finally:
            scene.use_nodes = saved


def clear_compositor(scene) -> None:
    """No compositing on the scene (a fresh scene renders straight to its result)."""
    if COMPOSITOR_EFFECTS:
        scene.compositor_effects.clear()
        return
    if NODE_GROUP_COMPOSITOR:
        scene.compositing_node_group = None
        return
    if scene.node_tree is not None:
        scene.node_tree.nodes.clear()
    scene.use_nodes = False


def needs_composite_node() -> bool:
    """Before 5.0 a compositing tree without a Composite node does not run; 5.0 removed the node."""
    return not NODE_GROUP_COMPOSITOR


def exr_file_output(tree, directory: str, inputs: dict[str, str]):
    """A File Output node writing one 32-bit OpenEXR per input into `directory`; `inputs` maps each input's
    name to its kind ("RGBA" or "FLOAT"). The files are named after the inputs (4.x adds the frame number); the
    node's inputs are in the order of `inputs` (link them by position: before 5.0 the first is called "Image")."""
    node = tree.nodes.new("CompositorNodeOutputFile")
    if NODE_GROUP_COMPOSITOR:
        node.format.media_type = "IMAGE"
        node.directory = directory
        node.file_name = ""
        items = node.file_output_items
        items.clear()
        for name, kind in inputs.items():
            items.new(kind, name)
    else:
        node.base_path = directory
        # The node's own first slot is renamed, not cleared: Blender 3.4's file_slots.clear() leaks one
        # block a call ("Not freed memory blocks: 1" at exit). Its input keeps the name "Image".
        first, *rest = inputs
        node.file_slots[0].path = first
        for name in rest:
            node.file_slots.new(name)
    node.format.file_format = "OPEN_EXR"
    node.format.color_depth = "32"
    return node


def render_layer_socket(layers_node, name: str):
    """A Render Layers output by its 4.x name ("IndexOB"; 5.x calls it "Object Index")."""
    renamed = {"IndexOB": "Object Index"}
    outputs = layers_node.outputs
    return outputs[name] if name in outputs else outputs[renamed[name]]


def use_shader_nodes(datablock) -> None:
    """Turn on a material's or world's node tree. From 5.0 they always have one and the switch is
    deprecated (a warning per call), so it is left alone there."""
    if VERSION < (5, 0, 0):
        datablock.use_nodes = True


def action_fcurves(action) -> list:
    """Every F-curve of an action. 5.0 removed Action.fcurves: curves live in the layered action's
    channel bags (layers -> strips -> channelbags), which 4.4 introduced beside the old list."""
    if hasattr(action, "fcurves"):
        return list(action.fcurves)
    return [fcurve for layer in action.layers for strip in layer.strips for bag in strip.channelbags
            for fcurve in bag.fcurves]


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

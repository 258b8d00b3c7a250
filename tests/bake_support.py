"""A shader socket sampled in Blender: baked as emission onto a square of ground, read back as numpy.
Shared by the realism tests that check what a material draws (asphalt, dirt, lawn, module cells)."""
import numpy as np


def bake_emission(bpy, mat, x0, y0, size_m, px, socket, *, wall=False, rgb=False, point_vectors=None):
    """`socket` of `mat` baked as emission on a square of ground [x0, x0+size] x [y0, y0+size] (world = object
    coordinates, and UVs 0..1 across it), `px` texels a side; rows run along +y. `wall`: the square stands in
    the x-z plane instead (y0 is then its bottom height), rows running up. The mean of R, G and B, or with
    `rgb` the three channels (px, px, 3). `point_vectors`: name -> (4, 3) per corner (x0 y0, x1 y0, x1 y1, x0 y1)."""
    from realitybench_addon.bl.meshes import mesh_object

    scene = bpy.context.scene
    v = np.array([[x0, y0, 0.0], [x0 + size_m, y0, 0.0], [x0 + size_m, y0 + size_m, 0.0], [x0, y0 + size_m, 0.0]])
    if wall:
        v = v[:, [0, 2, 1]]
        v[:, 1] *= 0.0
    obj = mesh_object("BakeGround", v, np.array([[0, 1, 2], [0, 2, 3]]), scene.collection, materials=[mat],
                      point_vectors=point_vectors)
    mesh = obj.data
    uv = mesh.uv_layers.new(name="UV")
    for loop in mesh.loops:
        p = v[loop.vertex_index]
        uv.data[loop.index].uv = ((p[0] - x0) / size_m, (p[2 if wall else 1] - y0) / size_m)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    emit = nodes.new("ShaderNodeEmission")
    links.new(emit.outputs["Emission"], nodes.get("Material Output").inputs["Surface"])
    links.new(socket, emit.inputs["Color"])
    image = bpy.data.images.new("bake", px, px, float_buffer=True)
    image.colorspace_settings.name = "Non-Color"
    target = nodes.new("ShaderNodeTexImage")
    target.image = image
    nodes.active = target
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 1
    scene.cycles.device = "CPU"
    for o in bpy.data.objects:
        o.select_set(o == obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.bake(type="EMIT", margin=0, use_clear=True)
    out = np.empty(px * px * 4, np.float32)
    image.pixels.foreach_get(out)
    bpy.data.objects.remove(obj)
    colour = out.reshape(px, px, 4)[:, :, :3]
    return colour if rgb else colour.mean(axis=2)


def bake_on_objects(bpy, mat, objects, sockets: dict, w: int, h: int) -> dict:
    """Each of `sockets` (label -> output socket of `mat`) baked as emission over `objects` (which share their UVs:
    a damaged panel's patch), `w` x `h` texels; label -> (h, w, 4) float array, row 0 at the top of the UVs."""
    scene = bpy.context.scene
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    emit = nodes.new("ShaderNodeEmission")
    links.new(emit.outputs["Emission"], nodes.get("Material Output").inputs["Surface"])
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 1
    scene.cycles.device = "CPU"
    baked = {}
    for label, socket in sockets.items():
        image = bpy.data.images.new(f"bake_{label}", w, h, float_buffer=True)
        image.colorspace_settings.name = "Non-Color"
        target = nodes.new("ShaderNodeTexImage")
        target.image = image
        nodes.active = target
        links.new(socket, emit.inputs["Color"])
        for o in bpy.data.objects:
            o.select_set(o in objects)
        bpy.context.view_layer.objects.active = objects[0]
        bpy.ops.object.bake(type="EMIT", margin=0, use_clear=True)
        px = np.empty(w * h * 4, np.float32)
        image.pixels.foreach_get(px)
        baked[label] = px.reshape(h, w, 4)[::-1]
        nodes.remove(target)
    return baked

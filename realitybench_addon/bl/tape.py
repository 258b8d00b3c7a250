"""Build a tape measure (blade with its printed scale, hook, case) standing on the roof."""
from __future__ import annotations

import math

import bpy
import numpy as np

from ..core.roof import INCH, RoofPlan
from ..core.tape import BLADE_THICKNESS_M, BLADE_WIDTH_M, TapePlan, blade_axes, blade_texture
from . import materials as mats
from .meshes import boxes, mesh_object

BLADE = "Tape_Blade"
BLADE_FACE = "Tape_BladeFace"
CASE = "Tape_Case"
HOOK = "Tape_Hook"


def tape_matrix(plan: RoofPlan, tape: TapePlan) -> np.ndarray:
    """World matrix of the blade: origin at the hook's zero, X across, Y out of the printed face, Z along."""
    axis, face, width = blade_axes(plan, tape)
    rot = plan.frame.axes
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = rot @ width, rot @ face, rot @ axis
    m[:3, 3] = plan.frame.to_world([tape.u, tape.v, 0.0])
    return m


def build_tape(scene, plan: RoofPlan, tape: TapePlan) -> dict:
    col = scene.collection
    m = tape_matrix(plan, tape)
    half = BLADE_WIDTH_M / 2
    steel = mats.principled("RB_TapeSteel", (0.7, 0.52, 0.05), roughness=0.35)
    # the blade's body (behind the printed face), curved edges left out
    bv, bq = boxes([-half, -BLADE_THICKNESS_M, 0.0], [half, -0.00002, tape.length_m])
    mesh_object(BLADE, bv, bq, col, matrix=m, materials=[steel])
    # the printed face: one quad whose UVs map the scale at true size
    length_in = tape.length_m / INCH
    image = mats.packed_image("RB_TapeScale", blade_texture(math.ceil(length_in)))
    face_mat = mats.image_material("RB_TapeFace", image, roughness=0.3)
    mesh = bpy.data.meshes.new(BLADE_FACE)
    mesh.from_pydata([(-half, 0, 0), (half, 0, 0), (half, 0, tape.length_m), (-half, 0, tape.length_m)], [],
                     [(0, 1, 2, 3)])
    uv = mesh.uv_layers.new(name="UVMap")
    span = tape.length_m / (math.ceil(length_in) * INCH)  # the texture covers whole inches
    # image x runs along the blade, image y across it (top row at the blade's +X edge)
    uv.data.foreach_set("uv", np.array([[0, 1], [0, 0], [span, 0], [span, 1]], np.float32).ravel())
    mesh.materials.append(face_mat)
    face_obj = bpy.data.objects.new(BLADE_FACE, mesh)
    face_obj.matrix_world = bpy.data.objects[BLADE].matrix_world.copy()
    col.objects.link(face_obj)
    # the hook lies on the shingles; the case is held above the module
    brass = mats.principled("RB_Brass", (0.6, 0.45, 0.15), roughness=0.3, metallic=1.0)
    hv, hq = boxes([-half, -0.012, 0.0], [half, 0.004, 0.0012])
    mesh_object(HOOK, hv, hq, col, matrix=m, materials=[brass])
    shell = mats.principled("RB_TapeCase", (0.75, 0.55, 0.02), roughness=0.5)
    cv, cq = boxes([-0.018, -0.045, tape.length_m], [0.018, 0.03, tape.length_m + 0.075])
    mesh_object(CASE, cv, cq, col, matrix=m, materials=[shell])
    return {"blade": BLADE, "face": BLADE_FACE, "hook": HOOK, "case": CASE}

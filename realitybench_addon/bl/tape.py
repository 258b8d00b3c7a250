"""Build a tape measure standing on the roof: the blade with its printed scale (measured), and the product
around it from core/tape.py's geometry: the riveted hook, the moulded case with its rubber overmould and
bumper, the belt clip, and the maker's print on the case's sides."""
from __future__ import annotations

import math

import bpy
import numpy as np

from ..core.product_shapes import SMOOTH_ANGLE_RAD
from ..core.roof import INCH, RoofPlan
from ..core.tape import (BLADE_THICKNESS_M, BLADE_WIDTH_M, SHELL_HALF_THICKNESS_M, TapePlan, blade_axes,
                         blade_texture, case_outline, case_parts, case_print_size_m, case_print_texture, hook_parts)
from . import materials as mats
from .meshes import boxes, mesh_object, ngon_object, textured_quad

BLADE = "Tape_Blade"
BLADE_FACE = "Tape_BladeFace"
CASE = "Tape_Case"
HOOK = "Tape_Hook"
CASE_PARTS = ("Tape_Overmould", "Tape_Clip", "Tape_Slot", "Tape_CasePrint")


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
    ngon_object(HOOK, *hook_parts()["hook"], col, matrix=m, materials=[brass])
    _build_case(col, m, tape.length_m)
    return {"blade": BLADE, "face": BLADE_FACE, "hook": HOOK, "case": CASE}


def _build_case(col, m: np.ndarray, length_m: float) -> None:
    parts = case_parts(length_m)
    shell = mats.moulded_plastic("RB_TapeCase", (0.75, 0.55, 0.02), roughness=0.45)
    rubber = mats.principled("RB_TapeRubber", (0.025, 0.025, 0.027), roughness=0.85)
    steel = mats.principled("RB_TapeClipSteel", (0.55, 0.56, 0.58), roughness=0.35, metallic=1.0)
    for name, part, material in ((CASE, "shell", shell), ("Tape_Overmould", "overmould", rubber),
                                 ("Tape_Clip", "clip", steel), ("Tape_Slot", "slot", rubber)):
        ngon_object(name, *parts[part], col, matrix=m, materials=[material], smooth_angle=SMOOTH_ANGLE_RAD)
    # the maker's print on both sides, inside the overmould rim (read upright with the case on top)
    w, h = case_print_size_m()
    inner = case_outline(length_m)
    centre_y, centre_z = (inner.a0 + inner.a1) / 2, (inner.b0 + inner.b1) / 2
    material = mats.image_material("RB_TapeCasePrint", mats.packed_image("RB_TapeCasePrintImage",
                                                                         case_print_texture()), roughness=0.4)
    for side in (1.0, -1.0):
        # the blade's frame is left-handed (X = Z x Y): image right along -side * Y faces the print outwards
        local = np.eye(4)
        local[:3, 0], local[:3, 1], local[:3, 2] = (0, -side, 0), (0, 0, 1), (side, 0, 0)
        local[:3, 3] = (side * (SHELL_HALF_THICKNESS_M + 0.0001), centre_y, centre_z)
        textured_quad("Tape_CasePrint", w, h, col, material, matrix=m @ local)

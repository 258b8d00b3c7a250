"""Build the labelled equipment of equipment_label: the label itself, a microinverter on a rail, or a
string inverter on the house wall (a module's back label needs no new body: the module is built)."""
from __future__ import annotations

import numpy as np

from ..core.equipment import (INVERTER_SIZE_M, MICRO_SIZE_M, EquipmentLabel, EquipmentPlacement,
                              worn_label_texture)
from ..core.roof import RoofPlan
from . import materials as mats
from .meshes import boxes, curve_object, mesh_object, textured_quad

LABEL = "Equipment_Label"


def build_label(scene, label: EquipmentLabel, placement: EquipmentPlacement) -> str:
    image, _ = worn_label_texture(label)  # the clean print with a border and wear outside the measured print
    # polyester label stock: a little glossy, so direct sun can wash it out
    material = mats.image_material("RB_EquipmentLabel", mats.packed_image("RB_EquipmentLabelImage", image),
                                   roughness=0.3)
    size = label.size
    textured_quad(LABEL, size.width_m, size.height_m, scene.collection, material,
                  matrix=placement.label_pose.matrix())
    return LABEL


def build_microinverter(scene, plan: RoofPlan, placement: EquipmentPlacement) -> list[str]:
    col = scene.collection
    u, v, top = placement.body_origin
    a, b, t = MICRO_SIZE_M
    housing = mats.principled("RB_MicroHousing", (0.04, 0.04, 0.045), roughness=0.45, metallic=0.6)
    m = plan.frame.matrix(u, v, top)
    bv, bq = boxes([-a / 2, -b / 2, -t], [a / 2, b / 2, -0.0005])
    mesh_object("Micro_Body", bv, bq, col, matrix=m, materials=[housing])
    # the mounting flange over the rail, and the AC cable running off along it
    fv, fq = boxes([-0.03, b / 2 - 0.005, -0.003], [0.03, b / 2 + 0.045, 0.002])
    mesh_object("Micro_Flange", fv, fq, col, matrix=m, materials=[housing])
    cable = np.array([[a / 2, 0.03, -0.02], [a / 2 + 0.06, 0.05, -0.03], [a / 2 + 0.25, 0.07, -0.03]])
    curve_object("Micro_ACCable", cable, 0.004, col, material=mats.principled("RB_CableBlack", (0.015, 0.015, 0.015)),
                 matrix=m)
    return ["Micro_Body", "Micro_Flange", "Micro_ACCable"]


def build_inverter(scene, plan: RoofPlan, placement: EquipmentPlacement) -> list[str]:
    col = scene.collection
    x, wall_y, z = placement.body_origin
    w, d, h = INVERTER_SIZE_M
    shell = mats.principled("RB_InverterShell", (0.62, 0.63, 0.63), roughness=0.4, metallic=0.3)
    dark = mats.principled("RB_InverterTrim", (0.05, 0.05, 0.055), roughness=0.5)
    bv, bq = boxes([x - w / 2, wall_y - d, z - h / 2], [x + w / 2, wall_y - 0.004, z + h / 2])
    mesh_object("Inverter_Body", bv, bq, col, materials=[shell])
    # heat-sink fins under it, a status light strip, the wall bracket
    fins_l = [[x - w / 2 + 0.03 + k * 0.045, wall_y - d + 0.02, z - h / 2 - 0.05] for k in range(9)]
    fins_h = [[x - w / 2 + 0.04 + k * 0.045, wall_y - 0.01, z - h / 2] for k in range(9)]
    fv, fq = boxes(np.array(fins_l), np.array(fins_h))
    mesh_object("Inverter_Fins", fv, fq, col, materials=[dark])
    sv, sq = boxes([x - 0.06, wall_y - d - 0.002, z + h / 2 - 0.12], [x + 0.06, wall_y - d, z + h / 2 - 0.1])
    mesh_object("Inverter_StatusStrip", sv, sq, col, materials=[dark])
    # conduit up the wall to the eave
    top = plan.eave_height_m - 0.15
    conduit = np.array([[x, wall_y - 0.05, z + h / 2], [x, wall_y - 0.05, top]])
    curve_object("Inverter_Conduit", conduit, 0.013, col,
                 material=mats.principled("RB_Conduit", (0.5, 0.5, 0.5), roughness=0.5, metallic=0.5))
    return ["Inverter_Body", "Inverter_Fins", "Inverter_StatusStrip", "Inverter_Conduit"]

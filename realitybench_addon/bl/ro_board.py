"""Build the technician holding the repair-order board: the board's written face as a textured quad at
true size (`RO_Board`, the target) with a gloss that varies, its frame, and the technician (bl/person.py:
skin and clothes, the hands gripping the board's top corners)."""
from __future__ import annotations

import numpy as np

from ..core.face_tint import BROW_ATTRIBUTE, TINT_ATTRIBUTE
from ..core.ro_board import (BOARD_PX_PER_MM, BOARD_SIZE_M, BoardPlan, board_texture, technician_look,
                             technician_parts, technician_skin_tints)
from . import compat
from . import materials as mats
from .meshes import mesh_object, textured_quad
from .person import build_person_object, person_materials

BOARD = "RO_Board"
FRAME_MATERIAL = ((0.55, 0.56, 0.58), 0.35)
GLOSS_ROUGHNESS = (0.18, 0.34)  # the dry-erase face: glossy, duller where wiping has dulled it


def dry_erase_material(name: str, image):
    """The board's face: its texture (core/ro_board.board_texture, wear included), its gloss varying in
    wipe-sized patches (a few centimetres), so a reflection on it is not one even sheen."""
    material = mats.image_material(name, image, roughness=GLOSS_ROUGHNESS[0])
    nodes, links = material.node_tree.nodes, material.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    uv = nodes.new("ShaderNodeTexCoord").outputs["UV"]
    dull = mats.map_range(nodes, links, mats.noise_fac(nodes, links, uv, 9.0, 2.0), 0.35, 0.7, *GLOSS_ROUGHNESS)
    links.new(dull, compat.principled_input(bsdf, "Roughness"))
    return material


def _face_attributes(board: BoardPlan, parts: dict) -> dict:
    """The skin's point attributes for its face regions (core/face_tint), as the skin shader reads them."""
    tints = technician_skin_tints(board, parts)
    brows = np.zeros_like(tints[:, :3])
    brows[:, 0] = tints[:, 3]
    return {TINT_ATTRIBUTE: tints[:, :3], BROW_ATTRIBUTE: brows}


def build_board(scene, board: BoardPlan) -> dict:
    """Objects: the board (target), its frame, the technician's body and hands; returns their names and the
    layout of what was written."""
    col = scene.collection
    image_rgb, layout = board_texture(board, BOARD_PX_PER_MM)
    image = mats.packed_image("RB_ROBoardImage", image_rgb)
    material = dry_erase_material("RB_ROBoard", image)
    center, right, up, normal = board.frame
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, up, normal, center
    textured_quad(BOARD, BOARD_SIZE_M[0], BOARD_SIZE_M[1], col, material, matrix=m)
    names = {"board": BOARD, "body": [], "hands": []}
    parts = technician_parts(board)
    quads = np.concatenate(parts.pop("frame")).reshape(-1, 4, 3)
    base = 4 * np.arange(len(quads))[:, None]
    frame = mats.principled("RB_Technician_frame", FRAME_MATERIAL[0], roughness=FRAME_MATERIAL[1], metallic=0.8)
    mesh_object("RO_BoardFrame", quads.reshape(-1, 3), np.concatenate([base + [0, 1, 2], base + [0, 2, 3]]), col,
                materials=[frame])
    names["body"].append("RO_BoardFrame")
    look = technician_look(board)
    materials = person_materials("RB_Technician", look, [k for k, meshes in parts.items() if meshes])
    hands_in = "gloves" if look.gloves else "skin"
    for key, meshes in parts.items():
        if not meshes:
            continue
        name = "Technician_Skin" if key == "skin" else f"Technician_{key.capitalize()}"
        attributes = _face_attributes(board, parts) if key == "skin" else None
        build_person_object(name, meshes, col, materials[key], attributes)
        names["body"].append(name)
        if key == hands_in:
            names["hands"].append(name)
    names["layout"] = layout
    return names

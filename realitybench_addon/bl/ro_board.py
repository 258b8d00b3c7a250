"""Build the technician holding the repair-order board: the board's written face as a textured quad at
true size (`RO_Board`, the target), its frame, and the technician's body and hands."""
from __future__ import annotations

import numpy as np

from ..core.ro_board import BOARD_PX_PER_MM, BOARD_SIZE_M, BoardPlan, board_texture, technician_parts
from . import materials as mats
from .meshes import mesh_object, textured_quad

BOARD = "RO_Board"
MATERIALS = {"pants": ((0.02, 0.025, 0.04), 0.9), "shirt": ((0.03, 0.05, 0.12), 0.85),
             "skin": ((0.35, 0.2, 0.13), 0.6), "frame": ((0.55, 0.56, 0.58), 0.35), "shoes": ((0.02, 0.02, 0.02), 0.6)}


def build_board(scene, board: BoardPlan) -> dict:
    """Objects: the board (target), its frame, the technician's body and hands; returns their names and the
    layout of what was written."""
    col = scene.collection
    image_rgb, layout = board_texture(board, BOARD_PX_PER_MM)
    image = mats.packed_image("RB_ROBoardImage", image_rgb)
    material = mats.image_material("RB_ROBoard", image, roughness=0.25)
    center, right, up, normal = board.frame
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, up, normal, center
    textured_quad(BOARD, BOARD_SIZE_M[0], BOARD_SIZE_M[1], col, material, matrix=m)
    names = {"board": BOARD, "body": [], "hands": []}
    for key, items in technician_parts(board).items():
        color, rough = MATERIALS[key]
        mat = mats.principled(f"RB_Technician_{key}", color, roughness=rough, metallic=0.8 if key == "frame" else 0.0)
        verts, faces = [], []
        offset = 0
        for item in items:
            if isinstance(item, tuple):
                v, t = item
                verts.append(np.asarray(v))
                faces.append(np.asarray(t) + offset)
            else:
                q = np.asarray(item).reshape(-1, 4, 3)
                verts.append(q.reshape(-1, 3))
                base = 4 * np.arange(len(q))[:, None] + offset
                faces.append(np.concatenate([base + [0, 1, 2], base + [0, 2, 3]]))
            offset += len(verts[-1])
        name = {"frame": "RO_BoardFrame", "skin": "Technician_Skin"}.get(key, f"Technician_{key.capitalize()}")
        mesh_object(name, np.concatenate(verts), np.concatenate(faces), col, materials=[mat])
        names["body"].append(name)
    names["layout"] = layout
    return names

"""Build the digital angle gauge of a `GaugePlan` on the roof: body, end caps, bezel, and its LCD."""
from __future__ import annotations

import numpy as np

from ..core.gauge import (BODY_HEIGHT_M, BODY_LENGTH_M, BODY_WIDTH_M, LCD_ABOVE_BODY_M, WINDOW_ACROSS_M,
                          WINDOW_ALONG_M, WINDOW_OFFSET_M, GaugePlan, display_texture)
from ..core.roof import RoofPlan
from . import materials as mats
from .meshes import boxes, mesh_object, textured_quad

BODY = "Gauge_Body"
DISPLAY = "Gauge_Display"


def gauge_matrix(plan: RoofPlan, gauge: GaugePlan) -> np.ndarray:
    """World matrix of the gauge: origin under the body's centre, X across, Y along the long axis, Z up."""
    along, across = gauge.axes_uvh()
    rot = plan.frame.axes
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = rot @ across, rot @ along, rot @ np.array([0.0, 0.0, 1.0])
    m[:3, 3] = plan.frame.to_world([gauge.u, gauge.v, gauge.h])
    return m


def build_gauge(scene, plan: RoofPlan, gauge: GaugePlan) -> dict:
    col = scene.collection
    m = gauge_matrix(plan, gauge)
    hw, hl, t = BODY_WIDTH_M / 2, BODY_LENGTH_M / 2, BODY_HEIGHT_M
    shell = mats.principled("RB_GaugeShell", (0.62, 0.42, 0.02), roughness=0.45)
    rubber = mats.principled("RB_GaugeRubber", (0.015, 0.015, 0.015), roughness=0.8)
    cap = 0.025
    bv, bq = boxes([-hw, -hl + cap, 0.0], [hw, hl - cap, t])
    mesh_object(BODY, bv, bq, col, matrix=m, materials=[shell])
    ev, eq = boxes(np.array([[-hw - 0.002, -hl, -0.0], [-hw - 0.002, hl - cap, 0.0]]),
                   np.array([[hw + 0.002, -hl + cap, t + 0.002], [hw + 0.002, hl, t + 0.002]]))
    mesh_object("Gauge_EndCaps", ev, eq, col, matrix=m, materials=[rubber])
    # a black bezel around the window, two buttons below it
    y0 = WINDOW_OFFSET_M
    zv, zq = boxes([-WINDOW_ACROSS_M / 2 - 0.002, y0 - WINDOW_ALONG_M / 2 - 0.002, t],
                   [WINDOW_ACROSS_M / 2 + 0.002, y0 + WINDOW_ALONG_M / 2 + 0.002, t + 0.0006])
    mesh_object("Gauge_Bezel", zv, zq, col, matrix=m, materials=[rubber])
    kv, kq = boxes(np.array([[-0.014, y0 - 0.034, t], [0.004, y0 - 0.034, t]]),
                   np.array([[-0.004, y0 - 0.026, t + 0.0025], [0.014, y0 - 0.026, t + 0.0025]]))
    mesh_object("Gauge_Buttons", kv, kq, col, matrix=m, materials=[rubber])
    image, _ = display_texture(gauge.display_text)
    lcd = mats.image_material("RB_GaugeLCD", mats.packed_image("RB_GaugeLCDImage", image), roughness=0.12)
    # image x runs across the body (+X), image y down the slope (-Y): upright for a reader facing upslope
    textured_quad(DISPLAY, WINDOW_ACROSS_M, WINDOW_ALONG_M, col, lcd, matrix=m,
                  center=(0.0, y0, t + LCD_ABOVE_BODY_M))
    return {"body": BODY, "display": DISPLAY}

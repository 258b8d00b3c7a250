"""Build the digital angle gauge of a `GaugePlan` on the roof: its LCD (measured) and the product around it
from core/gauge.py's geometry: the rounded body, rubber end caps, the bezel, pill buttons, the printed top."""
from __future__ import annotations

import numpy as np

from ..core.gauge import (BODY_HEIGHT_M, FACEPLATE_ABOVE_BODY_M, LCD_ABOVE_BODY_M, WINDOW_ACROSS_M,
                          WINDOW_ALONG_M, WINDOW_OFFSET_M, GaugePlan, display_texture, faceplate_size_m,
                          faceplate_texture, gauge_parts)
from ..core.product_shapes import SMOOTH_ANGLE_RAD
from ..core.roof import RoofPlan
from . import materials as mats
from .meshes import ngon_object, textured_quad

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
    t = BODY_HEIGHT_M
    shell = mats.moulded_plastic("RB_GaugeShell", (0.62, 0.42, 0.02), roughness=0.45)
    rubber = mats.principled("RB_GaugeRubber", (0.015, 0.015, 0.015), roughness=0.8)
    bezel = mats.principled("RB_GaugeBezel", (0.01, 0.01, 0.012), roughness=0.25)
    parts = gauge_parts()
    for name, part, material in ((BODY, "body", shell), ("Gauge_EndCaps", "caps", rubber),
                                 ("Gauge_Bezel", "bezel", bezel), ("Gauge_Buttons", "buttons", rubber)):
        ngon_object(name, *parts[part], col, matrix=m, materials=[material], smooth_angle=SMOOTH_ANGLE_RAD)
    plate = mats.image_material("RB_GaugeFaceplate", mats.packed_image("RB_GaugeFaceplateImage", faceplate_texture()),
                                roughness=0.5)
    textured_quad("Gauge_Faceplate", *faceplate_size_m(), col, plate, matrix=m,
                  center=(0.0, 0.0, t + FACEPLATE_ABOVE_BODY_M))
    y0 = WINDOW_OFFSET_M
    image, _ = display_texture(gauge.display_text)
    lcd = mats.image_material("RB_GaugeLCD", mats.packed_image("RB_GaugeLCDImage", image), roughness=0.12)
    # image x runs across the body (+X), image y down the slope (-Y): upright for a reader facing upslope
    textured_quad(DISPLAY, WINDOW_ACROSS_M, WINDOW_ALONG_M, col, lcd, matrix=m,
                  center=(0.0, y0, t + LCD_ABOVE_BODY_M))
    return {"body": BODY, "display": DISPLAY}

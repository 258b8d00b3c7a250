"""Render sanity: frames no phone would have produced are discarded before sampling."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .image_terms import SATURATED_LEVEL, luminance

BLACK_MEAN_LUMINANCE = 0.02  # display-encoded mean below this: a black frame
BLOWN_SHARE = 0.6  # more than this share of saturated pixels: a blown frame


def image_discard_reason(display: np.ndarray) -> Optional[str]:
    """'black frame' or 'blown frame' for a final image in [0, 1], else None."""
    if float(luminance(display).mean()) < BLACK_MEAN_LUMINANCE:
        return "black frame"
    if float(np.mean(np.any(np.asarray(display)[..., :3] >= SATURATED_LEVEL, axis=-1))) > BLOWN_SHARE:
        return "blown frame"
    return None

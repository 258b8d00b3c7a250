"""The moulded lettering on a tyre's sidewall (pure): a strip image unrolled round the tyre.

Three blind panels called the wheels "cartoon" and the tyres "smooth untextured": a real sidewall carries its
maker's name twice in tall raised letters, and the size, load and speed index, construction and a DOT code in
small ones, all the rubber's own colour, seen by how they catch the light.

The strip's columns go once round the tyre (column 0 at angle 0 round the axle, counter-clockwise seen from the
wheel's outside); its rows span the band of radii `BAND` (a share of the tyre's radius), the top row outermost,
so the letters' tops point away from the axle, as they are moulded. Values are the letters' height, 0 (the
sidewall) to 255 (a letter's face). Makers and sizes are invented; the font is `core.lettering`'s.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .lettering import draw_text, text_width

STRIP_PX = (96, 3072)  # rows across the band, columns round the tyre (a millimetre a column on a 0.3 m tyre)
BAND = (0.74, 0.92)  # the band's inner and outer radius over the tyre's radius: the sidewall between rim and shoulder
BRAND_CAP = 0.5  # the maker's name, cap height over the band's height
SMALL_CAP = 0.17  # the size, index and codes
BRAND_STROKE, SMALL_STROKE = 0.2, 0.13  # stroke over cap height: the maker's name is bold
BRAND = "TERRAGRIP"
# (the quarter of the turn it is centred on, text, cap height over the band, the row of its baseline over the band)
LEGENDS = ((0.0, BRAND, BRAND_CAP, 0.78),
           (0.5, BRAND, BRAND_CAP, 0.78),
           (0.25, "P215/60R16 94H", 0.26, 0.62),
           (0.25, "TUBELESS  STEEL BELTED RADIAL", SMALL_CAP, 0.92),
           (0.75, "M+S", 0.3, 0.62),
           (0.75, "DOT 4X7J 2219", SMALL_CAP, 0.92),
           (0.12, "MAX LOAD 670 KG", SMALL_CAP, 0.28),
           (0.62, "MAX PRESS 300 KPA", SMALL_CAP, 0.28))


@lru_cache(maxsize=1)
def sidewall_strip() -> np.ndarray:
    """The lettering's height over the strip, uint8 (rows, columns): row 0 is the band's outer edge."""
    from PIL import Image

    rows, cols = STRIP_PX
    image = Image.new("L", (cols, rows), 0)
    for turn, text, cap, baseline in LEGENDS:
        cap_px = cap * rows
        x = turn * cols - text_width(text, cap_px) / 2
        stroke = cap_px * (BRAND_STROKE if cap == BRAND_CAP else SMALL_STROKE)
        for start in (x, x + cols):  # a legend across column 0 is drawn on both ends
            # the top row is the outer edge: letters stand with their tops outward
            draw_text(image, text, start, baseline * rows, cap_px, color=255, stroke_px=stroke)
    return np.asarray(image, np.uint8).copy()

"""Code 128 barcodes for equipment labels: the module pattern and its drawing at true size.

A serial number's barcode must be a real, decodable symbol (a reviewer or a model may read
it), so the encoding follows ISO/IEC 15417: start code, data, modulo-103 check symbol, stop.
Code set B carries all of printable ASCII; code set C packs two digits into one symbol.
The code sets are chosen by a shortest-symbol search (B or C at every character, a switch
costing one symbol), which puts long digit runs in C exactly when that saves symbols:
all-digit data of even length is pure C, a serial like "SN-00412345" switches to C for its
digits. Ties keep set B (fewer switches, the same width).
"""
from __future__ import annotations

import math

QUIET_ZONE_MODULES = 10  # clear space each side, in modules: the standard's minimum

# The symbol characters' widths (bar, space, bar, space, bar, space), values 0-105; 106 is the stop.
PATTERNS = (
    "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
    "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
    "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
    "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
    "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
    "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
    "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
    "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
    "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
    "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
    "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
)
START_B, START_C = 104, 105
CODE_B, CODE_C = 100, 99  # the switch to set B (sent from C) and to set C (sent from B)
STOP = 106


def _check_data(data: str) -> None:
    if not data:
        raise ValueError("Code 128 needs at least one character")
    bad = sorted({c for c in data if not 32 <= ord(c) <= 126})
    if bad:
        raise ValueError(f"characters outside printable ASCII (32-126) cannot be encoded: {bad!r}")


def code128_values(data: str) -> list[int]:
    """The symbol values from start code to check symbol (the stop, 106, not included)."""
    _check_data(data)
    n = len(data)

    def pair_at(i: int) -> bool:
        return i + 1 < n and data[i].isdigit() and data[i + 1].isdigit()

    # cost[i][s]: the fewest symbols to encode data[i:] when the current set is s (0 = B, 1 = C).
    inf = math.inf
    cost = [[0.0, 0.0] for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        in_b = 1 + cost[i + 1][0]
        in_c = 1 + cost[i + 2][1] if pair_at(i) else inf
        cost[i][0] = min(in_b, 1 + in_c)
        cost[i][1] = min(in_c, 1 + in_b)

    current = 1 if cost[0][1] < cost[0][0] else 0  # ties start in B
    values = [START_C if current else START_B]
    i = 0
    while i < n:
        in_b = 1 + cost[i + 1][0]
        in_c = 1 + cost[i + 2][1] if pair_at(i) else inf
        stay, other = (in_c, in_b) if current else (in_b, in_c)
        if 1 + other < stay:  # switching strictly saves symbols
            values.append(CODE_B if current else CODE_C)
            current = 1 - current
        if current:
            values.append(int(data[i:i + 2]))
            i += 2
        else:
            values.append(ord(data[i]) - 32)
            i += 1
    values.append(check_value(values))
    return values


def check_value(values: list[int]) -> int:
    """The modulo-103 check: the start value plus each symbol's value times its position."""
    return (values[0] + sum(k * v for k, v in enumerate(values[1:], start=1))) % 103


def code128_modules(data: str) -> list[int]:
    """Run widths in modules, alternating bar and space from a bar: the whole symbol without
    quiet zones (11 modules per symbol character, 13 for the stop)."""
    runs = []
    for value in code128_values(data) + [STOP]:
        runs.extend(int(w) for w in PATTERNS[value])
    return runs


def symbol_width_modules(data: str) -> int:
    return sum(code128_modules(data))


def draw_code128(image, data: str, x_px: float, y_top_px: float, module_px: float, height_px: float,
                 color=(15, 15, 15)) -> tuple[float, float, float, float]:
    """Draw the bars into `image` (PIL, RGB/RGBA/L) from the first bar's left edge at `x_px`;
    return the bars' box (x0, y0, x1, y1). The caller keeps QUIET_ZONE_MODULES clear each side.

    Every pixel gets the fraction of it that bars cover (columns and the top and bottom rows),
    so a fractional module width stays a faithful, decodable symbol instead of a rounded one.
    """
    import numpy as np
    from PIL import Image

    if module_px <= 0 or height_px <= 0:
        raise ValueError("module_px and height_px must be positive")
    runs = code128_modules(data)
    edges = x_px + module_px * np.concatenate([[0], np.cumsum(runs)])
    x1, y1 = float(edges[-1]), y_top_px + height_px
    box = (float(x_px), float(y_top_px), x1, float(y1))

    c0, c1 = max(0, math.floor(x_px)), min(image.width, math.ceil(x1))
    r0, r1 = max(0, math.floor(y_top_px)), min(image.height, math.ceil(y1))
    if c0 >= c1 or r0 >= r1:
        return box
    left = np.arange(c0, c1, dtype=float)
    column = np.zeros(c1 - c0)
    for start, end in zip(edges[0:-1:2], edges[1::2]):  # the bars
        column += np.clip(np.minimum(left + 1, end) - np.maximum(left, start), 0, None)
    top = np.arange(r0, r1, dtype=float)
    row = np.clip(np.minimum(top + 1, y1) - np.maximum(top, y_top_px), 0, None)
    coverage = np.clip(np.outer(row, column), 0, 1)

    alpha = Image.fromarray(np.round(coverage * 255).astype(np.uint8), "L")
    if image.mode == "L":
        fill = color if isinstance(color, int) else round(0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2])
    else:
        fill = tuple(color) + ((255,) if image.mode == "RGBA" and len(color) == 3 else ())
    image.paste(Image.new(image.mode, alpha.size, fill), (c0, r0), alpha)
    return box

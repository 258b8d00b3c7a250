"""The phone view, Browse Set's thumbnail, F3 and the overlay in a real window: Debian's Blender 3.4.1 under
Xvfb, driven by tests/gui/phone_view_window.py (F3 typed through xdotool). What the window shows is read
back from its screenshots: the composed frame and the thumbnail in the sidebar, the frame 1:1 in the Image
Editor with the target's outline in exact magenta (no view transform over the phone's pixels)."""
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
NEEDS = ("blender", "xvfb-run", "xdotool")


def _crop(png: Path, line: str, output: str) -> np.ndarray:
    from PIL import Image

    x, top, w, h = map(int, re.search(rf"{line} (\d+) (\d+) (\d+) (\d+)", output).groups())
    with Image.open(png) as im:
        return np.asarray(im.convert("RGB")).astype(int)[top:top + h, x:x + w]


@pytest.mark.blender_binary
@pytest.mark.skipif(any(shutil.which(tool) is None for tool in NEEDS),
                    reason=f"needs {', '.join(NEEDS)} (CI installs them through scripts/setup.sh --tests)")
def test_phone_view_thumbnail_and_menu_search_in_a_real_window(tmp_path):
    empty = tmp_path / "empty.blend"
    subprocess.run(["blender", "-b", "--factory-startup", "--python-expr",
                    f"import bpy; bpy.ops.wm.save_as_mainfile(filepath={str(empty)!r})"],
                   check=True, capture_output=True, timeout=120)
    proc = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", "blender", "--factory-startup",
                           "--window-geometry", "0", "0", "1600", "1000", str(empty), "--python",
                           "tests/gui/phone_view_window.py", "--", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert "RB-PV-DONE" in output and "RB-PV-FAILED" not in output and "Traceback" not in output, output[-3000:]
    assert "RB-PV-F3-BUILD ('tape_gap', 0, 24, 'random')" in output  # F3 "Build Scene" found the menu entry
    assert "RB-PV-AFTER-BUILD cleared" in output
    assert "RB-PV-F3-OPEN 1 RealityBench Phone View" in output  # F3 "Open Phone View": an Image Editor
    sidebar = _crop(tmp_path / "sidebar.png", "RB-PV-SIDEBAR", output)
    r, g, b = sidebar[..., 0], sidebar[..., 1], sidebar[..., 2]
    assert ((r - g > 60) & (b - g > 60)).sum() > 50  # the target's magenta outline in the panel's preview
    assert ((r - g > 50) & (r - b > 50)).sum() > 1500  # the failing region's red tint
    thumbnail = _crop(tmp_path / "thumbnail.png", "RB-PV-SIDEBAR", output)
    r, g, b = thumbnail[..., 0], thumbnail[..., 1], thumbnail[..., 2]
    assert ((g - r > 120) & (g - b > 120)).sum() > 15000  # the set JPEG's (green) thumbnail, 4:3 at panel width
    editor = _crop(tmp_path / "editor.png", "RB-PV-EDITOR", output)
    magenta = (editor == (255, 0, 255)).all(axis=2)
    assert magenta.sum() > 1500  # 2 px outline around 240 x 160, at 1:1, exactly as composed
    rows, cols = np.nonzero(magenta)
    assert 235 <= cols.max() - cols.min() <= 245 and 155 <= rows.max() - rows.min() <= 165
    # the phone's own values on screen, no view transform over them: the wall it saved as 205, the card (70)
    # under the failing region's red tint
    assert np.abs(editor[rows.min() - 20, cols.min() + 50] - 205).max() <= 3
    tinted = np.round(70 * 0.55 + np.array((255, 40, 30)) * 0.45)
    assert np.abs(editor[(rows.min() + rows.max()) // 2, (cols.min() + cols.max()) // 2] - tinted).max() <= 4

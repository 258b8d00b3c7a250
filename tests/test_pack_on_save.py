"""Drawn textures (tape blades, labels, plates, the gauge's LCD, damage) are packed into a .blend when it is
saved, not when they are made (packing PNG-encodes them: some 20 ms a scene that an export never saves). Any
save packs them, a script's own `save_as_mainfile` included, also after a file load, and the file carries
the very pixels drawn."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("bpy")

ROOT = Path(__file__).resolve().parent.parent

SAVE = """
import sys
import bpy
import numpy as np
from realitybench_addon.bl import analytic, materials
out, reloaded = sys.argv[1], sys.argv[2]
analytic.reset_scene()
rgb = np.random.default_rng(4).integers(0, 256, (48, 300, 3), dtype=np.uint8)
np.save(out + ".npy", rgb)
image = materials.packed_image("RB_Drawn", rgb)
image.use_fake_user = True  # a scene's material would use it; an image with no user is not saved
assert image.packed_file is None  # nothing encoded until a save
# a file load in between: the handler must survive it
bpy.ops.wm.save_as_mainfile(filepath=reloaded)
bpy.ops.wm.open_mainfile(filepath=reloaded)
image = bpy.data.images["RB_Drawn"]
assert image.packed_file is not None, "the first save did not pack the image"
second = materials.packed_image("RB_DrawnAfterLoad", rgb[::-1].copy())
second.use_fake_user = True
bpy.ops.wm.save_as_mainfile(filepath=out)
assert second.packed_file is not None
print("saved")
"""

LOAD = """
import sys
import bpy
import numpy as np
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
rgb = np.load(sys.argv[1] + ".npy")
for name, drawn in (("RB_Drawn", rgb), ("RB_DrawnAfterLoad", rgb[::-1])):
    image = bpy.data.images[name]
    assert image.packed_file is not None, name
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    read = (px.reshape(h, w, 4)[::-1, :, :3] * 255).round().astype(np.uint8)
    assert np.array_equal(read, drawn), name
print("loaded")
"""


def python(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_a_saved_blend_carries_the_drawn_pixels_packed_at_save_time(tmp_path):
    blend = tmp_path / "drawn.blend"
    saved = python(SAVE, str(blend), str(tmp_path / "first.blend"))
    assert saved.returncode == 0 and "saved" in saved.stdout, saved.stderr[-2000:]
    loaded = python(LOAD, str(blend))
    assert loaded.returncode == 0 and "loaded" in loaded.stdout, loaded.stderr[-2000:]


def test_the_conversion_to_blender_pixels_is_exact():
    """`packed_image` writes rgb / 255 as float32, which Blender's byte buffer rounds back to rgb."""
    rgb = np.arange(256, dtype=np.uint8).reshape(1, 256, 1).repeat(3, 2)
    as_float = np.divide(rgb, np.float32(255.0), dtype=np.float32)
    assert np.array_equal(np.round(as_float * 255).astype(np.uint8), rgb)

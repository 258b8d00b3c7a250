"""Drawn textures (tape blades, labels, plates, the gauge's LCD, damage) are packed into a .blend when it is
saved, not when they are made, headless (packing PNG-encodes them: some 20 ms a scene that an export never
saves). Any save packs them, a script's own `save_as_mainfile` included, also after a file load (the handler
is persistent), and the file carries the very pixels drawn; an image that cannot be packed keeps no other
out of the file."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("bpy")

ROOT = Path(__file__).resolve().parent.parent

SAVE = """
import os
import sys
import bpy
import numpy as np
from realitybench_addon.bl import analytic, damage, materials
out, reloaded = sys.argv[1], sys.argv[2]
analytic.reset_scene()
rgb = np.random.default_rng(4).integers(0, 256, (48, 300, 3), dtype=np.uint8)
np.save(out + ".npy", rgb)
image = materials.packed_image("RB_Drawn", rgb)
image.use_fake_user = True  # a scene's material would use it; an image with no user is not saved
assert image.packed_file is None  # nothing encoded until a save
dented = damage.packed_rgba("RB_DrawnRGBA", np.random.default_rng(5).random((20, 30, 4)))
dented.use_fake_user = True
bpy.ops.wm.save_as_mainfile(filepath=reloaded)
bpy.ops.wm.open_mainfile(filepath=reloaded)  # a file load in between: the handler must survive it
assert bpy.data.images["RB_Drawn"].packed_file is not None, "the first save did not pack the image"
assert bpy.data.images["RB_DrawnRGBA"].packed_file is not None
# marked by hand, not through pack_on_save (which would install the handler again)
second = bpy.data.images.new("RB_DrawnAfterLoad", 300, 48, alpha=False)
second.pixels.foreach_set(np.concatenate([rgb[::-1] / 255.0, np.ones((48, 300, 1))], 2).astype(np.float32).ravel())
second[materials.PACK_ON_SAVE] = True
second.use_fake_user = True
broken = bpy.data.images.new("RB_AAA_Unpackable", 4, 4)  # sorts first: packed before the others
broken.source, broken.filepath = "FILE", "/nonexistent/none.png"
broken[materials.PACK_ON_SAVE] = True
broken.use_fake_user = True
bpy.ops.wm.save_as_mainfile(filepath=out)
assert second.packed_file is not None, "after a file load, a save did not pack"
print("saved", flush=True)
os._exit(0)  # bpy 4.5 can hang in its exit handlers after a file load
"""

LOAD = """
import os
import sys
import bpy
import numpy as np
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
rgb = np.load(sys.argv[1] + ".npy")
for name, drawn in (("RB_Drawn", rgb), ("RB_DrawnAfterLoad", rgb)):
    image = bpy.data.images[name]
    assert image.packed_file is not None, name
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    read = (px.reshape(h, w, 4)[::-1, :, :3] * 255).round().astype(np.uint8)
    assert np.array_equal(read, drawn), name
print("loaded", flush=True)
os._exit(0)  # bpy 4.5 can hang in its exit handlers after a file load
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


def test_packed_image_writes_the_pixels_it_always_wrote():
    """rgb / 255 in float32, bottom row first, alpha 1: the same floats as the conversion made before it was
    written into one buffer; Blender's byte buffer then holds rgb again, and nothing is packed yet."""
    import bpy

    from realitybench_addon.bl import materials

    rgb = np.random.default_rng(2).integers(0, 256, (7, 256, 3), dtype=np.uint8)
    rgb[0, :, 0] = np.arange(256)
    before = np.concatenate([rgb[::-1].astype(np.float32) / 255.0, np.ones((7, 256, 1), np.float32)], axis=2)
    assert materials.blender_rgba(rgb).tobytes() == before.tobytes()
    image = materials.packed_image("RB_ConversionCheck", rgb)
    try:
        held = np.empty(7 * 256 * 4, np.float32)
        image.pixels.foreach_get(held)
        assert np.array_equal(np.round(held.reshape(7, 256, 4)[::-1, :, :3] * 255).astype(np.uint8), rgb)
        assert image.packed_file is None and image[materials.PACK_ON_SAVE]
    finally:
        bpy.data.images.remove(image)

"""The phone view, Browse Set's thumbnail, the RealityBench menu through F3 and the overlay in a real window:
Debian's Blender 3.4.1 under Xvfb, run by tests/test_gui_phone_view.py:
    blender --factory-startup --window-geometry 0 0 1600 1000 EMPTY.blend --python THIS -- OUT_DIR
A probe panel in the sidebar's first tab (Item) draws `draw_phone_view` and `draw_set_thumbnail` as the
RealityBench panels do; F3 is pressed and typed through xdotool, as a person does. Prints RB-PV-* lines;
any Python error prints "RB-PV-FAILED" and quits.
"""
import os
import subprocess
import sys
import traceback

import bpy
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)
import realitybench_addon  # noqa: E402
from realitybench_addon.ui import live, phone_view  # noqa: E402

ARGS = sys.argv[sys.argv.index("--") + 1:]
OUT = ARGS[0]
FRAME_DIR = ARGS[ARGS.index("--frame") + 1] if "--frame" in ARGS else None  # a rendered frame (--extras)
STATE = {"step": 0, "probe": "thumbnail"}


class RB_PT_phone_view_probe(bpy.types.Panel):
    bl_space_type, bl_region_type, bl_category, bl_label = "VIEW_3D", "UI", "Item", "Phone View Probe"

    def draw(self, context):  # one at a time: both do not fit under the Item tab's Transform panel
        if STATE["probe"] == "thumbnail":
            phone_view.draw_set_thumbnail(self.layout, context, os.path.join(OUT, "set_frame.jpg"))
        else:
            phone_view.draw_phone_view(self.layout, context)


def save(rgb, path, file_format):
    image = bpy.data.images.new("rb-writer", rgb.shape[1], rgb.shape[0], alpha=False)
    rgba = np.ones(rgb.shape[:2] + (4,), np.float32)
    rgba[..., :3] = rgb / 255.0
    image.pixels.foreach_set(rgba[::-1].ravel())
    image.filepath_raw, image.file_format = path, file_format
    image.save()
    bpy.data.images.remove(image)


def crop(png, area, out):
    """The area's part of a screenshot, saved as `out` (docs/img/phone_view.png comes from here)."""
    shot = bpy.data.images.load(png)
    w, h = shot.size
    pixels = np.empty(w * h * 4, np.float32)
    shot.pixels.foreach_get(pixels)
    part = pixels.reshape(h, w, 4)[area.y:area.y + area.height, area.x:area.x + area.width]  # rows bottom-up
    image = bpy.data.images.new("rb-crop", area.width, area.height, alpha=False)
    image.pixels.foreach_set(part.ravel())
    image.filepath_raw, image.file_format = out, "PNG"
    image.save()
    bpy.data.images.remove(image)
    bpy.data.images.remove(shot)


def view3d():
    window = bpy.context.window_manager.windows[0]
    return window, max((a for a in window.screen.areas if a.type == "VIEW_3D"), key=lambda a: a.width)


def keys(*args):
    subprocess.run(["xdotool", *args], check=True)


def f3(window, area, text):
    """Menu search, as a person uses it: the pointer over the viewport, F3, the words, Enter."""
    keys("mousemove", str(area.x + area.width // 2), str(window.height - area.y - area.height // 2))
    keys("key", "F3")
    keys("sleep", "0.5", "type", "--delay", "40", text)
    keys("sleep", "0.8", "key", "Return")


def real_frame():
    """A frame rendered with `frame --extras` (scripts/screenshot_phone_view.sh): its JPEG, its target mask and
    its failing terms (in-frame, unoccluded and sharpness terms fail on the target)."""
    import glob
    import json

    record_path = glob.glob(os.path.join(FRAME_DIR, "*.json"))[0]
    record = json.load(open(record_path))
    labels = {t["name"]: t["label"] for t in record["terms"]}
    failing = [{"name": n, "label": labels[n],
                "region": "target" if any(k in n for k in ("in_frame", "unoccluded", "sharp")) else None}
               for n in record["failing_terms"]]
    mask = os.path.join(FRAME_DIR, "extras", "masks", record["environment"], record["frame_id"] + ".png")
    phone_view.record_render(record_path[:-5] + ".jpg", mask, failing,
                             caption=f"{record['frame_id']}: {record['verdict'].upper()}")


def first_pictures():
    if FRAME_DIR:
        return real_frame()
    frame = np.full((480, 640, 3), 205, np.uint8)  # a light grey wall, a dark grey card (the target)
    frame[160:320, 240:480] = 70
    mask = np.zeros_like(frame)
    mask[160:320, 240:480] = 255
    save(frame, os.path.join(OUT, "phone.jpg"), "JPEG")
    save(mask, os.path.join(OUT, "mask.png"), "PNG")
    green = np.zeros((600, 800, 3), np.uint8)
    green[..., 1] = 200
    save(green, os.path.join(OUT, "set_frame.jpg"), "JPEG")
    phone_view.record_render(os.path.join(OUT, "phone.jpg"), os.path.join(OUT, "mask.png"),
                             [{"name": "target_unoccluded", "label": "Target unoccluded", "region": "target"}],
                             caption="probe: REJECT")


def step():
    try:
        window, area = view3d()
        settings = bpy.context.window_manager.realitybench
        n = STATE["step"]
        if n == 0:
            area.spaces.active.show_region_ui = True
            settings.environment, settings.seed, settings.index = "tape_gap", 0, 24
            first_pictures()
        elif n == 2:  # the thumbnail's timer has run, the sidebar drawn twice
            with bpy.context.temp_override(window=window, area=area):
                bpy.ops.screen.screenshot(filepath=os.path.join(OUT, "thumbnail.png"))
            ui = next(r for r in area.regions if r.type == "UI")
            print("RB-PV-SIDEBAR", ui.x, window.height - ui.y - ui.height, ui.width, ui.height, flush=True)
            STATE["probe"] = "phone_view"
            ui.tag_redraw()
        elif n == 3:
            with bpy.context.temp_override(window=window, area=area):
                bpy.ops.screen.screenshot(filepath=os.path.join(OUT, "sidebar.png"))
            f3(window, area, "Build Scene")
        elif n == 5:
            print("RB-PV-F3-BUILD", live.STATE.key, flush=True)
            settings.show_overlay = True  # the overlay's corner text and its backdrop draw from now on
            print("RB-PV-AFTER-BUILD", "cleared" if phone_view.VIEW_IMAGE not in bpy.data.images else "kept",
                  flush=True)  # a new scene: the old frame no longer stands
            first_pictures()  # as a Check of the new scene would record it
            f3(window, area, "Open Phone View")
        elif n == 7:
            editors = [a for a in window.screen.areas if a.type == "IMAGE_EDITOR"]
            shown = editors[0].spaces.active.image.name if editors else None
            print("RB-PV-F3-OPEN", len(editors), shown, flush=True)
            if editors:
                e = editors[0]
                print("RB-PV-EDITOR", e.x, window.height - e.y - e.height, e.width, e.height, flush=True)
                with bpy.context.temp_override(window=window, area=e,
                                               region=next(r for r in e.regions if r.type == "WINDOW")):
                    bpy.ops.image.view_zoom_ratio(ratio=1.0)
        elif n == 8:
            with bpy.context.temp_override(window=window, area=area):
                bpy.ops.screen.screenshot(filepath=os.path.join(OUT, "editor.png"))
            editor = next(a for a in window.screen.areas if a.type == "IMAGE_EDITOR")
            crop(os.path.join(OUT, "editor.png"), editor, os.path.join(OUT, "phone_view.png"))
            realitybench_addon.unregister()
            bpy.utils.unregister_class(RB_PT_phone_view_probe)
            print("RB-PV-DONE", flush=True)
            bpy.ops.wm.quit_blender()
            return None
        STATE["step"] += 1
        return 1.0
    except Exception:
        traceback.print_exc()
        print("RB-PV-FAILED", flush=True)
        bpy.ops.wm.quit_blender()
        return None


realitybench_addon.register()
bpy.utils.register_class(RB_PT_phone_view_probe)
bpy.app.timers.register(step, first_interval=2.0)

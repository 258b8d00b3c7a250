"""Drive the RealityBench sidebar in a real Blender window and save a screenshot.

Run by tests/test_gui_sidebar.py and scripts/screenshot_sidebar.sh inside Debian's Blender
under Xvfb:  blender --factory-startup --window-geometry 0 0 1600 1000 EMPTY.blend --python THIS -- OUT.png
(opening a file skips the splash screen).
Steps run from a timer (the UI must draw between them): open the sidebar on our tab, build
a tape_gap scene and look through the phone, nudge the camera (live readouts), check
acceptability, export from the UI, rate the exported frames and show the raters' agreement in the
(opened) Thresholds panel, screenshot, then move the phone away, click Suggest a Pose (a ghost
camera shows the suggestion; the phone stays), Apply it and press Ctrl+Z (clicks and keys through
xdotool: operators called from Python push no undo step), then Suggest, Apply and the sidebar's
own Undo, quit. Any Python error prints "RB-GUI-FAILED" and quits.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)
import realitybench_addon  # noqa: E402

OUT = sys.argv[sys.argv.index("--") + 1]
SET_DIR = tempfile.mkdtemp(prefix="rb-gui-set-")  # the set exported from the UI: never beside the screenshot
SUGGEST_BUTTON_FROM_TOP = 660  # px below the sidebar's top: the Live Readouts panel's button row
STATE = {"step": 0}


def view3d():
    for window in bpy.context.window_manager.windows:
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                return window, area
    raise RuntimeError("no 3D viewport")


def close(a, b) -> bool:
    return all(abs(x - y) < 1e-5 for ra, rb in zip(a, b) for x, y in zip(ra, rb))


def step():
    try:
        window, area = view3d()
        settings = bpy.context.window_manager.realitybench
        n = STATE["step"]
        if n == 0:
            space = area.spaces.active
            space.show_region_ui = True
            for region in area.regions:
                if region.type == "UI" and hasattr(region, "active_panel_category"):  # Blender 4.x
                    region.active_panel_category = "RealityBench"
            settings.environment, settings.seed, settings.index = "tape_gap", 0, 24
            with bpy.context.temp_override(window=window, area=area):
                assert bpy.ops.realitybench.build_scene() == {"FINISHED"}
            space.region_3d.view_perspective = "CAMERA"
            space.shading.type = "SOLID"
            settings.show_overlay = True  # exercise the overlay's draw code in the real window
        elif n == 1:
            bpy.context.scene.camera.location.z += 0.005  # a hand move: the readouts follow
            ui = next(r for r in area.regions if r.type == "UI")
            if not hasattr(ui, "active_panel_category"):
                # Blender 3.4 cannot pick a sidebar tab from Python: click it, as a person would.
                # Tabs run down the region's right edge: Tool, View, RealityBench.
                x = window.x + ui.x + ui.width - 8
                y = window.height - (ui.y + ui.height) + 140
                subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], check=True)
        elif n == 2:
            with bpy.context.temp_override(window=window, area=area):
                assert bpy.ops.realitybench.check(render=True) == {"FINISHED"}
            print("RB-GUI-CHECK", settings.last_check[:200], flush=True)
        elif n == 3:
            # the export from the UI: a background Blender process, the interface stays live
            with bpy.context.temp_override(window=window, area=area):
                started = bpy.ops.realitybench.export("INVOKE_DEFAULT", environments="tape_gap", random=2,
                                                      positive=0, out=SET_DIR, resolution="96x72", samples=1,
                                                      denoise=False)
            assert started == {"RUNNING_MODAL"}, started
        elif n == 4:
            manifest = os.path.join(SET_DIR, "manifest.json")
            STATE["waits"] = STATE.get("waits", 0) + 1
            if not (os.path.exists(manifest) and '"complete": true' in open(manifest).read()):
                assert STATE["waits"] < 120, "the export from the UI did not finish"
                return 1.0  # stay on this step while the export runs
            rows = open(os.path.join(SET_DIR, "metadata.jsonl")).read().splitlines()
            print("RB-GUI-EXPORT", len(rows), flush=True)
            # three raters judge the exported frames; the Thresholds panel then shows their agreement
            from realitybench_addon.rating.files import Rating
            from realitybench_addon.rating.summary import RatedSet

            rated = RatedSet(SET_DIR)
            for frame_id in rated.rows:
                for rater, answer in (("ann", "accept"), ("bob", "accept"), ("cy", "reject")):
                    rated.store.record(Rating(frame_id, rater, answer))
            settings.rescore_dir = SET_DIR
            with bpy.context.temp_override(window=window, area=area):
                assert bpy.ops.realitybench.rater_gray() == {"FINISHED"}
            print("RB-GUI-RATINGS", settings.last_ratings[:120], flush=True)
        elif n == 5:
            with bpy.context.temp_override(window=window, area=area):
                bpy.ops.screen.screenshot(filepath=OUT)
            print("RB-GUI-SCREENSHOT", OUT, flush=True)
        elif n == 6:
            # Undo after Suggest a Pose, as a person does it: move the phone away, click the button, Ctrl+Z
            camera = bpy.context.scene.camera
            camera.location = camera.location + type(camera.location)((0.0, -2.5, 1.2))
            with bpy.context.temp_override(window=window, area=area):
                bpy.ops.ed.undo_push(message="moved the phone away")
            STATE["moved"] = [tuple(r) for r in camera.matrix_world]
        elif n == 7:
            ui = next(r for r in area.regions if r.type == "UI")
            x = window.x + ui.x + ui.width - 60  # "Suggest a Pose", right of "Check Acceptability"
            y = window.height - (ui.y + ui.height) + SUGGEST_BUTTON_FROM_TOP
            subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], check=True)
        elif n == 8:
            # the click showed the suggestion: a ghost camera in the viewport, the phone not moved yet
            ghost = bpy.data.objects.get("RB_Suggested")
            unmoved = close(STATE["moved"], [tuple(r) for r in bpy.context.scene.camera.matrix_world])
            print("RB-GUI-PREVIEW", "ghost" if ghost is not None else "no-ghost",
                  "unmoved" if unmoved else "moved", flush=True)
            with bpy.context.temp_override(window=window, area=area):  # the suggestion, its hints and its camera
                bpy.ops.screen.screenshot(filepath=OUT.replace(".png", "_suggest.png"))
            with bpy.context.temp_override(window=window, area=area):
                assert bpy.ops.realitybench.apply_suggestion() == {"FINISHED"}
                bpy.ops.ed.undo_push(message="applied the suggestion")
            STATE["suggested"] = [tuple(r) for r in bpy.context.scene.camera.matrix_world]
            subprocess.run(["xdotool", "mousemove", "600", "500", "key", "ctrl+z"], check=True)
        elif n == 9:
            restored = [tuple(r) for r in bpy.data.objects["RB_Phone"].matrix_world]
            print("RB-GUI-UNDO", "not-moved" if close(STATE["moved"], STATE["suggested"]) else "moved",
                  "restored" if close(STATE["moved"], restored) else "not-restored", flush=True)
            # again, undone this time by the sidebar's own Undo button's operator
            with bpy.context.temp_override(window=window, area=area):
                assert bpy.ops.realitybench.suggest_pose() == {"FINISHED"}
                assert bpy.ops.realitybench.apply_suggestion() == {"FINISHED"}
                applied = [tuple(r) for r in bpy.data.objects["RB_Phone"].matrix_world]
                assert bpy.ops.realitybench.undo_suggestion() == {"FINISHED"}
            back = [tuple(r) for r in bpy.data.objects["RB_Phone"].matrix_world]
            print("RB-GUI-SIDEBAR-UNDO", "moved" if not close(applied, back) else "not-moved",
                  "restored" if close(back, restored) else "not-restored", flush=True)
        elif n == 10:
            shutil.rmtree(SET_DIR, ignore_errors=True)
            realitybench_addon.unregister()
            print("RB-GUI-DONE", flush=True)
            bpy.ops.wm.quit_blender()
            return None
        STATE["step"] += 1
        return 1.0
    except Exception:
        traceback.print_exc()
        print("RB-GUI-FAILED", flush=True)
        bpy.ops.wm.quit_blender()
        return None


from realitybench_addon.ui import panels  # noqa: E402

panels.RB_PT_tuning.bl_options = set()  # open the Thresholds panel, so its draw code runs in this window
realitybench_addon.register()
bpy.app.timers.register(step, first_interval=2.0)

"""Check and Suggest a Pose as modal background jobs in a real Blender window (run by
tests/test_sidebar_modal_window.py in Debian's Blender 3.4.1 under Xvfb, which has no OpenImageDenoise):

    blender --factory-startup --window-geometry 0 0 1280 900 EMPTY.blend --python THIS

From a timer (the window draws between steps): build wire_adequacy with the sidebar open (the view then looks
through the phone), start Check Acceptability as a click does (INVOKE_DEFAULT: RUNNING_MODAL at once, the
interface alive while it renders), wait for its result, start Suggest a Pose with its confirming render and
wait for the suggestion, start a Check and press Esc (xdotool), take a screenshot (into $RB_MODAL_OUT), Apply
the suggestion and press Ctrl+Z (the sidebar's Undo is then not offered), quit. Prints RB-MODAL-* lines;
any Python error prints RB-MODAL-FAILED.
"""
import json
import os
import subprocess
import sys
import time
import traceback

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
import realitybench_addon  # noqa: E402

STATE = {"step": 0, "since": 0.0, "ticks": 0}


def view3d():
    for window in bpy.context.window_manager.windows:
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                return window, area
    raise RuntimeError("no 3D viewport")


def invoke(name: str, window, area):
    with bpy.context.temp_override(window=window, area=area):
        return getattr(bpy.ops.realitybench, name)("INVOKE_DEFAULT")


def open_tab(window, area) -> None:
    """The sidebar's RealityBench tab: set from Python on 4.x, clicked on 3.4 (tabs: Tool, View, RealityBench)."""
    ui = next(r for r in area.regions if r.type == "UI")
    if hasattr(ui, "active_panel_category"):
        ui.active_panel_category = "RealityBench"
        return
    x, y = window.x + ui.x + ui.width - 8, window.height - (ui.y + ui.height) + 140
    subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], check=True)


def waiting(settings, what: str) -> bool:
    """True while the job runs (counting the timer's ticks: the interface stays alive meanwhile)."""
    if settings.job_status:
        STATE["ticks"] += 1
        assert time.time() - STATE["since"] < 240, f"{what} did not finish"
        return True
    took = time.time() - STATE["since"]
    print(f"RB-MODAL-{what.upper()}-SECONDS {took:.1f} ticks per s {STATE['ticks'] / took:.1f}", flush=True)
    return False


def step():
    try:
        window, area = view3d()
        settings = bpy.context.window_manager.realitybench
        n = STATE["step"]
        if n == 0:
            area.spaces.active.show_region_ui = True
            settings.environment, settings.seed, settings.index = "wire_adequacy", 0, 1
            with bpy.context.temp_override(window=window, area=area):
                assert bpy.ops.realitybench.build_scene() == {"FINISHED"}
            bpy.context.scene.render.resolution_percentage = 12  # small quick renders
            print("RB-MODAL-VIEW", area.spaces.active.region_3d.view_perspective, flush=True)
            from realitybench_addon.ui import capabilities

            print("RB-MODAL-DENOISER", capabilities.has_denoiser(), flush=True)
        elif n == 1:  # the timer's rate with nothing running, to compare with its rate while a job runs
            if "idle_since" not in STATE:
                open_tab(window, area)
            STATE.setdefault("idle_since", time.time())
            STATE["idle_ticks"] = STATE.get("idle_ticks", 0) + 1
            if time.time() - STATE["idle_since"] < 5.0:
                return 0.2
            print(f"RB-MODAL-IDLE-TICKS-PER-S {STATE['idle_ticks'] / (time.time() - STATE['idle_since']):.1f}",
                  flush=True)
            STATE["step"] += 1
            return 0.2
        elif n == 2:
            STATE["since"], STATE["ticks"] = time.time(), 0
            print("RB-MODAL-CHECK-STARTED", sorted(invoke("check", window, area)), settings.job_status, flush=True)
        elif n == 3:
            if waiting(settings, "check"):
                return 0.2
            shown = json.loads(settings.last_check)
            print("RB-MODAL-CHECK", shown["verdict"], shown["rendered"], shown["key"]["scene"], flush=True)
        elif n == 4:
            settings.suggest_render = True
            STATE["since"], STATE["ticks"] = time.time(), 0
            print("RB-MODAL-SUGGEST-STARTED", sorted(invoke("suggest_pose", window, area)), flush=True)
        elif n == 5:
            if waiting(settings, "suggest"):
                return 0.2
            suggestion = json.loads(settings.suggestion)
            print("RB-MODAL-SUGGEST", bool(suggestion["hints"] or suggestion["unfixable"]),
                  bpy.data.objects.get("RB_Suggested") is not None, flush=True)
        elif n == 6:
            STATE["before"] = settings.last_check
            print("RB-MODAL-ESC-STARTED", sorted(invoke("check", window, area)), flush=True)
            x, y = window.x + area.x + area.width // 3, window.height - (area.y + area.height // 2)
            subprocess.run(["xdotool", "mousemove", str(x), str(y)], check=True)
        elif n == 7:
            subprocess.run(["xdotool", "key", "Escape"], check=True)
        elif n == 8:
            print("RB-MODAL-ESC", "stopped" if not settings.job_status else "running",
                  "unchanged" if settings.last_check == STATE["before"] else "changed", flush=True)
            draw_every_panel(settings)
            with bpy.context.temp_override(window=window, area=area):
                bpy.ops.screen.screenshot(filepath=os.path.join(os.environ.get("RB_MODAL_OUT", "/tmp"),
                                                                "sidebar_modal.png"))
        elif n == 9:  # Apply, then Edit > Undo by its key: the sidebar's Undo is no longer offered
            from realitybench_addon.ui import operators

            matrix = [tuple(r) for r in bpy.context.scene.camera.matrix_world]
            with bpy.context.temp_override(window=window, area=area):
                bpy.ops.ed.undo_push(message="before Apply")
                assert bpy.ops.realitybench.apply_suggestion() == {"FINISHED"}
                bpy.ops.ed.undo_push(message="Apply")  # operators called from Python push no undo step
            STATE["held"] = matrix
            print("RB-MODAL-APPLIED offered" if operators.undo_offered(bpy.context) else "RB-MODAL-APPLIED no-offer",
                  flush=True)
            subprocess.run(["xdotool", "key", "ctrl+z"], check=True)
        elif n == 10:
            from realitybench_addon.ui import operators

            now = [tuple(r) for r in bpy.data.objects["RB_Phone"].matrix_world]
            back = all(abs(x - y) < 1e-5 for a, b in zip(now, STATE["held"]) for x, y in zip(a, b))
            print("RB-MODAL-EDIT-UNDO", "restored" if back else "not-restored",
                  "offered" if operators.undo_offered(bpy.context) else "no-offer", flush=True)
        else:
            print("RB-MODAL-DRAWN", STATE.get("drawn", 0) > 0, flush=True)
            print("RB-MODAL-DONE", flush=True)
            bpy.utils.unregister_class(RB_PT_every_panel)
            realitybench_addon.unregister()
            bpy.ops.wm.quit_blender()
            return None
        STATE["step"] += 1
        return 1.0
    except Exception:
        traceback.print_exc()
        print("RB-MODAL-FAILED", flush=True)
        bpy.ops.wm.quit_blender()
        return None


class RB_PT_every_panel(bpy.types.Panel):
    """Draws every RealityBench panel's body in the real window, open or not (Blender 3.4 cannot open a
    closed panel from Python): their draw code runs on a real layout at the default sidebar width."""

    bl_space_type, bl_region_type, bl_category, bl_label = "VIEW_3D", "UI", "RealityBench", "Every panel"

    def draw(self, context):
        from realitybench_addon.ui import panels

        holder = type("Holder", (), {"layout": self.layout})()
        for cls in panels.CLASSES:
            if getattr(cls, "poll", None) is None or cls.poll(context):
                cls.draw(holder, context)
        STATE["drawn"] = STATE.get("drawn", 0) + 1


def draw_every_panel(settings) -> None:
    """States for the panels' less common lines: an invalid threshold field, a rescore's flipped frames."""
    item = next(i for i in settings.terms if i.unit == "m")
    item.threshold = -3.0
    settings.last_rescore = json.dumps({"frames": 3, "flipped": 1, "flipped_by_environment": {"wire_adequacy": 1},
                                        "flips": [{"frame_id": "wire_adequacy-random-s0-000001", "from": "accept",
                                                   "to": "reject", "failing": [], "gray": []}]})
    print("RB-MODAL-FIELD-ERROR", item.error, flush=True)


realitybench_addon.register()
bpy.utils.register_class(RB_PT_every_panel)
bpy.app.timers.register(step, first_interval=2.0)

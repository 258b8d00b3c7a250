"""A scene designer's whole flow in the RealityBench sidebar of a real Blender window, by clicks and keys.

Run by tests/test_gui_sidebar.py and scripts/screenshot_sidebar.sh inside Debian's Blender 3.4.1 under Xvfb:
    blender --factory-startup --window-geometry 0 0 1000 1000 EMPTY.blend --python THIS -- OUT_DIR
(opening a file skips the splash screen). Screenshots (the right part of the window: viewport and sidebar,
256 colours) go to OUT_DIR/sidebar*.png.

Buttons are found, not placed: tests/gui/driver.py hovers the sidebar and reads what Ctrl+C copies there
(the operator's Python command or the field's data path), then clicks it with xdotool. Every step reads the
answer back from the window's properties and prints one RB-GUI-* line that the pytest test asserts.

By real clicks and keys: the sidebar tab, the Environment field (Ctrl+wheel), the Frame field (Ctrl+V), Build
Scene three times (car_view, breaker_label, tape_gap), Check Acceptability (a background job; the flow waits
for it), moving the phone (G Z 0.05 Enter in the viewport), the 'Confirm with a render' switch, Suggest a
Pose, Apply, Ctrl+Z, Suggest and Apply again and the sidebar's Undo, Next Seed (Randomize), a threshold
(valid, then out of range), three of the export's fields and Export (a background Blender), the Rescore and Browse
folders and their buttons, Show in the Frame Browser. Fields are set by hovering them and pressing Ctrl+V
with the value in the clipboard (their checks and update callbacks run as for typing).
Not by clicks: three of the export's six fields (positive frames, resolution, samples: set from Python, each
pasted field costs some 20 s of probing); selecting the phone before G (a click in the viewport would select
whatever is under it); Apply after Randomize, which the panel greys out as stale: the operator is called to show
it refuses; the raters' answers are written through the rating store (a web page in the product). The Thresholds, Frame
Browser and Export panels are registered open and Phone Camera closed, so the flow needs little scrolling
(Blender 3.4 cannot open a panel from Python). Any Python error prints "RB-GUI-FAILED" and quits.
"""
import json
import os
import shutil
import sys
import tempfile
import time
import traceback

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, HERE)
import driver  # noqa: E402
import realitybench_addon  # noqa: E402
from realitybench_addon.ui import capabilities, jobs, live, operators, panels, results  # noqa: E402

OUT_DIR = sys.argv[sys.argv.index("--") + 1]
SET_DIR = tempfile.mkdtemp(prefix="rb-gui-set-")  # the set exported from the UI: never beside the screenshots
ENVIRONMENTS = ("breaker_label", "car_view", "tape_gap")  # the field starts at rail_attachment


START = time.monotonic()
# A step that builds, renders or exports: about a minute alone, four times that and more under CI's full load (two
# test workers and the other Blender lines beside this window); the whole flow is bounded by the pytest test.
SLOW_STEP_S = 900
# The check's quick render at a quarter of the frame's size (its default is half): the flow checks the clicks and
# what they show, not the picture, and a half-size render took 80 s of one core here and over 300 s in CI.
jobs.CHECK_SCALE = 0.25


def say(tag, *values):
    print(f"RB-GUI-{tag}", *values, f"[{time.monotonic() - START:.0f} s]", flush=True)


def settings():
    return bpy.context.window_manager.realitybench


def camera_matrix():
    return [tuple(r) for r in bpy.context.scene.camera.matrix_world]


def close(a, b) -> bool:
    return all(abs(x - y) < 1e-5 for ra, rb in zip(a, b) for x, y in zip(ra, rb))


def screenshot(d, name):
    """The right part of the window (viewport and sidebar), palette PNG: small enough to commit."""
    path = os.path.join(OUT_DIR, name)
    for area in d.window.screen.areas:
        area.tag_redraw()
    yield 0.3
    yield from d.sync()  # drawn with what the window's properties now say
    with bpy.context.temp_override(window=d.window, area=d.area):
        bpy.ops.screen.screenshot(filepath=path)
    from PIL import Image

    with Image.open(path) as im:
        right = d.area.x + d.area.width
        small = im.convert("RGB").crop((max(0, right - 900), 0, right, im.height)).quantize(colors=256)
    small.save(path, optimize=True)
    say("SCREENSHOT", name, os.path.getsize(path))
    yield 0.1


def pick_environment(d, name):
    """Ctrl+wheel over the Environment field, a notch per item (down: the next), until it shows `name`."""
    from realitybench_addon import api

    names = list(api.environments())  # the field's items, in its order
    for _ in range(3):
        now = settings().environment
        if now == name:
            return
        yield from d.wheel("realitybench.environment", names.index(name) - names.index(now))
    raise RuntimeError(f"the Environment field shows {settings().environment}, not {name}")


def build(d, name):
    yield from pick_environment(d, name)
    yield from d.click("bpy.ops.realitybench.build_scene(", timeout_s=SLOW_STEP_S)
    yield from d.wait_until(lambda: live.STATE.key is not None and live.STATE.key[0] == name, f"{name} built")
    space = d.area.spaces.active
    s = settings()
    say("BUILD", name, s.seed, s.index, bpy.context.scene.camera.name, len(bpy.data.objects),
        space.region_3d.view_perspective, len(s.terms))


def wait_job(d, what):
    yield from d.wait_until(lambda: not settings().job_status, what, timeout_s=SLOW_STEP_S, every=0.5)


def check(d):
    yield from d.click("bpy.ops.realitybench.check(")
    yield from d.wait_until(lambda: settings().last_check, "Check Acceptability", timeout_s=SLOW_STEP_S)
    yield from wait_job(d, "the check's job")
    result = json.loads(settings().last_check)
    say("CHECK", json.dumps({k: result.get(k) for k in ("frame_id", "verdict", "failing_terms")}))
    image = phone_view_image()
    say("PHONE-VIEW", "image" if image is not None else "no-image", tuple(image.size) if image else "")


def phone_view_image():
    from realitybench_addon.ui import phone_link

    name = getattr(sys.modules.get("realitybench_addon.ui.phone_view"), "VIEW_IMAGE", None)
    return bpy.data.images.get(name) if name and phone_link.function("record_render") else None


def move_phone(d):
    camera = bpy.context.scene.camera
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    camera.select_set(True)
    bpy.context.view_layer.objects.active = camera
    z = camera.location.z
    yield from d.keys("g", "z", "0", "period", "0", "5", "Return")
    yield from d.wait_until(lambda: abs(camera.location.z - z) > 1e-4, "the phone to move", timeout_s=30)
    yield 0.5  # the depsgraph runs: matrix_world and the live readouts follow
    yield from d.sync()
    stale = results.stale_reason(json.loads(settings().last_check).get("key"), results.key_now(settings()))
    say("MOVED", f"{camera.location.z - z:.3f}", "stale:", stale or "-")


def suggest(d):
    if settings().suggest_render:
        yield from d.click("realitybench.suggest_render")  # the switch: the geometric suggestion, at once
    before = camera_matrix()
    settings().suggestion = ""
    yield from d.click("bpy.ops.realitybench.suggest_pose(")
    yield from d.wait_until(lambda: settings().suggestion, "Suggest a Pose", timeout_s=SLOW_STEP_S)
    yield from wait_job(d, "the suggestion's job")
    ghost = bpy.data.objects.get("RB_Suggested")
    say("PREVIEW", "ghost" if ghost is not None else "no-ghost",
        "unmoved" if close(before, camera_matrix()) else "moved", "render" if settings().suggest_render else "quick")


def apply_and_undo(d):
    before = camera_matrix()
    yield from d.click("bpy.ops.realitybench.apply_suggestion(")
    applied = camera_matrix()
    yield from d.keys("ctrl+z")
    yield 0.5
    yield from d.sync()
    undone = camera_matrix()
    offered = operators.undo_offered(bpy.context)
    say("UNDO", "moved" if not close(before, applied) else "not-moved",
        "restored" if close(before, undone) else "not-restored", "sidebar-undo-offered" if offered else "no-offer")
    # again (Apply used the suggestion up), undone this time by the sidebar's own Undo
    yield from suggest(d)
    before = camera_matrix()
    yield from d.click("bpy.ops.realitybench.apply_suggestion(")
    applied = camera_matrix()
    yield from d.click("bpy.ops.realitybench.undo_suggestion(")
    say("SIDEBAR-UNDO", "moved" if not close(before, applied) else "not-moved",
        "restored" if close(before, camera_matrix()) else "not-restored")


def refused_apply(d):
    """Suggest, then Next Seed: the suggestion is stale, and Apply refuses it."""
    yield from suggest(d)
    seed = settings().seed
    yield from d.click("bpy.ops.realitybench.randomize_scene(", timeout_s=SLOW_STEP_S)
    yield from d.wait_until(lambda: live.STATE.key is not None and live.STATE.key[1] == seed + 1, "Next Seed")
    stored = json.loads(settings().suggestion).get("key") if settings().suggestion else None
    stale = results.stale_reason(stored, results.key_now(settings()))
    before = camera_matrix()
    with bpy.context.temp_override(window=d.window, area=d.area):
        try:
            outcome = sorted(bpy.ops.realitybench.apply_suggestion())
        except RuntimeError as exc:  # poll failed, or the operator reported an error
            outcome = [str(exc).strip().splitlines()[-1][:160]]
    say("RANDOMIZED", settings().seed, "stale:", stale or "-")
    say("APPLY-REFUSED", "unmoved" if close(before, camera_matrix()) else "moved", json.dumps(outcome))


def thresholds(d):
    s = settings()
    yield from d.click("bpy.ops.realitybench.dismiss_suggestion(")  # the stale suggestion goes
    index, item = next((i, t) for i, t in enumerate(s.terms) if not t.fixed and t.comparator not in
                       ("between", "is_true", "is_false"))
    from realitybench_addon.ui import tuning

    low, high = tuning.allowed_range(live.STATE.preset or tuning.shipped(s.environment),
                                     next(t for t in tuning.shipped(s.environment).terms if t.name == item.name))
    fixed = [t.name for t in s.terms if t.fixed]
    valid = round(item.threshold * 0.9, 3) if item.threshold else 0.5
    path = f"realitybench.terms[{index}].threshold"
    yield from d.type_into(path, f"{valid:g}")
    say("THRESHOLD-VALID", item.name, f"{item.threshold:g}", "error:", item.error or "-",
        "preset:", "edited" if live.STATE.preset is not None else "shipped", "fixed:", ",".join(fixed) or "-")
    invalid = high + 1000 if high != float("inf") else low - 1000
    yield from d.type_into(path, f"{invalid:g}")
    say("THRESHOLD-INVALID", item.name, f"{item.threshold:g}", "error:", item.error or "-")
    yield from screenshot(d, "sidebar_thresholds.png")
    yield from d.type_into(path, f"{valid:g}")  # back to a valid value: the rest of the flow is not blocked
    say("THRESHOLD-BACK", "error:", item.error or "-")


def export(d):
    s = settings()
    say("DENOISE", "offered" if capabilities.has_denoiser() else "not-available",
        "on" if capabilities.denoise(s) else "off")
    # the frame's size, samples and positive count from Python: each pasted field cost some 20 s of probes here
    s.export_positive, s.export_resolution, s.export_samples = 0, "96x72", 1
    for field, value in (("export_environments", "tape_gap"), ("export_random", "2"), ("export_out", SET_DIR)):
        yield from d.type_into(f"realitybench.{field}", value)
    say("EXPORT-FIELDS", s.export_environments, s.export_random, s.export_positive, s.export_resolution,
        s.export_samples, os.path.normpath(bpy.path.abspath(s.export_out)) == os.path.normpath(SET_DIR))
    # the export's start holds the window a while
    yield from d.click("bpy.ops.realitybench.export(", timeout_s=SLOW_STEP_S)
    manifest = os.path.join(SET_DIR, "manifest.json")
    yield from d.wait_until(lambda: os.path.exists(manifest) and '"complete": true' in open(manifest).read(),
                            "the export from the panel", timeout_s=SLOW_STEP_S, every=1.0)
    rows = open(os.path.join(SET_DIR, "metadata.jsonl")).read().splitlines()
    say("EXPORT", len(rows))


def rescore_and_ratings(d):
    from realitybench_addon.rating.files import Rating
    from realitybench_addon.rating.summary import RatedSet

    s = settings()
    yield from d.home()
    yield from d.type_into("realitybench.rescore_dir", SET_DIR)
    yield from d.click("bpy.ops.realitybench.rescore_set(", timeout_s=SLOW_STEP_S)
    yield from d.wait_until(lambda: s.last_rescore, "Rescore")
    say("RESCORE", s.last_rescore[:160].replace("\n", " "))
    rated = RatedSet(SET_DIR)
    for frame_id in rated.rows:
        for rater, answer in (("ann", "accept"), ("bob", "accept"), ("cy", "reject")):
            rated.store.record(Rating(frame_id, rater, answer))
    yield from d.click("bpy.ops.realitybench.rater_gray(")
    say("RATINGS", s.last_ratings[:120])


def browse(d):
    s = settings()
    yield from d.home()
    yield from d.type_into("realitybench.browse_dir", SET_DIR)
    yield from d.click("bpy.ops.realitybench.browse(step=0")
    yield from d.wait_until(lambda: s.browse_row, "Show in the Frame Browser")
    row = json.loads(s.browse_row)
    thumbs = [im.name for im in bpy.data.images if "thumb" in im.name.lower() or "preview" in im.name.lower()]
    say("BROWSE", row.get("frame_id"), row.get("verdict"), "thumbnails:", len(thumbs))
    yield from screenshot(d, "sidebar_browse.png")


def open_sidebar(d):
    space = d.area.spaces.active
    space.show_region_ui = True
    space.shading.type = "SOLID"
    yield 1.0
    yield from d.keys("ctrl+space")  # the viewport fills the window: a taller sidebar
    yield 1.0
    d.area = next(a for a in d.window.screen.areas if a.type == "VIEW_3D")  # the maximized area is a new one
    space = d.area.spaces.active
    space.show_region_ui = True
    yield 0.5
    left, top, width, _ = d.screen_rect()
    # Blender 3.4 cannot pick a sidebar tab from Python: click it. Tabs run down the region's right edge:
    # Tool, View, RealityBench.
    driver.xdotool("mousemove", left + width - 8, top + 140, "click", 1)
    yield from d.sync()
    yield 0.5


def flow():
    window, area = next((w, a) for w in bpy.context.window_manager.windows for a in w.screen.areas
                        if a.type == "VIEW_3D")
    d = driver.Driver(window, area)
    yield from open_sidebar(d)
    for name in ENVIRONMENTS[:2]:
        yield from build(d, name)
    yield from pick_environment(d, ENVIRONMENTS[2])
    yield from d.type_into("realitybench.index", "24")
    yield from build(d, ENVIRONMENTS[2])
    yield from screenshot(d, "sidebar_build.png")
    settings().show_overlay = True  # the overlay's draw code runs in this window
    yield from check(d)
    yield from screenshot(d, "sidebar.png")
    yield from move_phone(d)
    yield from suggest(d)
    yield from screenshot(d, "sidebar_suggest.png")
    yield from apply_and_undo(d)
    yield from refused_apply(d)
    yield from thresholds(d)
    yield from export(d)
    yield from rescore_and_ratings(d)
    yield from browse(d)
    say("PROBES", d.probes, "idle syncs:", d.idle_syncs)
    finish()


def finish():
    shutil.rmtree(SET_DIR, ignore_errors=True)
    realitybench_addon.unregister()
    say("DONE")
    bpy.ops.wm.quit_blender()


def failed():
    traceback.print_exc()
    say("FAILED")
    bpy.ops.wm.quit_blender()


# Opened where the flow needs them, closed where it does not (Blender 3.4 cannot open a panel from Python).
for panel in (panels.RB_PT_tuning, panels.RB_PT_browser, panels.RB_PT_export):
    panel.bl_options = set()
panels.RB_PT_phone.bl_options = {"DEFAULT_CLOSED"}
os.makedirs(OUT_DIR, exist_ok=True)
realitybench_addon.register()
driver.install()
driver.run(flow(), failed)

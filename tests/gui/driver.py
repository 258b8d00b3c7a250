"""Real input for a Blender window under Xvfb, and a way to find the sidebar's buttons without knowing the layout.

Clicks, typing and key presses go through xdotool (XTest: the X server delivers them as a person's). To find a
button the driver hovers points of the sidebar and presses Ctrl+C then Ctrl+Shift+C: over an operator button
Blender copies its Python command, over a property field its data path; the clipboard says what lies there.
Those hover probes are sent through XTest directly (libXtst, as xdotool does) because starting an xdotool
process per probe costs ~0.15 s on a busy machine. After every input the driver presses Pause, bound to a
tiny operator that counts: when the count moves, Blender has handled everything sent before it.

The flow is a generator run from a timer (the UI must draw between steps): it yields a number of seconds to
wait, or `yield from` one of the driver's generators (probe, find, click, ...).
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time

import bpy

SYNC = {"count": 0}
IDLE_SYNC_S = 10.0  # Blender's loop turning this long with the Pause unanswered: the input was handled
TICK_STALL_S = 0.5  # a pause between timer ticks this long: Blender's loop was held (building, rendering)
ROW_STEP = 18  # px: a sidebar widget is 20 px tall at UI scale 1, so a probe every 18 px meets each row


class RBGUI_OT_sync(bpy.types.Operator):
    """Counts Pause presses: the driver's sign that Blender has handled the input before it"""

    bl_idname = "rbgui.sync"
    bl_label = "GUI test sync"

    def execute(self, context):
        SYNC["count"] += 1
        return {"FINISHED"}


class XTest:
    """Pointer moves and key chords through libXtst on $DISPLAY."""

    def __init__(self):
        self.x11 = ctypes.CDLL("libX11.so.6")
        self.xtst = ctypes.CDLL("libXtst.so.6")
        self.x11.XOpenDisplay.restype = ctypes.c_void_p
        self.x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x11.XStringToKeysym.restype = ctypes.c_ulong
        self.x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self.x11.XKeysymToKeycode.restype = ctypes.c_ubyte
        self.x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self.x11.XFlush.argtypes = [ctypes.c_void_p]
        self.x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                                   ctypes.c_ulong]
        self.xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
        self.xtst.XTestFakeButtonEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
        self.display = self.x11.XOpenDisplay(None)
        if not self.display:
            raise RuntimeError("cannot open the X display")

    def code(self, name: str) -> int:
        return self.x11.XKeysymToKeycode(self.display, self.x11.XStringToKeysym(name.encode()))

    def move(self, x: int, y: int) -> None:
        self.xtst.XTestFakeMotionEvent(self.display, -1, int(x), int(y), 0)

    def chord(self, spec: str) -> None:
        """'ctrl+shift+c' style: modifiers pressed, the key tapped, modifiers released."""
        names = {"ctrl": "Control_L", "shift": "Shift_L", "alt": "Alt_L"}
        codes = [self.code(names.get(part, part)) for part in spec.split("+")]
        for code in codes:
            self.xtst.XTestFakeKeyEvent(self.display, code, 1, 0)
        for code in reversed(codes):
            self.xtst.XTestFakeKeyEvent(self.display, code, 0, 0)

    def wheel(self, notches: int) -> None:
        """Wheel notches at the pointer: positive scrolls down (button 5), negative up (button 4)."""
        button = 5 if notches > 0 else 4
        for _ in range(abs(notches)):
            self.xtst.XTestFakeButtonEvent(self.display, button, 1, 0)
            self.xtst.XTestFakeButtonEvent(self.display, button, 0, 0)

    def flush(self) -> None:
        self.x11.XFlush(self.display)

    def sync(self) -> None:
        """Send what is buffered and wait until the X server has processed it (delivered to Blender's queue)."""
        self.x11.XSync(self.display, 0)


def xdotool(*args) -> None:
    subprocess.run(["xdotool", *map(str, args)], check=True)


class Driver:
    def __init__(self, window, area):
        self.window, self.area = window, area
        self.xt = XTest()
        self.cache: dict[str, tuple[int, int]] = {}
        self.last = (0, 0)  # the last button found: the next scan starts near it
        self.probes = 0
        self.idle_syncs = 0  # syncs that ended by Blender idling, not by its answer (see sync)

    # --- geometry -------------------------------------------------------------------------------------
    def region(self, kind: str = "UI"):
        return next(r for r in self.area.regions if r.type == kind)

    def screen_rect(self, kind: str = "UI") -> tuple[int, int, int, int]:
        """left, top, width, height of a region in X screen coordinates (Blender's y runs up)."""
        r = self.region(kind)
        return self.window.x + r.x, self.window.height - (r.y + r.height), r.width, r.height

    def viewport_point(self) -> tuple[int, int]:
        left, top, width, height = self.screen_rect("WINDOW")
        return left + width // 3, top + height // 2

    # --- synchronisation ------------------------------------------------------------------------------
    def sync(self, timeout_s: float = 120.0):
        """Press Pause and wait until Blender has run the counting operator: all input before it is handled.

        Under load Blender 3.4.1 has been seen to drop every Pause over the sidebar for minutes while it handled
        the Ctrl+C probes and clicks around them (twice in about five runs; not found why). So a Pause unanswered
        while the timer keeps ticking (Blender's loop, which reads every queued X event before it runs timers,
        turns without stalling) for IDLE_SYNC_S counts as handled: the input was delivered (XSync) and the loop
        has turned many times since. A loop that stalls (a build, a render) restarts that clock."""
        want = SYNC["count"] + 1
        self.xt.chord("Pause")
        self.xt.sync()
        start = last_tick = time.monotonic()
        idle_since, longest_gap = start, 0.0
        while SYNC["count"] < want:
            now = time.monotonic()
            gap, last_tick = now - last_tick, now
            longest_gap = max(longest_gap, gap)
            if gap > TICK_STALL_S:
                idle_since = now
            if now - idle_since > IDLE_SYNC_S:
                self.idle_syncs += 1
                print(f"RB-GUI-IDLE-SYNC Pause unanswered for {now - start:.0f} s while Blender idled "
                      f"(longest pause between timer ticks {longest_gap:.1f} s)", flush=True)
                self.dump_state(f"idle-sync-{self.idle_syncs}")
                return
            if now - start > timeout_s:
                raise RuntimeError(f"Blender did not handle the input within {timeout_s:.0f} s (longest pause "
                                   f"between timer ticks {longest_gap:.1f} s)")
            yield 0.02

    def dump_state(self, name: str) -> None:
        """With RB_GUI_DEBUG_DIR set: a screenshot of the window and what Blender holds open, for a stuck input."""
        folder = os.environ.get("RB_GUI_DEBUG_DIR")
        if not folder:
            return
        wm = bpy.context.window_manager
        jobs = sys.modules.get("realitybench_addon.ui.jobs")
        print("RB-GUI-STATE", name, "windows:", len(wm.windows), "pointer:", self.last,
              "operators:", [op.bl_idname for op in wm.operators][-4:], "job:", getattr(jobs, "RUNNING", None),
              flush=True)
        with bpy.context.temp_override(window=self.window, area=self.area):
            bpy.ops.screen.screenshot(filepath=os.path.join(folder, name + ".png"))

    def wait_until(self, done, what: str, timeout_s: float = 240.0, every: float = 0.25):
        start = time.monotonic()
        while not done():
            if time.monotonic() - start > timeout_s:
                raise RuntimeError(f"timed out after {timeout_s:.0f} s waiting for {what}")
            yield every

    # --- finding buttons ------------------------------------------------------------------------------
    def probe(self, x: int, y: int):
        """What lies at (x, y): an operator's Python command, a property's data path, or ''."""
        wm = bpy.context.window_manager
        wm.clipboard = ""
        self.xt.move(x, y)
        yield from self.sync()  # the button under the pointer is active before the keys arrive
        self.xt.chord("ctrl+c")  # an operator's Python command (a field's value)
        yield from self.sync()
        self.xt.chord("ctrl+shift+c")  # a field's data path (nothing over an operator)
        self.probes += 1
        yield from self.sync()
        if os.environ.get("RB_GUI_DEBUG"):
            print("RB-GUI-PROBE", x, y, repr(wm.clipboard[:60]), time.monotonic(), flush=True)
        return wm.clipboard.strip()

    def find(self, want: str, pages: int = 4):
        before, started = self.probes, time.monotonic()
        point = yield from self._find(want, pages)
        if os.environ.get("RB_GUI_FINDS"):
            print(f"RB-GUI-FIND {want} {self.probes - before} probes {time.monotonic() - started:.1f} s", flush=True)
        return point

    def _find(self, want: str, pages: int = 4):
        """The screen point of the sidebar button whose command or data path starts with `want`: the
        remembered point if it still holds it, else a scan of the visible sidebar outward from where it (or the
        last button found) was, then a page further down at a time."""
        # every probe of a scan is remembered: a button passed over on the way to another is found in one probe
        seen = self.cache.get(want) or next((point for text, point in self.cache.items() if text.startswith(want)),
                                            None)
        start = seen or self.last
        if seen is not None:
            x, y = seen
            if (yield from self.probe(x, y)).startswith(want):
                self.cache[want] = self.last = (x, y)
                return x, y
        left, top, width, height = self.screen_rect()
        columns = [left + int(width * f) for f in (0.5, 0.2, 0.8)]
        for page in range(pages):
            if page:
                yield from self.scroll(6)
            rows = sorted(range(top + 10, top + height - 4, ROW_STEP), key=lambda y: abs(y - start[1]))
            for y in rows:
                for i, x in enumerate(columns):
                    text = yield from self.probe(x, y)
                    if text:
                        self.cache.setdefault(text, (x, y))
                    if text.startswith(want):
                        self.cache[want] = self.last = (x, y)
                        return x, y
                    if i == 0 and not text.startswith("bpy.ops."):
                        break  # a field or label spans the row: no second button beside it
            start = (0, top)  # a scrolled page is read from its top
        raise RuntimeError(f"no sidebar button for {want!r} ({self.probes} probes)")

    def scroll(self, notches: int):
        """Scroll the sidebar (positive: down) with the wheel over its left edge, where no field is."""
        left, top, width, height = self.screen_rect()
        self.xt.move(left + 3, top + height // 2)
        yield from self.sync()
        self.xt.wheel(notches)
        self.cache.clear()
        self.last = (0, top)
        yield from self.sync()

    def home(self):
        """Scroll the sidebar back to its top."""
        yield from self.scroll(-60)

    # --- acting -----------------------------------------------------------------------------------------
    def click(self, want: str, timeout_s: float = 120.0):
        x, y = yield from self.find(want)
        xdotool("mousemove", x, y, "click", 1)
        yield from self.sync(timeout_s)
        return x, y

    def type_into(self, want: str, text: str):
        """Set a number or text field as a person pastes into it: hover it, Ctrl+V (the clipboard holds `text`).
        The field's own checks and update callbacks run as for typing; a click could land on a number field's
        step arrows, and while a field is edited Blender keeps every key, the sync key too."""
        x, y = yield from self.find(want)
        bpy.context.window_manager.clipboard = text
        xdotool("mousemove", x, y, "key", "ctrl+v")
        yield from self.sync()

    def keys(self, *keys: str, at=None):
        x, y = at or self.viewport_point()
        xdotool("mousemove", x, y, "key", "--delay", 40, *keys)
        yield from self.sync()

    def wheel(self, want: str, notches: int, ctrl: bool = True):
        """Ctrl+wheel over a field steps an enum through its items (down: next)."""
        x, y = yield from self.find(want)
        button = 5 if notches > 0 else 4
        args = ["mousemove", x, y] + (["keydown", "ctrl"] if ctrl else [])
        args += ["click", "--repeat", abs(notches), "--delay", 60, button] + (["keyup", "ctrl"] if ctrl else [])
        t = time.monotonic()
        xdotool(*args)
        t2 = time.monotonic()
        yield from self.sync()
        if os.environ.get("RB_GUI_DEBUG"):
            print("RB-GUI-WHEEL", args, t2 - t, time.monotonic() - t2, flush=True)


def install():
    bpy.utils.register_class(RBGUI_OT_sync)
    keymap = bpy.context.window_manager.keyconfigs.addon.keymaps.new("Window", space_type="EMPTY")
    keymap.keymap_items.new(RBGUI_OT_sync.bl_idname, "PAUSE", "PRESS")


def run(flow, on_error):
    """Run the generator `flow` from a timer: each yielded number is the pause before the next step."""
    def tick():
        try:
            delay = next(flow)
        except StopIteration:
            return None
        except Exception:
            on_error()
            return None
        return float(delay)

    bpy.app.timers.register(tick, first_interval=2.0)

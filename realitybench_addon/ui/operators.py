"""Operators: thin wrappers over `api` (the same functions headless scripts call)."""
from __future__ import annotations

import json
from pathlib import Path

import bpy

from .. import api
from . import capabilities, phone_link, results, tuning


def _json(data) -> str:
    return json.dumps(api.jsonable(data))


class RB_OT_measure(bpy.types.Operator):
    """Measure the target's geometric terms from the active camera"""

    bl_idname = "realitybench.measure"
    bl_label = "Measure Target"
    bl_options = {"REGISTER"}

    target: bpy.props.StringProperty(name="Target", description="Object(s) to measure, comma-separated; "
                                     "empty: the sidebar's target")
    camera: bpy.props.StringProperty(name="Camera", description="Camera object; empty: the scene camera")
    render: bpy.props.BoolProperty(name="Render", description="Also render and compute the image terms", default=False)

    def execute(self, context):
        settings = context.window_manager.realitybench
        target = self.target or settings.target
        names = [n.strip() for n in target.split(",") if n.strip()]
        if not names:
            self.report({"ERROR"}, "No target: name the object to measure")
            return {"CANCELLED"}
        try:
            result = api.measure(names, self.camera or None, unit_length_m=settings.unit_length_m, axis=settings.axis,
                                 render=self.render)
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        settings.last_result = _json(result)
        self.report({"INFO"}, f"{', '.join(names)}: in frame {result['in_frame_fraction']:.0%}, "
                              f"unoccluded {result['unoccluded_fraction']:.0%}, view angle {result['view_angle_deg']:.1f} deg")
        return {"FINISHED"}


class RB_OT_demo_scene(bpy.types.Operator):
    """Replace the current scene with the demo scene (a label on a wall, an occluder and a cable)"""

    bl_idname = "realitybench.demo_scene"
    bl_label = "Build Demo Scene"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        target = api.build_demo_scene()
        bpy.context.window_manager.realitybench.target = target
        self.report({"INFO"}, f"Demo scene built; target {target!r}")
        return {"FINISHED"}


class RB_OT_export(bpy.types.Operator):
    """Export a labeled set (the same function as `python -m realitybench_addon export`)"""

    bl_idname = "realitybench.export"
    bl_label = "Export Labeled Set"
    bl_options = {"REGISTER"}

    environments: bpy.props.StringProperty(name="Environments", default="all",
                                           description="ENV[,ENV...] or all")
    random: bpy.props.IntProperty(name="Random frames", default=100, min=0)
    positive: bpy.props.IntProperty(name="Positive frames", default=50, min=0)
    seed: bpy.props.IntProperty(name="Seed", default=0, min=0)
    out: bpy.props.StringProperty(name="Output folder", subtype="DIR_PATH")
    resolution: bpy.props.StringProperty(name="Resolution", default="1600x1200")
    samples: bpy.props.IntProperty(name="Samples", default=16, min=1)
    denoise: bpy.props.BoolProperty(name="Denoise", default=True)
    device: bpy.props.EnumProperty(name="Device", items=[("cpu", "CPU", ""), ("gpu", "GPU", ""), ("auto", "Auto", "")])
    shard: bpy.props.StringProperty(name="Shard", default="0/1", description="K/N")

    def _config(self):
        return api.export_config(self.environments, random=self.random, positive=self.positive, seed=self.seed,
                                 long_side_px=api.parse_resolution(self.resolution), samples=self.samples,
                                 denoise=self._denoise(), device=self.device, shard=self.shard)

    def _denoise(self) -> bool:
        """Denoise only where this Blender can: elsewhere the export runs undenoised and says so."""
        if self.denoise and not capabilities.has_denoiser():
            self.report({"WARNING"}, f"Not denoised: {capabilities.NO_DENOISER}")
            return False
        return self.denoise

    def execute(self, context):
        """Headless (`blender -b`): the whole export, blocking, with Blender's progress indicator."""
        if not self.out:
            self.report({"ERROR"}, "No output folder: set 'out'")
            return {"CANCELLED"}
        wm = context.window_manager
        started = [False]

        def progress(done, total, line):
            if not started[0]:
                wm.progress_begin(0, total)
                started[0] = True
            wm.progress_update(done)
            print(line)

        try:
            manifest = api.export(self.environments, out=bpy.path.abspath(self.out), random=self.random,
                                  positive=self.positive, seed=self.seed,
                                  long_side_px=api.parse_resolution(self.resolution), samples=self.samples,
                                  denoise=self._denoise(), device=self.device, shard=self.shard,
                                  command="bpy.ops.realitybench.export", progress=progress)
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        finally:
            if started[0]:
                wm.progress_end()
        frames = sum(sum(c.values()) for c in manifest["counts"].values())
        self.report({"INFO"}, f"Exported {frames} frames to {self.out}")
        return {"FINISHED"}

    def invoke(self, context, event):
        """In the UI: the export runs in a background Blender process, so this scene and the interface
        stay as they are; progress shows in the status bar; Esc stops it (rerun to resume)."""
        import subprocess

        if not self.out:
            self.report({"ERROR"}, "No output folder: set 'out'")
            return {"CANCELLED"}
        try:
            config = self._config()  # the same checks as the headless path, before anything starts
            out = api.ensure_writable_dir(bpy.path.abspath(self.out))
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        self._out = out
        self._proc = subprocess.Popen(api.background_export(config, out), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
        self._timer = context.window_manager.event_timer_add(0.5, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC":
            self._proc.kill()
            self._finish(context)
            self.report({"WARNING"}, "Export stopped; run it again to resume")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        done, total = api.set_progress(self._out)
        context.workspace.status_text_set(f"RealityBench export: {done}/{total or '?'} frames (Esc stops)")
        code = self._proc.poll()
        if code is None:
            return {"RUNNING_MODAL"}
        self._finish(context)
        if code != 0:
            last = (self._proc.stderr.read().strip().splitlines() or ["no message"])[-1]
            self.report({"ERROR"}, f"Export failed: {last}")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Exported {done} frames to {self._out}")
        return {"FINISHED"}

    def _finish(self, context):
        context.window_manager.event_timer_remove(self._timer)
        context.workspace.status_text_set(None)


class RB_OT_build_scene(bpy.types.Operator):
    """Build the chosen environment's scene for the seed and place the phone at the frame's pose"""

    bl_idname = "realitybench.build_scene"
    bl_label = "Build Scene"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        try:
            record = build_and_bind(context.window_manager.realitybench)
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        if context.window_manager.realitybench.look_through:
            look_through_phone(context)
        self.report({"INFO"}, f"{record['frame_id']}: {record['verdict']} (geometric terms)")
        return {"FINISHED"}


def look_through_phone(context) -> int:
    """Every 3D view of the window looks through the scene camera (Numpad 0); returns how many."""
    changed = 0
    screen = getattr(context, "screen", None) or getattr(getattr(context, "window", None), "screen", None)
    for area in getattr(screen, "areas", ()):
        if area.type == "VIEW_3D":
            area.spaces.active.region_3d.view_perspective = "CAMERA"
            area.tag_redraw()
            changed += 1
    return changed


def build_and_bind(s, long_side_px: int = 1600) -> dict:
    """Build the sidebar's frame, point the live readouts and the threshold editor at it."""
    from . import live

    live.unbind()  # the readouts must not follow the old scene while the new one is built
    record = api.build_frame(s.environment, s.seed, s.index, stratum=s.stratum, long_side_px=long_side_px)
    live.bind(s.environment, s.seed, s.index, s.stratum)
    tuning.fill(s, live.STATE.preset or tuning.shipped(s.environment))
    live.refresh()
    s.last_check = ""  # another frame's check: gone (its phone view too); a suggestion stays, marked stale
    phone_link.clear()
    return record


class RB_OT_randomize_scene(bpy.types.Operator):
    """Draw a new scene: the next seed"""

    bl_idname = "realitybench.randomize_scene"
    bl_label = "Randomize Scene"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        context.window_manager.realitybench.seed += 1
        return bpy.ops.realitybench.build_scene()


class RB_OT_randomize_camera(bpy.types.Operator):
    """Place the phone again: a new pose from the environment's field-pose distribution, or a new capture
    (lens, zoom, orientation, mode) with the scene's phone"""

    bl_idname = "realitybench.randomize_camera"
    bl_label = "Randomize Camera"
    bl_options = {"REGISTER", "UNDO"}

    what: bpy.props.EnumProperty(name="What", items=[("POSE", "Pose", ""), ("PHONE", "Phone", "")], default="POSE")

    def execute(self, context):
        from . import live

        s = context.window_manager.realitybench
        s.draw_count += 1
        kwargs = {"pose_draw": s.draw_count} if self.what == "POSE" else {"capture_draw": s.draw_count}
        live.unbind()
        try:
            placed = api.redraw_camera(s.environment, s.seed, s.index, stratum=s.stratum, **kwargs)
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        live.bind(s.environment, s.seed, s.index, s.stratum)
        live.refresh()
        if s.look_through:
            look_through_phone(context)
        self.report({"INFO"}, f"{self.what.lower()} redrawn: {placed['pose']['posture']}, "
                              f"{placed['capture']['lens']} lens, {placed['capture']['mode']}")
        return {"FINISHED"}


class _BackgroundJob:
    """Check and Suggest in the UI: a background Blender process (ui/jobs.py) polled from a window timer, so
    the interface stays alive; the status bar shows the stage and the seconds; Esc cancels. `execute` (a
    script, `blender -b`) runs the same work in this process, blocking."""

    kind = ""
    what = ""

    def invoke(self, context, event):
        from . import jobs

        s = context.window_manager.realitybench
        if any(job.proc.poll() is None for job in jobs.RUNNING):
            self.report({"ERROR"}, f"{s.job_status or 'A check'} is still running: wait for it or press Esc")
            return {"CANCELLED"}
        try:
            self._job = jobs.BackgroundJob(jobs.describe(s, self.kind))
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        jobs.RUNNING.add(self._job)
        s.job_status = self.what
        self._timer = context.window_manager.event_timer_add(0.25, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC":
            self._end(context)
            self.report({"WARNING"}, f"{self.what} cancelled")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        outcome = self._job.poll()
        if outcome is None:
            context.workspace.status_text_set(self._job.status(self.what))
            return {"RUNNING_MODAL"}
        try:
            return self.conclude(context, outcome)
        finally:
            self._end(context)

    def _end(self, context):
        from . import jobs

        try:
            context.window_manager.event_timer_remove(self._timer)
            context.workspace.status_text_set(None)
        finally:
            context.window_manager.realitybench.job_status = ""
            jobs.RUNNING.discard(self._job)
            self._job.close()

    def conclude(self, context, outcome: dict) -> set:
        level, message = conclude_job(self.kind, context.window_manager.realitybench, outcome, self._job)
        self.report({level}, message)
        return {"CANCELLED"} if level == "ERROR" else {"FINISHED"}

    def finish(self, context, result, key, job) -> set:
        level, message = FINISH[self.kind](context.window_manager.realitybench, result, key, job)
        self.report({level}, message)
        return {"CANCELLED"} if level == "ERROR" else {"FINISHED"}


def conclude_job(kind: str, settings, outcome: dict, job) -> tuple[str, str]:
    """Store a finished background job's result in the sidebar, as the modal operator does when the job's
    process exits (scripts and tests finish a job with `job.wait()` and this); (report level, message)."""
    if not outcome["ok"]:
        return "ERROR", outcome["error"]
    return FINISH[kind](settings, outcome["result"], job.job["key"], job)


class RB_OT_check(_BackgroundJob, bpy.types.Operator):
    """Every term for the active camera, image terms from a quick render (50% resolution, 8 samples, otherwise
    the export's settings, made and read as an exported frame's; pixel counts at the frame's size):
    the verdict, the failing terms, the ground truth and the prompt. In the UI it runs in the background
    (Esc cancels)"""

    bl_idname = "realitybench.check"
    bl_label = "Check Acceptability"
    bl_options = {"REGISTER"}
    kind, what = "check", "Check"

    render: bpy.props.BoolProperty(name="Render", default=True, description="Quick render for the image terms")

    def invoke(self, context, event):
        if not self.render:  # the geometric terms alone take milliseconds: no process to start
            return self.execute(context)
        return super().invoke(context, event)

    def execute(self, context):
        from . import live

        s = context.window_manager.realitybench
        key = results.key_now(s)
        try:
            result = api.check_active(s.environment, s.seed, s.index, stratum=s.stratum, render=self.render,
                                      preset=live.STATE.preset,
                                      settings=api.frame_settings(jobs_samples(), capabilities.denoise(s)))
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        return self.finish(context, result, key, None)


def finish_check(s, result: dict, key: dict, job) -> tuple[str, str]:
    """Keep a Check's result with its key (and show a background Check's render in the phone view)."""
    level = "INFO"
    note = ""
    if job is not None:
        try:
            phone_link.show_job_render(result, job, phone_link.failing_regions(
                result["terms"], result["failing_terms"], result.get("target_terms", ())),
                caption=f"{result['frame_id']}: {result['verdict'].upper()}")
        except api.RealityBenchError as exc:  # the check stands without its picture
            level, note = "WARNING", f" (phone view: {exc})"
    s.last_check = _json({**result, "key": key})
    failing = ", ".join(labels_of(result["terms"], result["failing_terms"])) or "none"
    return level, f"{result['verdict'].upper()}; failing: {failing}{note}"


def jobs_samples() -> int:
    from . import jobs

    return jobs.CHECK_SAMPLES


def labels_of(terms: list, names: list) -> list:
    """Term ids as the panel says them: their labels."""
    labels = {t["name"]: t.get("label") or t["name"] for t in terms}
    return [labels.get(name, name) for name in names]


class RB_OT_suggest_pose(_BackgroundJob, bpy.types.Operator):
    """Search for the nearest pose (and lens, focus) at which this frame's terms pass; show it as a second
    camera in the viewport, with what to do in words. The camera does not move until Apply. In the UI it
    runs in the background (Esc cancels)"""

    bl_idname = "realitybench.suggest_pose"
    bl_label = "Suggest a Pose"
    kind, what = "suggest", "Suggest a Pose"

    def execute(self, context):
        from . import live

        s = context.window_manager.realitybench
        key = results.key_now(s)
        live.STATE.busy = True  # the search moves the camera many times and puts it back: refresh once
        try:
            result = api.suggest_pose(s.environment, s.seed, s.index, stratum=s.stratum, preset=live.STATE.preset,
                                      render_check=s.suggest_render)
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        finally:
            live.STATE.busy = False
        return self.finish(context, result, key, None)


def finish_suggest(s, result: dict, key: dict, job) -> tuple[str, str]:
    """Keep a suggestion with its key and show its camera; refused when another frame was built meanwhile."""
    from . import live

    refused = results.other_scene(key, results.key_now(s))
    if refused:
        return "WARNING", refused
    try:
        api.preview_suggestion(result)
    except api.RealityBenchError as exc:
        return "ERROR", str(exc)
    live.refresh()
    shown = live.STATE.result["terms"] if live.STATE.result else []
    note = _show_suggested_render(result, job, shown)
    s.suggestion = _json({**result, "key": key})
    said = "; ".join(result["hints"]) or "no move needed"
    if result["fixed"]:
        return ("WARNING" if note else "INFO"), f"Passes if you {said}{note}"
    if result["unfixable"]:
        term, why = next(iter(result["unfixable"].items()))
        return "WARNING", f"No move fixes {', '.join(labels_of(shown, [term]))}: {why}{note}"
    return "WARNING", (f"Nearest pose found still fails {', '.join(labels_of(shown, result['failing_after']))}: "
                       f"{said}{note}")


def _show_suggested_render(result: dict, job, shown: list) -> str:
    """A background suggestion's confirming render at the suggested pose in the phone view, its failing terms
    drawn as a Check's; a note for the report where the picture could not be shown."""
    from . import live

    if job is None:
        return ""
    target_terms = (live.STATE.result or {}).get("target_terms", ())
    verdict = "passes" if result["fixed"] else "still fails"
    try:
        phone_link.show_job_render(result, job, phone_link.failing_regions(shown, result["failing_after"],
                                                                           target_terms),
                                   caption=f"{result['frame_id']}: suggested pose, {verdict}")
    except api.RealityBenchError as exc:  # the suggestion stands without its picture
        return f" (phone view: {exc})"
    return ""


FINISH = {"check": finish_check, "suggest": finish_suggest}


class _SuggestionMove:
    """Apply and Undo: one camera move through the API, the readouts refreshed after it."""

    bl_options = {"REGISTER", "UNDO"}
    stored = ""  # the window manager property the move reads

    @classmethod
    def poll(cls, context):
        return bool(getattr(context.window_manager.realitybench, cls.stored))

    def move(self, settings, data):
        raise NotImplementedError

    def execute(self, context):
        from . import live

        s = context.window_manager.realitybench
        try:
            said = self.move(s, json.loads(getattr(s, self.stored)))
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        live.refresh()
        verdict = live.STATE.result["verdict"] if live.STATE.result else "?"
        self.report({"INFO"}, f"{said}; verdict {verdict}")
        return {"FINISHED"}


class RB_OT_apply_suggestion(_SuggestionMove, bpy.types.Operator):
    """Move the camera to the suggested pose (Undo, or Ctrl+Z, puts it back); refused for a suggestion made
    for another frame"""

    bl_idname = "realitybench.apply_suggestion"
    bl_label = "Apply"
    stored = "suggestion"

    def move(self, settings, suggestion):
        refused = results.other_scene(suggestion.get("key"), results.key_now(settings))
        if refused:
            raise api.RealityBenchError(refused)
        before = api.apply_suggestion(suggestion)
        applied = results.camera_state(bpy.context.scene.camera)
        settings.suggestion_undo = _json({"restore": before, "applied": applied, "key": suggestion.get("key")})
        settings.suggestion = ""
        return "Camera moved to the suggestion"


def undo_offered(context) -> bool:
    """The sidebar's Undo only while the camera is still where Apply put it (Edit > Undo moves it back)."""
    s = context.window_manager.realitybench
    if not s.suggestion_undo:
        return False
    stored = json.loads(s.suggestion_undo)
    return results.at_state(context.scene.camera, stored.get("applied"))


class RB_OT_undo_suggestion(_SuggestionMove, bpy.types.Operator):
    """Put the camera back where it was before Apply"""

    bl_idname = "realitybench.undo_suggestion"
    bl_label = "Undo"
    stored = "suggestion_undo"

    @classmethod
    def poll(cls, context):
        return undo_offered(context)

    def move(self, settings, stored):
        api.restore_camera(stored["restore"])
        settings.suggestion_undo = ""
        return "Camera put back"


class RB_OT_dismiss_suggestion(bpy.types.Operator):
    """Forget the suggestion and remove its camera from the viewport"""

    bl_idname = "realitybench.dismiss_suggestion"
    bl_label = "Dismiss"

    def execute(self, context):
        context.window_manager.realitybench.suggestion = ""
        api.clear_suggestion_preview()
        return {"FINISHED"}


class RB_OT_browse(bpy.types.Operator):
    """Step through an exported set; Rebuild puts the frame's scene and phone camera in this file, so its
    stored terms can be compared with the live ones"""

    bl_idname = "realitybench.browse"
    bl_label = "Browse Set"
    bl_options = {"REGISTER", "UNDO"}

    step: bpy.props.IntProperty(name="Step", default=0)
    rebuild: bpy.props.BoolProperty(name="Rebuild", default=False)

    def execute(self, context):
        s = context.window_manager.realitybench
        try:
            rows = api.set_rows(bpy.path.abspath(s.browse_dir)) if s.browse_dir else []
        except api.RealityBenchError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        if not rows:
            self.report({"ERROR"}, f"no exported frames in {s.browse_dir or '(no folder chosen)'}")
            return {"CANCELLED"}
        s.browse_position = max(0, min(len(rows) - 1, s.browse_position + self.step))
        row = rows[s.browse_position]
        keep = ("frame_id", "environment", "stratum", "verdict", "failing_terms", "ground_truth", "terms", "render",
                "file_name")
        s.browse_row = _json({k: row[k] for k in keep} | {"position": s.browse_position, "count": len(rows)})
        if self.rebuild:
            seed, environment, stratum, index = api.parse_frame_id(row["frame_id"])
            s.environment, s.seed, s.index, s.stratum = environment, seed, index, stratum
            try:  # at the set's own resolution: px terms must compare
                build_and_bind(s, long_side_px=max(row["render"]["resolution"]))
            except api.RealityBenchError as exc:
                self.report({"ERROR"}, str(exc))
                return {"CANCELLED"}
        return {"FINISHED"}


class RB_OT_preset(bpy.types.Operator):
    """Thresholds and gray ranges: apply the sidebar's edits, save them as your preset, load it, or revert to
    the shipped preset"""

    bl_idname = "realitybench.preset"
    bl_label = "Preset"
    bl_options = {"REGISTER"}

    action: bpy.props.EnumProperty(items=[("APPLY", "Apply", ""), ("SAVE", "Save", ""), ("LOAD", "Load", ""),
                                          ("REVERT", "Revert", "")], default="APPLY")

    def execute(self, context):
        from . import live

        s = context.window_manager.realitybench
        try:
            if self.action in ("APPLY", "SAVE"):
                live.STATE.preset = tuning.edited(s, tuning.shipped(s.environment))
                message = "thresholds applied"
                if self.action == "SAVE":
                    path = api.save_preset(live.STATE.preset, tuning.user_presets_dir() / f"{s.environment}.toml")
                    message = f"saved {path}"
            elif self.action == "LOAD":
                loaded = tuning.saved(s.environment)
                if loaded is None:
                    self.report({"ERROR"}, f"no saved preset for {s.environment} in {tuning.user_presets_dir()}")
                    return {"CANCELLED"}
                live.STATE.preset = loaded
                tuning.fill(s, loaded)
                message = f"loaded {loaded.source}"
            else:
                live.STATE.preset = None
                tuning.fill(s, tuning.shipped(s.environment))
                message = "shipped preset restored"
        except api.RealityBenchError as exc:  # a PresetError: the edit or the file names what is wrong
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        if live.STATE.key is not None:
            live.refresh()
        self.report({"INFO"}, message)
        return {"FINISHED"}


class _EditedPresets:
    """A temporary presets folder holding the sidebar's edited preset (if any), for set-level tools."""

    def __enter__(self):
        import tempfile

        from . import live

        self._tmp = tempfile.TemporaryDirectory()
        if live.STATE.preset is not None:
            api.save_preset(live.STATE.preset, Path(self._tmp.name) / f"{live.STATE.preset.environment}.toml")
        return [self._tmp.name]

    def __exit__(self, *exc):
        self._tmp.cleanup()


class RB_OT_show_text(bpy.types.Operator):
    """Show a whole text (the prompt, a hint, a reason) in a popup, wrapped to its width"""

    bl_idname = "realitybench.show_text"
    bl_label = "Show Text"
    bl_options = {"INTERNAL"}

    title: bpy.props.StringProperty(name="Title")
    text: bpy.props.StringProperty(name="Text")

    def invoke(self, context, event):
        return context.window_manager.invoke_popup(self, width=560)

    def draw(self, context):
        import textwrap

        col = self.layout.column(align=True)
        col.label(text=self.title, icon="TEXT")
        for para in self.text.splitlines():
            for line in textwrap.wrap(para, 88) or [""]:
                col.label(text=line)

    def execute(self, context):
        print(self.text)
        return {"FINISHED"}


MAX_FLIPS_SHOWN = 200  # the panel lists this many flipped frames (the count says how many flipped)


class RB_OT_rescore_set(bpy.types.Operator):
    """How many frames of an exported set flip verdict under the edited thresholds (no rendering)"""

    bl_idname = "realitybench.rescore_set"
    bl_label = "Rescore Set"
    bl_options = {"REGISTER"}

    def execute(self, context):
        s = context.window_manager.realitybench
        if not s.rescore_dir:
            self.report({"ERROR"}, "choose an exported set first")
            return {"CANCELLED"}
        with _EditedPresets() as presets:
            try:
                report = api.rescore(bpy.path.abspath(s.rescore_dir), presets)
            except api.RealityBenchError as exc:
                self.report({"ERROR"}, str(exc))
                return {"CANCELLED"}
        s.last_rescore = _json({**{k: report[k] for k in ("frames", "flipped", "flipped_by_environment")},
                                "flips": report["flips"][:MAX_FLIPS_SHOWN]})
        self.report({"INFO"}, f"{report['flipped']} of {report['frames']} frames flip verdict")
        return {"FINISHED"}


class RB_OT_rater_gray(bpy.types.Operator):
    """Rater agreement on the set's ratings (from its rating page) and, for this environment, the gray
    ranges suggested where raters split, under the edited thresholds; tuning frames only"""

    bl_idname = "realitybench.rater_gray"
    bl_label = "Gray Ranges from Ratings"
    bl_options = {"REGISTER"}

    def execute(self, context):
        s = context.window_manager.realitybench
        if not s.rescore_dir:
            self.report({"ERROR"}, "no ratings in the chosen set yet: rate it first with "
                                   "python -m realitybench_addon rate DIR")
            return {"CANCELLED"}
        directory = Path(bpy.path.abspath(s.rescore_dir))
        with _EditedPresets() as presets:
            try:
                rated = api.rated_set(directory, presets)
            except api.RealityBenchError as exc:
                self.report({"ERROR"}, str(exc))
                return {"CANCELLED"}
        report = rated["summary"]
        figures = report["environments"].get(s.environment)
        if figures is None:
            self.report({"ERROR"}, f"no {s.environment} frames of {directory} are rated")
            return {"CANCELLED"}
        tuning_part = figures["scorer_vs_majority"]["tuning"]
        suggestions = {g["term"]: g for g in report["gray_suggestions"] if g["environment"] == s.environment}
        s.last_ratings = _json({"environment": s.environment, "frames": figures["frames"],
                                "raters": figures["raters"], "alpha": figures["alpha"],
                                "scorer_agreement": tuning_part["agreement"], "scorer_frames": tuning_part["frames"],
                                "frozen": s.environment in rated["frozen"],
                                "suggestions": {t: g["suggested"] for t, g in suggestions.items()},
                                "reasons": {t: g["reason"] for t, g in suggestions.items()}})
        n = sum(1 for g in suggestions.values() if g["suggested"])
        self.report({"INFO"}, f"{figures['frames']} rated frames; {n} gray range(s) suggested")
        return {"FINISHED"}


class RB_OT_use_gray(bpy.types.Operator):
    """Put the raters' suggested threshold and gray range of this term into the sidebar's edits
    (Apply or Save to keep them)"""

    bl_idname = "realitybench.use_gray"
    bl_label = "Use Suggestion"
    bl_options = {"REGISTER", "UNDO"}

    term: bpy.props.StringProperty(name="Term")

    def execute(self, context):
        s = context.window_manager.realitybench
        ratings = json.loads(s.last_ratings) if s.last_ratings else {}
        if ratings.get("environment") != s.environment:
            self.report({"ERROR"}, "run Gray Ranges from Ratings for this environment first")
            return {"CANCELLED"}
        if ratings["frozen"]:
            self.report({"ERROR"}, f"{s.environment} is frozen: its held-out frames were already reported, so "
                                   f"tuning it now would use them")
            return {"CANCELLED"}
        suggested = ratings["suggestions"].get(self.term)
        item = next((i for i in s.terms if i.name == self.term), None)
        if suggested is None or item is None:
            self.report({"ERROR"}, f"no suggestion for {self.term}")
            return {"CANCELLED"}
        item.has_gray = False  # each edit re-validates the preset: widen the threshold before the range
        item.threshold = suggested["threshold"]
        item.gray_lo, item.gray_hi = suggested["gray"]
        item.has_gray = True
        self.report({"INFO"}, f"{self.term}: {item.comparator} {item.threshold:g}, gray {item.gray_lo:g}-"
                              f"{item.gray_hi:g}")
        return {"FINISHED"}


CLASSES = (RB_OT_measure, RB_OT_demo_scene, RB_OT_export, RB_OT_build_scene, RB_OT_randomize_scene,
           RB_OT_randomize_camera, RB_OT_check, RB_OT_suggest_pose, RB_OT_apply_suggestion,
           RB_OT_undo_suggestion, RB_OT_dismiss_suggestion, RB_OT_browse, RB_OT_preset, RB_OT_rescore_set,
           RB_OT_rater_gray, RB_OT_use_gray, RB_OT_show_text)

"""The `demo` command: every stage of a frame (phone model, camera placement, render, object mask,
post-processing, measurement, the record) on the small scene with known answers that `bl/analytic.py` builds
(a label on a wall, a box partly in front of it and a cable). Also the sidebar's demo scene."""
from __future__ import annotations

import os

import numpy as np

from .core import postprocess
from .core.errors import RealityBenchError
from .core.phone import camera_settings, draw_capture, draw_phone
from .core.rng import frame_id, frame_rng, stage_rng

TARGET = "Label"  # the demo scene's label card, the photo's subject
TARGET_POINT = np.array([0.0, 0.0, 1.5])


def draw_demo_pose(pose_rng: np.random.Generator) -> tuple[float, np.ndarray, np.ndarray, float]:
    """(distance, position, aim, roll) of a phone held in front of the label: 0.35-1.2 m away, a few tens of
    degrees off its normal."""
    distance = float(pose_rng.uniform(0.35, 1.2))
    azimuth = np.radians(pose_rng.normal(0.0, 20.0))
    elevation = np.radians(pose_rng.normal(0.0, 10.0))
    position = TARGET_POINT + distance * np.array([np.sin(azimuth) * np.cos(elevation),
                                                   -np.cos(azimuth) * np.cos(elevation), np.sin(elevation)])
    aim = TARGET_POINT + pose_rng.normal(0.0, 0.02, 3)
    return distance, position, aim, float(pose_rng.normal(0, 3))


def demo(out: str | os.PathLike, *, seed: int = 0, long_side_px: int = 400, samples: int = 8) -> dict:
    """Build the demo scene, draw a phone, a capture and a pose, photograph the label, measure it and write
    `<frame id>.jpg` and `<frame id>.json` into `out`. A smoke run of every stage of a frame in seconds; the
    environments' frames are `frame`'s."""
    from .bl.analytic import demo_scene
    from .bl.camera import apply_capture, ensure_camera, look_at
    from .bl.measure import measure_target
    from .bl.render import render_frame
    from .measuring import image_terms
    from .outputs import ensure_writable_dir, write_record
    from .version import version_info

    out = ensure_writable_dir(out)
    if seed < 0:
        raise RealityBenchError(f"seed must be non-negative, got {seed}")
    rng = frame_rng(seed, "demo", "demo", 0)
    phone = draw_phone(stage_rng(rng, "phone"))
    capture = draw_capture(stage_rng(rng, "capture"), phone)
    distance, position, aim, roll = draw_demo_pose(stage_rng(rng, "pose"))
    scene = demo_scene()
    cam = ensure_camera(scene)
    settings = camera_settings(phone, capture, distance, long_side_px)
    apply_capture(scene, cam, settings, capture, phone, look_at(position, aim, roll_deg=roll))
    terms = measure_target(scene, cam, [TARGET], unit_length_m=0.01, axis="y")
    frame = render_frame(scene, cam, samples=samples)
    post = postprocess.draw_post_params(stage_rng(rng, "post"))
    jpeg, display = postprocess.process(frame.linear_rgb, post)
    terms.update(image_terms(frame, [TARGET], display))
    fid = frame_id(seed, "demo", "demo", 0)
    record = {"frame_id": fid, "file_name": f"{fid}.jpg", "phone": phone.to_dict(), "capture": capture.to_dict(),
              "camera": settings.to_dict(), "postprocess": post.to_dict(), "terms": terms,
              "versions": version_info()}
    write_record(out, record, jpeg)
    return record


def build_demo_scene() -> str:
    """Replace the current scene with the demo scene seen by a 26 mm camera; returns the target's name."""
    from mathutils import Matrix

    from .bl.analytic import demo_scene
    from .bl.camera import ensure_camera, look_at

    scene = demo_scene()
    cam = ensure_camera(scene)
    cam.matrix_world = Matrix(look_at((0.2, -0.8, 1.6), tuple(TARGET_POINT)).tolist())
    cam.data.lens = 26.0
    return TARGET

"""Can the documented writing of accepted frames be read? An OCR audit, independent of the scorer.

Run:  .venv/bin/python benchmarks/audit_legibility.py [--frames 3] [--seed 0] [--samples 8]
          [--resolution 1600x1200] [--env ro_board,car_plate,equipment_label,breaker_label] [--out out/audit]

For each text environment, the first N positive-stratum frames whose every term passes (the scorer
accepts them; for car_plate, whose acceptability is not scored, their documentation counts) are
rendered at the reference size. Each documented field's region is taken from the known geometry: the union of its
characters' ink boxes (`Environment.written_surface`), padded by a little of a character's height. That quad's
projection is warped onto a flat strip (a perspective rectification) and read by tesseract as a single
line, allowed the field's kind of characters (capitals, digits, its own punctuation). The script prints, per environment and field, the share that OCR reads exactly (spaces and case
aside), then every miss with its frame id, the text as drawn and what OCR read. The crops are saved under
--out so that each miss can be looked at.

OCR is a lower bound, not the truth: tesseract misreads hand lettering and small text that a person (or
a vision-language model) reads. A miss is a lead to look at, not a verdict.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TEXT_ENVIRONMENTS = ("ro_board", "car_plate", "equipment_label", "breaker_label")
STRIP_HEIGHT_PX = 96  # the rectified strip's height: tesseract reads best at 30-60 px capitals
CANDIDATES = 400  # positive-stratum draws tried per environment before giving up on N accepted frames


def field_group(name: str) -> str:
    """Fields reported together: every entry's name of a directory card is one line of the table."""
    return re.sub(r"\[\d+\]", "[k]", name)


def rectified(image, corners_px: np.ndarray, aspect: float):
    """The quad `corners_px` (top-left, top-right, bottom-right, bottom-left, image px) warped to a flat strip."""
    from PIL import Image

    height = STRIP_HEIGHT_PX
    width = max(8, int(round(height * aspect)))
    tl, tr, br, bl = corners_px
    quad = (*tl, *bl, *br, *tr)  # PIL's order: upper-left, lower-left, lower-right, upper-right
    return image.transform((width, height), Image.QUAD, tuple(float(v) for v in quad), Image.BICUBIC)


def ocr(strip, tesseract: str, whitelist: str) -> str:
    from PIL import Image

    gray = strip.convert("L")
    paper = int(np.percentile(np.asarray(gray), 90))  # a quiet border of the surface's own tone: OCR needs one
    framed = Image.new("L", (gray.width + 48, gray.height + 48), paper)
    framed.paste(gray, (24, 24))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "strip.png"
        framed.save(path)
        done = subprocess.run([tesseract, str(path), "stdout", "--psm", "7", "-c",
                               f"tessedit_char_whitelist={whitelist}"], capture_output=True, text=True)
    return done.stdout.strip()


def character_class(text: str) -> str:
    """What OCR may read for a field: every capital if it has one, every digit if it has one, and its own
    punctuation (a plate's dash, a date's slashes): the field's kind of writing, not its answer."""
    allowed = set(c for c in text if not c.isalnum() and not c.isspace())
    if any(c.isalpha() for c in text):
        allowed |= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if any(c.isdigit() for c in text):
        allowed |= set("0123456789")
    return "".join(sorted(allowed))


def normal_text(text: str) -> str:
    return re.sub(r"\s+", "", text).upper()


def documentation_counts(frame) -> bool:
    """Every term passes: the scorer accepts it, or (car_plate) acceptability is not scored by rule and
    nothing fails, so its documentation is scored."""
    return frame.verdict.value in ("accept", "unscored") and not frame.failing_terms and not frame.gray_terms


@contextlib.contextmanager
def quiet_stdout():
    """Blender logs each render on stdout; the report alone goes there."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def accepted_frames(pipeline, env: str, seed: int, count: int, long_side: int, samples: int):
    """Yield (result, ctx) for the first `count` positive-stratum frames whose every term passes, rendered."""
    import bpy

    from realitybench_addon.core.presets import load_environment_preset
    from realitybench_addon.envs.base import FrameContext

    preset = load_environment_preset(env)
    cache = pipeline.SceneCache()
    found = 0
    for index in range(CANDIDATES):
        spec = pipeline.plan_frame(env, seed, "positive", index)
        geometric = pipeline.run_frame(spec, long_side_px=long_side, render=False, preset=preset, cache=cache)
        if geometric.frame.failing_terms or geometric.frame.gray_terms or geometric.discard_reason:
            continue
        result = pipeline.run_frame(spec, long_side_px=long_side, samples=samples, denoise=True, preset=preset,
                                    cache=cache)
        if not documentation_counts(result.frame) or result.discard_reason:
            continue
        scene = bpy.context.scene
        yield result, FrameContext(scene, scene.camera, cache.built, spec.plan, spec.target, spec.pose)
        found += 1
        if found == count:
            return


def audit(env_names, frames: int, seed: int, long_side: int, samples: int, out: Path, tesseract: str) -> dict:
    from PIL import Image

    from realitybench_addon import pipeline
    from realitybench_addon.envs import registry

    table: dict = defaultdict(lambda: [0, 0])
    misses = []
    for env_name in env_names:
        env = registry.get(env_name)
        for result, ctx in accepted_frames(pipeline, env_name, seed, frames, long_side, samples):
            image = Image.open(io.BytesIO(result.jpeg)).convert("RGB")
            surface = env.written_surface(ctx)
            center, right, up = (np.asarray(v, float) for v in surface.frame[:3])
            camera = ctx.pinhole()
            for field in surface.fields:
                boxes = np.asarray(field.boxes_m)
                # a margin inside the gap to the neighbouring marks (a plate's border, a ruled line)
                pad_x, pad_y = 0.15 * field.height_m, 0.25 * field.height_m
                x0, y0 = boxes[:, 0].min() - pad_x, boxes[:, 1].min() - pad_y
                x1, y1 = boxes[:, 2].max() + pad_x, boxes[:, 3].max() + pad_y
                corners = np.array([center + x * right + y * up for x, y in ((x0, y1), (x1, y1), (x1, y0), (x0, y0))])
                uv, _ = camera.project(corners)
                strip = rectified(image, uv, (x1 - x0) / (y1 - y0))
                read = ocr(strip, tesseract, character_class(field.text.upper()))
                group = field_group(field.name)
                table[(env_name, group)][1] += 1
                if normal_text(read) == normal_text(field.text):
                    table[(env_name, group)][0] += 1
                else:
                    name = f"{result.frame.frame_id}.{field.name}.png"
                    strip.save(out / name)
                    misses.append((env_name, result.frame.frame_id, field.name, field.text, read, name))
    return {"table": dict(table), "misses": misses}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default=",".join(TEXT_ENVIRONMENTS))
    parser.add_argument("--frames", type=int, default=3, help="accepted frames per environment")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--resolution", default="1600x1200")
    parser.add_argument("--out", type=Path, default=Path("out/audit"), help="where the crops of misses go")
    args = parser.parse_args()
    tesseract = shutil.which("tesseract")
    if tesseract is None:
        print("error: the tesseract binary is not installed (Debian: apt-get install tesseract-ocr)", file=sys.stderr)
        return 2
    from realitybench_addon.api import parse_resolution

    args.out.mkdir(parents=True, exist_ok=True)
    with quiet_stdout():
        found = audit([e.strip() for e in args.env.split(",") if e.strip()], args.frames, args.seed,
                      parse_resolution(args.resolution), args.samples, args.out, tesseract)
    print(f"accepted frames rendered at {args.resolution}, {args.samples} samples, seed {args.seed}; "
          "OCR (tesseract, one line, rectified from the known geometry) reads exactly:")
    for (env, group), (exact, total) in sorted(found["table"].items()):
        print(f"  {env:16s} {group:20s} {exact:3d}/{total:<3d} {exact / total:5.0%}")
    print(f"{len(found['misses'])} misses (crops in {args.out}):")
    for env, frame_id, field, text, read, name in found["misses"]:
        print(f"  {frame_id} {field}: drawn {text!r}, OCR {read!r}  [{name}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

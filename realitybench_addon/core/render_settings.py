"""How Cycles renders a frame: samples, adaptive sampling, denoising, light-path bounces and clamping. Pure
data: `bl.render.configure_cycles` applies it, every frame's record and the export's manifest store it, and
`benchmarks/bench_render.py` compares settings by seconds and by distance from a converged reference.

`RenderSettings()` is the export's default, chosen from that benchmark (docs/export.md, "Render speed");
`RenderSettings.before_issue_21(samples)` is what every render used before it, kept as the baseline.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

from .errors import RealityBenchError

DENOISE_PASSES = ("RGB", "RGB_ALBEDO", "RGB_ALBEDO_NORMAL")
DENOISE_PREFILTERS = ("NONE", "FAST", "ACCURATE")
DENOISE_QUALITIES = ("HIGH", "BALANCED", "FAST")  # OpenImageDenoise 2's modes (Blender 4.1+; older: HIGH)


# Settings added after sets began recording theirs (5a41c7d), with what every render did before each existed:
# a stored mapping without one was rendered that way.
ADDED_LATER = {"light_tree": True, "sky_as_light": True, "fast_gi_bounces": 0}


class RenderSettingsError(RealityBenchError, ValueError):
    """A render setting out of its range; the message names it."""


@dataclass(frozen=True)
class RenderSettings:
    samples: int = 16  # the most samples per pixel
    denoise: bool = True  # OpenImageDenoise
    denoise_passes: str = "RGB_ALBEDO_NORMAL"  # what the denoiser sees besides the noisy colour
    denoise_prefilter: str = "ACCURATE"  # how the albedo and normal passes are cleaned first
    denoise_quality: str = "HIGH"
    # Stop sampling a pixel below this noise level; 0 = off. Cycles first checks a pixel after 16 samples (its
    # adaptive step), so at 16 samples or fewer this changes nothing (docs/export.md, round 7).
    adaptive_threshold: float = 0.0
    adaptive_min_samples: int = 0  # samples before adaptive sampling may stop a pixel; 0 = Cycles' choice
    max_bounces: int = 12
    diffuse_bounces: int = 4
    glossy_bounces: int = 4
    transmission_bounces: int = 12
    transparent_bounces: int = 8
    caustics: bool = True  # reflective and refractive caustics
    blur_glossy: float = 1.0  # Cycles' filter_glossy: blurs glossy paths after a diffuse bounce
    clamp_indirect: float = 3.0  # firefly clamp on indirect light (0 = off)
    persistent_data: bool = False  # keep the scene's render data between the frames of one scene
    # One sun lamp and a smooth sky (bench_render round 3): the light tree has little to choose between, and a
    # sky sampled as a light spends light samples that cosine-weighted bounces find as well. Off, both are
    # faster and no less faithful to the reference.
    light_tree: bool = False  # Cycles' light tree (4.0+): picks among many lights
    sky_as_light: bool = False  # the world sampled as a light too; off, only paths that bounce into it see it
    # Cycles' fast GI: after this many bounces, indirect light is replaced by ambient occlusion lit by the
    # world; 0 = off (every bounce path-traced). Faster indoors, less faithful outdoors (round 7).
    fast_gi_bounces: int = 0

    def __post_init__(self):
        problems = []
        for name in ("samples", "adaptive_min_samples", "max_bounces", "diffuse_bounces", "glossy_bounces",
                     "transmission_bounces", "transparent_bounces", "fast_gi_bounces"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 100_000:
                problems.append(f"{name} must be a whole number from 0 to 100000, not {value!r}")
        if isinstance(self.samples, int) and not isinstance(self.samples, bool) and self.samples < 1:
            problems.append(f"samples must be at least 1, not {self.samples}")
        for name in ("adaptive_threshold", "blur_glossy", "clamp_indirect"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0 or value > 1000:
                problems.append(f"{name} must be a number from 0 to 1000, not {value!r}")
        if self.denoise_passes not in DENOISE_PASSES:
            problems.append(f"denoise_passes must be one of {', '.join(DENOISE_PASSES)}, not {self.denoise_passes!r}")
        if self.denoise_prefilter not in DENOISE_PREFILTERS:
            problems.append(f"denoise_prefilter must be one of {', '.join(DENOISE_PREFILTERS)}, "
                            f"not {self.denoise_prefilter!r}")
        if self.denoise_quality not in DENOISE_QUALITIES:
            problems.append(f"denoise_quality must be one of {', '.join(DENOISE_QUALITIES)}, "
                            f"not {self.denoise_quality!r}")
        for name in ("denoise", "caustics", "persistent_data", "light_tree", "sky_as_light"):
            if not isinstance(getattr(self, name), bool):
                problems.append(f"{name} must be true or false, not {getattr(self, name)!r}")
        if problems:
            raise RenderSettingsError("render settings: " + "; ".join(problems))

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "RenderSettings":
        """Settings from a mapping (a manifest, a benchmark's table); unknown keys are an error. A key in
        `ADDED_LATER` that the mapping lacks takes its value from before it existed, not today's default: the
        mapping was written then."""
        if not isinstance(data, dict):
            raise RenderSettingsError(f"render settings must be a mapping, not {type(data).__name__}")
        known = {f.name for f in fields(RenderSettings)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RenderSettingsError(f"render settings: unknown key(s) {', '.join(map(repr, unknown))}; "
                                      f"known: {', '.join(sorted(known))}")
        return RenderSettings(**{**ADDED_LATER, **data})

    def with_(self, **changes) -> "RenderSettings":
        return replace(self, **changes)

    @staticmethod
    def before_issue_21(samples: int = 16, denoise: bool = True) -> "RenderSettings":
        """Every render's settings before issue 21: fixed samples, Cycles' default bounces and light sampling,
        denoised with albedo and normal, indirect light clamped at 3."""
        return RenderSettings(samples=samples, denoise=denoise, **ADDED_LATER)

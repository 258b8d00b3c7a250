"""RealityBench: procedural field-work scenes, a phone camera model and programmatic
acceptability scoring for benchmarking vision-language models on proof-of-work photos.

This file only registers the add-on. The pure core (`core/`) imports without Blender;
the Blender layer (`bl/`, `ui/`) is imported when Blender registers the add-on.
"""

from .version import __version__  # noqa: F401  (the one place it is written: version.py)

# Read by Blender < 4.2, which loads RealityBench as a legacy add-on; 4.2+ reads
# blender_manifest.toml instead.
bl_info = {
    "name": "RealityBench",
    "author": "RealityBench developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "3D Viewport > Sidebar > RealityBench",
    "description": "Procedural field-work scenes, a phone camera model and acceptability scoring",
    "category": "3D View",
}


# The Blender lines the add-on is tested on (docs/building.md): 3.4 (legacy add-on) up to 5.x; 6.0 drops
# APIs that 5.x only deprecates (the compositor's node group, use_nodes). Keep blender_manifest.toml in step.
SUPPORTED_BLENDER = ((3, 4, 0), (6, 0, 0))  # from, up to (not including)


def unsupported_blender(version) -> str | None:
    """None, or one line saying why this Blender cannot run RealityBench."""
    low, high = SUPPORTED_BLENDER
    if low <= tuple(version[:3]) < high:
        return None
    shown = ".".join(map(str, version[:3]))
    return (f"RealityBench {__version__} supports Blender {low[0]}.{low[1]} up to {high[0] - 1}.x, "
            f"not Blender {shown}; use Blender 4.5 LTS or 5.2 LTS")


def register():
    import bpy

    problem = unsupported_blender(bpy.app.version)
    if problem:
        raise RuntimeError(problem)  # said once, when enabling, not as a traceback on first use
    from . import ui

    ui.register()


def unregister():
    from . import ui

    ui.unregister()

"""RealityBench: procedural field-work scenes, a phone camera model and programmatic
acceptability scoring for benchmarking vision-language models on proof-of-work photos.

This file only registers the add-on. The pure core (`core/`) imports without Blender;
the Blender layer (`bl/`, `ui/`) is imported when Blender registers the add-on.
"""

__version__ = "0.1.0"

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


def register():
    from . import ui

    ui.register()


def unregister():
    from . import ui

    ui.unregister()

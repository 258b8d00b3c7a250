"""RealityBench's version: a module of its own, so that any layer can import it without importing the package's
registration (`__init__`) back up the layers. blender_manifest.toml and pyproject.toml carry the same number
(tests/test_extension.py)."""

__version__ = "0.1.0"


def version_info() -> dict:
    """RealityBench's, Blender's and Python's versions (what a frame's record and `version` print)."""
    import platform

    import bpy

    return {"realitybench": __version__, "blender": bpy.app.version_string, "python": platform.python_version()}

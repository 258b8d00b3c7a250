"""RealityBench's version: a module of its own, so that any layer can import it without importing the package's
registration (`__init__`) back up the layers. blender_manifest.toml and pyproject.toml carry the same number
(tests/test_extension.py)."""

__version__ = "0.1.0"

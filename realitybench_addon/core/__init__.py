"""The pure core of RealityBench: no bpy anywhere below this package.

Everything here is plain Python + numpy so it is unit-tested without Blender:
random streams (`rng`), the phone camera (`phone`), optics formulas (`optics`),
surface sampling and projection (`geometry`), image terms (`image_terms`),
terms and verdicts (`terms`), presets (`presets`) and the phone's
post-processing (`postprocess`).
"""

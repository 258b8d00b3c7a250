"""The pure core of RealityBench: no bpy anywhere below this package.

Everything here is plain Python + numpy so it is unit-tested without Blender:
random streams (`rng`), the phone camera (`phone`), optics formulas (`optics`),
surface sampling and projection (`geometry`), image terms (`image_terms`),
terms and verdicts (`terms`), presets (`presets`), the phone's post-processing
(`postprocess`), blur at the target (`blur`), the roof scene's plan (`roof`) and the tape
measure (`tape`), the model's prompt (`prompt`), render sanity (`sanity`) and the debug
pictures of an exported set (`debug_images`).
"""

"""The thin Blender layer: bpy adapters that hand scene data to `core` and apply its results.

Modules: compat (Blender 3.4 vs 4.x differences), scene_data (mesh and camera data as
numpy), raycast (the cached scene BVH), measure (geometric primitives for a target),
camera (apply a phone capture to a Blender camera), render (Cycles frame + object-index
mask), analytic (small known scenes for tests, demos and benchmarks).
"""

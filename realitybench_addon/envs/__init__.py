"""Environments: one module each (scene recipe, targets, field-pose distribution, measurements,
ground truth, prompt parts), found through `registry`."""

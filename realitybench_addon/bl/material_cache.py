"""Materials built once per session and copied after: `@reused` on a material builder.

Building a node material costs 40-120 µs per node, link and value, because Blender updates the node tree after
every change; a roof scene's 25 materials took some 35 ms to build, and most are built with the same arguments
in every scene. Copying a finished material takes about 0.1 ms. So a builder decorated with `@reused` keeps a
copy (a *template*) of what it built for a set of arguments it has seen twice, and answers the same arguments
after that with a copy of the template, renamed to the name asked for. The copy is a new material: a caller may
change it in place (`facade.weather` does) without touching the template or other scenes.

What makes a builder reusable: its first argument is the material's name and the rest are plain values (numbers,
strings, tuples, small arrays) that fix the result; it draws no numbers from a shared generator. A call with any
other argument (a generator, a plan object, an image) is built every time, and so is a material that uses an
image or a node group, since `analytic.reset_scene` removes those between scenes.

Templates are hidden data (their names start with a dot), have no users and so are never saved into a .blend
file (Blender 3.4's autosave keeps them; their names carry a token of the session that made them, so a recovered
file's templates are never taken for ours), and survive `reset_scene`. A template that went missing (a file
load, a purge of orphan data) is simply built again.
"""
from __future__ import annotations

import functools
import inspect
import secrets
from collections import OrderedDict

import bpy
import numpy as np

TEMPLATE_PREFIX = ".rb_material_template."
MAX_TEMPLATES = 256  # least recently used first out: one export keeps at most a few dozen alive
MAX_SEEN_ONCE = 4096  # argument sets seen once; a set that varies every scene never earns a template

enabled = True  # off: every call builds (benchmarks compare both ways)
_templates: OrderedDict = OrderedDict()  # key -> template material's name
_seen_once: set = set()
_serial = [0]
# In every template's name: a template of another session (in a recovered autosave, which on Blender 3.4 keeps
# data without users) never answers for one of ours.
_SESSION = secrets.token_hex(4)
stats = {"built": 0, "copied": 0}  # for tests and benchmarks


class _NotPlain(Exception):
    pass


def _plain(value):
    """`value` as a hashable key part, or _NotPlain when it is not a plain value that fixes a material."""
    if isinstance(value, np.generic):  # before float: np.float64 is one
        return _plain(value.item())
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value).__name__, value)
    if isinstance(value, (tuple, list)):
        return ("seq",) + tuple(_plain(v) for v in value)
    if callable(value) and getattr(value, "reused_builder", False):
        return ("builder", value.__module__, value.__qualname__)
    if isinstance(value, np.ndarray) and value.size <= 64 and value.dtype.kind in "biuf":
        return ("array", value.shape) + tuple(_plain(v) for v in value.ravel().tolist())
    raise _NotPlain


def _uses_removable_data(mat) -> bool:
    """Whether the material points at an image or node group (which `reset_scene` removes between scenes)."""
    return mat.node_tree is not None and any(getattr(node, "image", None) is not None
                                             or getattr(node, "node_tree", None) is not None
                                             for node in mat.node_tree.nodes)


def template_names() -> set[str]:
    return {name for name in _templates.values() if name}


def clear() -> None:
    """Forget and remove every template (tests; a changed builder during development)."""
    # a builder whose material uses an image keeps no template: its key maps to None
    doomed = [m for m in (bpy.data.materials.get(n) for n in _templates.values() if n) if m is not None]
    if doomed:
        bpy.data.batch_remove(doomed)
    _templates.clear()
    _seen_once.clear()


def _keep_template(key, mat) -> None:
    if _uses_removable_data(mat):
        _seen_once.discard(key)
        _templates[key] = None  # never reusable: remembered so it is not checked again
        return
    _serial[0] += 1
    template = mat.copy()
    template.name = f"{TEMPLATE_PREFIX}{_SESSION}.{_serial[0]}"
    _templates[key] = template.name
    while len(_templates) > MAX_TEMPLATES:
        _, old = _templates.popitem(last=False)
        old_mat = bpy.data.materials.get(old) if old else None
        if old_mat is not None:
            bpy.data.materials.remove(old_mat)


def reused(build=None, *, varying: tuple[str, ...] = (), values=None):
    """Decorate a material builder `build(name, ...)` whose result its other arguments fix (`@reused`).

    `@reused(varying=("seed",), values=set_values)`: the arguments named in `varying` are left out of the key,
    so one template serves every value of them, and `set_values(mat, **arguments)` (every argument but the
    name, defaults filled in) sets on a copy each node value they change. The builder must end by calling
    `set_values` itself, so that a copy given its values is what a build makes (tests/test_material_cache.py
    holds both equal in every environment).
    """
    if build is None:
        return functools.partial(reused, varying=varying, values=values)
    if varying and values is None:
        raise TypeError(f"{build.__qualname__}: arguments left out of the key need a function that sets them")
    signature = inspect.signature(build)

    @functools.wraps(build)
    def builder(name, *args, **kwargs):
        if not enabled:
            stats["built"] += 1
            return build(name, *args, **kwargs)
        bound = signature.bind(name, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments[next(iter(signature.parameters))]  # the name
        try:
            key = (build.__module__, build.__qualname__,
                   _plain([(k, v) for k, v in arguments.items() if k not in varying]))
        except _NotPlain:
            stats["built"] += 1
            return build(name, *args, **kwargs)
        if key in _templates:
            _templates.move_to_end(key)
            template = bpy.data.materials.get(_templates[key]) if _templates[key] else None
            if template is not None:
                mat = template.copy()
                mat.name = name
                if values is not None:
                    values(mat, **arguments)
                stats["copied"] += 1
                return mat
            if _templates[key] is not None:  # removed under us: build it again and keep a new template
                del _templates[key]
                _seen_once.add(key)
        stats["built"] += 1
        mat = build(name, *args, **kwargs)
        if key in _seen_once:
            _seen_once.discard(key)
            _keep_template(key, mat)
        elif key not in _templates:
            if len(_seen_once) >= MAX_SEEN_ONCE:
                _seen_once.clear()
            _seen_once.add(key)
        return mat

    builder.reused_builder = True  # a key part when passed to another reused builder (`facade.weathered`)
    return builder

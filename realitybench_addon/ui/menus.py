"""3D Viewport > View > RealityBench: every RealityBench operator in a menu (but those marked INTERNAL, which
Blender keeps out of search), so menu search (F3) finds them on 3.x (which searches menus only) and on
4.x/5.x. The entries are read from Blender's operator registry (`bpy.ops.realitybench`), not listed here, so
an operator added later appears without touching this file.

An operator whose only option is a choice (Randomize Camera: Pose / Phone) gets one entry per choice; every
other option takes the sidebar's value of the same name (`<operator>_<option>` first: the Export entry exports
what the sidebar's Export panel shows), as the sidebar's own buttons pass them.
"""
from __future__ import annotations

import bpy

PREFIX = "realitybench"
_SCALARS = ("BOOLEAN", "INT", "FLOAT", "STRING", "ENUM")


def _internal(idname: str) -> bool:
    """Marked INTERNAL (Blender keeps such operators out of search: a helper other buttons call with their
    own arguments, such as Show Text)."""
    module, name = idname.split(".")
    cls = bpy.types.Operator.bl_rna_get_subclass_py(getattr(getattr(bpy.ops, module), name).idname())
    return "INTERNAL" in getattr(cls, "bl_options", ())


def operator_ids() -> list[str]:
    """Every registered operator whose bl_idname starts with `realitybench.`, but INTERNAL ones."""
    ids = [f"{PREFIX}.{name}" for name in dir(getattr(bpy.ops, PREFIX)) if not name.startswith("_")]
    return [idname for idname in ids if not _internal(idname)]


def _rna(idname: str):
    module, name = idname.split(".")
    return getattr(getattr(bpy.ops, module), name).get_rna_type()


def _options(rna) -> list:
    return [p for p in rna.properties if p.identifier != "rna_type" and not p.is_hidden]


def entries() -> list[tuple[str, str, dict]]:
    """(bl_idname, menu text, options the entry sets), sorted by text."""
    out = []
    for idname in operator_ids():
        rna = _rna(idname)
        label = rna.name or idname
        options = _options(rna)
        choice = options[0] if len(options) == 1 and options[0].type == "ENUM" else None
        if choice is not None and not choice.is_enum_flag and len(choice.enum_items):
            out += [(idname, f"{label}: {item.name}", {choice.identifier: item.identifier})
                    for item in choice.enum_items]
        else:
            out.append((idname, label, {}))
    return sorted(out, key=lambda entry: entry[1].lower())


def sidebar_values(settings, idname: str) -> dict:
    """The operator's options that the sidebar holds too (same name, or `<operator>_<option>`)."""
    if settings is None:
        return {}
    held = settings.bl_rna.properties
    op_name = idname.split(".", 1)[1]
    values = {}
    for option in _options(_rna(idname)):
        if option.type not in _SCALARS or getattr(option, "is_array", False):
            continue
        for key in (f"{op_name}_{option.identifier}", option.identifier):
            if key in held and held[key].type == option.type and not getattr(held[key], "is_array", False):
                values[option.identifier] = getattr(settings, key)
                break
    return values


class RB_MT_realitybench(bpy.types.Menu):
    """Every RealityBench operator (also found by menu search, F3)"""

    bl_idname = "RB_MT_realitybench"
    bl_label = "RealityBench"

    def draw(self, context):
        settings = getattr(context.window_manager, "realitybench", None)
        layout = self.layout  # menus invoke (INVOKE_REGION_WIN): Export runs in the background, as from the sidebar
        for idname, text, chosen in entries():
            op = layout.operator(idname, text=text)
            for key, value in {**sidebar_values(settings, idname), **chosen}.items():
                try:
                    setattr(op, key, value)
                except (TypeError, ValueError, AttributeError):  # a value the option refuses: its default
                    pass


def draw_in_view_menu(self, context) -> None:
    self.layout.separator()
    self.layout.menu(RB_MT_realitybench.bl_idname)


CLASSES = (RB_MT_realitybench,)


def register() -> None:
    bpy.types.VIEW3D_MT_view.append(draw_in_view_menu)


def unregister() -> None:
    bpy.types.VIEW3D_MT_view.remove(draw_in_view_menu)

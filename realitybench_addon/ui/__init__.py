"""Blender UI: properties, operators, panels and handlers. Registration lives here only."""
from __future__ import annotations

import bpy

from .. import api
from . import live, menus, operators, overlay, panels, phone_view, properties

CLASSES = (*properties.CLASSES, *operators.CLASSES, *panels.CLASSES, *phone_view.CLASSES, *menus.CLASSES)
HANDLERS = ((bpy.app.handlers.depsgraph_update_post, api.raycast_cache_handler()),
            (bpy.app.handlers.depsgraph_update_post, live.on_depsgraph_update),
            (bpy.app.handlers.load_post, live.on_load_post),
            (bpy.app.handlers.load_post, phone_view.on_load_post),
            (bpy.app.handlers.save_pre, api.pack_on_save_handler()))


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    properties.attach()
    phone_view.attach()
    for handler_list, fn in HANDLERS:
        if fn not in handler_list:
            handler_list.append(fn)
    overlay.register()
    menus.register()


def unregister():
    menus.unregister()
    overlay.unregister()
    api.pack_drawn_images()  # saved after this, the file still carries the scene's drawn textures
    for handler_list, fn in HANDLERS:
        while fn in handler_list:
            handler_list.remove(fn)
    phone_view.detach()
    properties.detach()
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
    api.forget_raycast_cache()
    live.unbind()
    if bpy.app.timers.is_registered(live._deferred_refresh):
        bpy.app.timers.unregister(live._deferred_refresh)

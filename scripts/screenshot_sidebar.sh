#!/usr/bin/env bash
# The designer's flow in the sidebar of Debian's Blender 3.4.1 under Xvfb (tests/gui/sidebar_screenshot.py),
# by real clicks and keys; its screenshots go to OUT_DIR (default docs/img): sidebar.png, sidebar_build.png,
# sidebar_suggest.png, sidebar_thresholds.png, sidebar_browse.png.
#     bash scripts/screenshot_sidebar.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-docs/img}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# 1000 px wide: the screenshots keep the window's right 900 px, and a narrower viewport draws faster on the CPU
# (the flow took 629 s at 1600 px, 542 s at 1000, here alone)
# an empty file to open: Blender skips its splash screen when started with a file
blender -b --factory-startup --python-expr "import bpy; bpy.ops.wm.save_as_mainfile(filepath='$tmp/empty.blend')" >/dev/null
xvfb-run -a -s "-screen 0 1000x1000x24" blender --factory-startup --window-geometry 0 0 1000 1000 \
  "$tmp/empty.blend" --python tests/gui/sidebar_screenshot.py -- "$out"

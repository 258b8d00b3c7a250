#!/usr/bin/env bash
# Regenerate docs/img/sidebar.png: the sidebar in Debian's Blender 3.4.1 under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-docs/img/sidebar.png}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# an empty file to open: Blender skips its splash screen when started with a file
blender -b --factory-startup --python-expr "import bpy; bpy.ops.wm.save_as_mainfile(filepath='$tmp/empty.blend')" >/dev/null
xvfb-run -a -s "-screen 0 1600x1000x24" blender --factory-startup --window-geometry 0 0 1600 1000 \
  "$tmp/empty.blend" --python tests/gui/sidebar_screenshot.py -- "$out"

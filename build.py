"""Build the RealityBench Blender extension: one zip per platform in dist/.

    python build.py [--skip-wheels] [--out dist] [--blender-ext PATH]

Blender's builder wants the manifest inside the package folder, and the committed
manifest must stay free of build-time keys, so everything is staged first:

    build/stage/realitybench/      realitybench_addon/* (no __pycache__)
                                   blender_manifest.toml (+ wheels, platforms)
                                   presets/*.toml
                                   wheels/pillow-*.whl

Pillow is the one dependency Blender lacks (it ships numpy and requests); its
unmodified wheels for each Python a supported Blender embeds (3.11 for 4.2-4.5, 3.13 for
5.x) are downloaded once per platform into build/wheels/. Blender installs the one that
matches its own Python and reads the supported Pythons off the wheels' tags.
The stage is checked and zipped by Blender's own `blender_ext.py` (shipped in the
bpy wheel), run with this Python; the zips are validated again after the build.

    python build.py --legacy [--out dist]

writes instead the legacy add-on zip for Blender 3.4 to 4.1 (Preferences > Add-ons > Install),
which needs neither bpy nor the network: one top folder, the package under the extension's id,

    realitybench/                  realitybench_addon/* (no __pycache__), bl_info in __init__.py
    realitybench/presets/*.toml    where core.presets.shipped_presets_dir() looks first

and no manifest or wheels (a legacy add-on cannot install wheels: Blender's Python must have pillow).
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PACKAGE_DIR = ROOT / "realitybench_addon"
MANIFEST = ROOT / "blender_manifest.toml"
PRESETS_DIR = ROOT / "presets"
WHEEL_CACHE = ROOT / "build" / "wheels"
STAGE_ROOT = ROOT / "build" / "stage"

PILLOW_VERSION = "13.0.0"
PYTHON_VERSIONS = ("3.11", "3.13")  # Blender 4.2-4.5 embed Python 3.11, Blender 5.x Python 3.13.
# Blender platform -> the pip platform tag to download for. pip also accepts older
# compatible tags (e.g. pillow's macos-x64 wheel is tagged macosx_10_10_x86_64).
WHEEL_PLATFORMS = {
    "linux-x64": "manylinux_2_28_x86_64",
    "macos-arm64": "macosx_11_0_arm64",
    "macos-x64": "macosx_10_13_x86_64",
    "windows-x64": "win_amd64",
}
BLENDER_EXT_ENV = "REALITYBENCH_BLENDER_EXT"
LEGACY_BLENDER = (3, 4, 0)  # the oldest Blender the legacy zip is for (realitybench_addon.SUPPORTED_BLENDER)
# A [table] or [[array of tables]] header line.
TABLE_HEADER = re.compile(r"\s*\[\[?\s*[\w.\"' -]+\]\]?\s*(#.*)?$")


class BuildError(Exception):
    """A build step failed; the message says which and why."""


def find_blender_ext(override: str | None) -> Path:
    """Blender's extension CLI: --blender-ext, else $REALITYBENCH_BLENDER_EXT, else the bpy wheel's copy."""
    explicit = override or os.environ.get(BLENDER_EXT_ENV)
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise BuildError(f"blender_ext.py not found at {path}")
        return path
    # find_spec locates the wheel without importing bpy (which would start Blender).
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError(f"bpy is not installed for {sys.executable}: install it (pip install 'realitybench[bpy]'), "
                         f"or pass --blender-ext / set {BLENDER_EXT_ENV}")
    bpy_dir = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(bpy_dir.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    if not found:
        raise BuildError(f"no */scripts/addons_core/bl_pkg/cli/blender_ext.py under {bpy_dir}")
    return found[-1]


def find_valid_tags(blender_ext: Path) -> Path:
    """Blender's own list of valid tags, `scripts/modules/_bpy_internal/extensions/tags.py`.

    It sits at the same place relative to blender_ext.py in the bpy wheel, an installed
    Blender and Blender's source tree. Without --valid-tags the CLI skips the tag check.
    """
    scripts = blender_ext.parents[3]
    tags = scripts / "modules" / "_bpy_internal" / "extensions" / "tags.py"
    if not tags.is_file():
        raise BuildError(f"Blender's valid-tags list not found at {tags}")
    return tags


def python_tag(version: str) -> str:
    return "cp" + version.replace(".", "")


def fetch_wheels() -> list[Path]:
    """One pillow wheel per platform and Python, from build/wheels/<platform>/ or downloaded there."""
    wheels = []
    for platform, pip_platform in WHEEL_PLATFORMS.items():
        folder = WHEEL_CACHE / platform
        for version in PYTHON_VERSIONS:
            tag = python_tag(version)
            pattern = f"pillow-{PILLOW_VERSION}-{tag}-{tag}-*.whl"
            if not list(folder.glob(pattern)):
                print(f"downloading pillow {PILLOW_VERSION} for {platform} ({pip_platform}), Python {version}")
                command = [sys.executable, "-m", "pip", "download", f"pillow=={PILLOW_VERSION}",
                           "--only-binary=:all:", "--no-deps", "--python-version", version,
                           "--platform", pip_platform, "--disable-pip-version-check", "-d", str(folder)]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    raise BuildError(f"could not download pillow {PILLOW_VERSION} for {platform}, Python {version} "
                                     f"from PyPI (network needed on the first build; later builds use "
                                     f"{WHEEL_CACHE}):\n{done.stdout}{done.stderr}")
            found = sorted(folder.glob(pattern))
            if len(found) != 1:
                raise BuildError(f"expected one {pattern} in {folder}, found {[p.name for p in found]}")
            wheels.append(found[0])
    return wheels


def toml_string_list(values: list[str]) -> str:
    # The values are wheel paths and platform names: no quotes or backslashes to escape.
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"


def stage_manifest(source: Path, target: Path, wheels: list[str], platforms: list[str]) -> None:
    """Copy the manifest, adding top-level `wheels` and `platforms` when there are wheels.

    The keys are absent from the source, so a text insert is enough; it goes before the
    first [table] header so the keys stay top-level, and tomllib checks the result.
    """
    text = source.read_text(encoding="utf-8")
    if wheels:
        if {"wheels", "platforms"} & tomllib.loads(text).keys():
            raise BuildError(f"{source} must not declare wheels or platforms: build.py adds them")
        lines = text.splitlines(keepends=True)
        first_table = next((i for i, line in enumerate(lines) if TABLE_HEADER.match(line)), len(lines))
        added = (f"\n# Added by build.py.\nwheels = {toml_string_list(wheels)}\n"
                 f"platforms = {toml_string_list(platforms)}\n\n")
        text = "".join(lines[:first_table]).rstrip("\n") + "\n" + added + "".join(lines[first_table:])
        staged = tomllib.loads(text)
        if staged.get("wheels") != wheels or staged.get("platforms") != platforms:
            raise BuildError(f"could not add wheels and platforms to the staged manifest {target}")
    target.write_text(text, encoding="utf-8")


def stage(package_id: str, wheels: list[Path]) -> Path:
    """A fresh build/stage/<id>/ holding everything that goes into the zip."""
    stage_dir = STAGE_ROOT / package_id
    if STAGE_ROOT.exists():
        shutil.rmtree(STAGE_ROOT)
    shutil.copytree(PACKAGE_DIR, stage_dir, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # Inside the package folder, where core.presets.shipped_presets_dir() looks first.
    shutil.copytree(PRESETS_DIR, stage_dir / "presets")
    if wheels:
        (stage_dir / "wheels").mkdir()
        for wheel in wheels:
            shutil.copy2(wheel, stage_dir / "wheels" / wheel.name)
    stage_manifest(MANIFEST, stage_dir / "blender_manifest.toml",
                   [f"./wheels/{w.name}" for w in wheels], list(WHEEL_PLATFORMS) if wheels else [])
    return stage_dir


def blender_ext_run(blender_ext: Path, *args: str) -> None:
    """Run one blender_ext.py command; its own messages explain any failure."""
    command = [sys.executable, str(blender_ext), *args]
    done = subprocess.run(command, capture_output=True, text=True)
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        raise BuildError(f"blender_ext.py {args[0]} failed (exit {done.returncode}):\n{output}")
    if output:
        print(output)


def build(out_dir: Path, skip_wheels: bool, blender_ext_override: str | None) -> list[Path]:
    blender_ext = find_blender_ext(blender_ext_override)
    valid_tags = find_valid_tags(blender_ext)
    manifest = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    package_id, version = manifest["id"], manifest["version"]

    wheels = [] if skip_wheels else fetch_wheels()
    stage_dir = stage(package_id, wheels)
    blender_ext_run(blender_ext, "validate", str(stage_dir), "--valid-tags", str(valid_tags))

    out_dir.mkdir(parents=True, exist_ok=True)
    build_args = ["build", "--source-dir", str(stage_dir), "--output-dir", str(out_dir),
                  "--valid-tags", str(valid_tags)]
    # The builder refuses --split-platforms for a manifest without platforms.
    if wheels:
        build_args.append("--split-platforms")
    blender_ext_run(blender_ext, *build_args)

    # The builder's naming: <id>-<version>[-<platform with "-" as "_">].zip
    suffixes = [f"-{p.replace('-', '_')}" for p in WHEEL_PLATFORMS] if wheels else [""]
    zips = [out_dir / f"{package_id}-{version}{suffix}.zip" for suffix in suffixes]
    missing = [z.name for z in zips if not z.is_file()]
    if missing:
        raise BuildError(f"the builder did not write {missing} in {out_dir}")
    for zip_path in zips:
        blender_ext_run(blender_ext, "validate", str(zip_path), "--valid-tags", str(valid_tags))
    return zips


def legacy_bl_info(init_file: Path) -> dict:
    """The package's bl_info (read without importing it): Blender before 4.2 lists no add-on without one."""
    tree = ast.parse(init_file.read_text(encoding="utf-8"), filename=str(init_file))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "bl_info" for t in node.targets):
            try:
                info = ast.literal_eval(node.value)
            except ValueError:
                break
            if isinstance(info, dict):
                return info
    raise BuildError(f"{init_file} has no literal bl_info dict: Blender before 4.2 cannot install the add-on")


def check_bl_info(info: dict, version: str) -> None:
    """bl_info names the add-on, runs on 3.4 and carries the manifest's version."""
    if not isinstance(info.get("name"), str) or not info["name"]:
        raise BuildError("bl_info has no name")
    if not isinstance(info.get("blender"), tuple) or tuple(info["blender"]) > LEGACY_BLENDER:
        raise BuildError(f"bl_info['blender'] is {info.get('blender')!r}: the legacy zip is for Blender "
                         f"{'.'.join(map(str, LEGACY_BLENDER))}, so it must be at most that")
    if ".".join(map(str, info.get("version", ()))) != version:
        raise BuildError(f"bl_info['version'] is {info.get('version')!r}, the manifest's version is {version}: "
                         "bump both together")


def legacy_entries(package_id: str) -> list[tuple[str, Path]]:
    """(name in the zip, source file): the package under <id>/ and the presets under <id>/presets/."""
    entries = []
    for source, prefix in ((PACKAGE_DIR, package_id), (PRESETS_DIR, f"{package_id}/presets")):
        for path in sorted(source.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                entries.append((f"{prefix}/{path.relative_to(source).as_posix()}", path))
    return entries


def build_legacy(out_dir: Path) -> list[Path]:
    """The legacy add-on zip (Blender 3.4-4.1): one top folder <id>/ holding the package and its presets.

    Entries are written in sorted order with a fixed timestamp, so the same sources give the same bytes."""
    manifest = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    package_id, version = manifest["id"], manifest["version"]
    check_bl_info(legacy_bl_info(PACKAGE_DIR / "__init__.py"), version)
    entries = legacy_entries(package_id)
    if (PACKAGE_DIR / "presets").exists():
        raise BuildError(f"{PACKAGE_DIR / 'presets'} exists: the presets come from {PRESETS_DIR} alone")
    if not any(name.startswith(f"{package_id}/presets/") and name.endswith(".toml") for name, _ in entries):
        raise BuildError(f"no presets in {PRESETS_DIR}: the add-on could build no environment")
    out_dir.mkdir(parents=True, exist_ok=True)
    zip_path = out_dir / f"{package_id}-{version}-legacy.zip"
    partial = zip_path.with_name(zip_path.name + ".part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    os.replace(partial, zip_path)
    with zipfile.ZipFile(zip_path) as archive:
        tops = {name.split("/", 1)[0] for name in archive.namelist()}
    if tops != {package_id}:
        raise BuildError(f"{zip_path} must hold one top folder {package_id}/, holds {sorted(tops)}")
    return [zip_path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder for the zips (default: dist)")
    parser.add_argument("--skip-wheels", action="store_true",
                        help="bundle no pillow wheels: one platform-independent zip "
                             "(for a Blender that already has pillow)")
    parser.add_argument("--blender-ext", help=f"path to Blender's blender_ext.py (default: ${BLENDER_EXT_ENV}, "
                                              "else the copy in the installed bpy wheel)")
    parser.add_argument("--legacy", action="store_true",
                        help="write only the legacy add-on zip for Blender 3.4-4.1 (Preferences > Add-ons > "
                             "Install): <id>-<version>-legacy.zip, needs neither bpy nor the network")
    args = parser.parse_args(argv)
    try:
        if args.legacy:
            zips = build_legacy(args.out.resolve())
        else:
            zips = build(args.out.resolve(), args.skip_wheels, args.blender_ext)
    except BuildError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr)
        return 1
    print("built:")
    for zip_path in zips:
        print(f"  {zip_path}  ({zip_path.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The built extension: what build.py puts in the zip, Blender's validator on it, and a
full install / run / disable / uninstall cycle in a fresh bpy process.

The install check runs in a subprocess because installing and enabling changes the
process for good (sys.modules, sys.path, registered classes) and because Blender must
read its user folders from BLENDER_USER_* before it starts. The subprocess runs this
file as a script: `python tests/test_extension.py <zip> <summary.json>`.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import blender_lines

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_ID = "realitybench"
REPO = "user_default"
MODULE = f"bl_ext.{REPO}.{PACKAGE_ID}"

pytestmark = pytest.mark.skipif(importlib.util.find_spec("bpy") is None,
                                reason="needs the bpy wheel: bash scripts/setup.sh")

LINES = blender_lines.LINES


def line_python(line: str) -> Path:
    """The Python whose bpy wheel is Blender `line` (the other lines' venvs come from `setup.sh --tests`)."""
    python = blender_lines.line_python(line)
    if not python.exists():
        pytest.skip(f"no {python.parent.parent.name}: run `bash scripts/setup.sh --tests` "
                    f"(needs a Python {'3.11' if line == '4.5' else '3.13'})")
    return python


def line_blender_ext(line: str) -> Path:
    """That line's own copy of Blender's extension CLI."""
    if line == blender_lines.running_line():
        return load_build_script().find_blender_ext(None)
    found = sorted(line_python(line).parent.parent.glob(f"lib/python3.*/site-packages/bpy/{line}/scripts/addons_core/"
                                                        "bl_pkg/cli/blender_ext.py"))
    assert found, f"no blender_ext.py in the {line} wheel"
    return found[-1]


def load_build_script():
    """build.py as a module, loaded by path: `import build` would find PyPA's `build` if installed."""
    spec = importlib.util.spec_from_file_location("realitybench_build", REPO_ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def committed_manifest() -> dict:
    return tomllib.loads((REPO_ROOT / "blender_manifest.toml").read_text(encoding="utf-8"))


def platform_zip(out_dir: Path, platform: str) -> Path:
    manifest = committed_manifest()
    return out_dir / f"{manifest['id']}-{manifest['version']}-{platform.replace('-', '_')}.zip"


def test_manifest_version_is_the_package_version():
    import realitybench_addon

    manifest = committed_manifest()
    assert manifest["id"] == PACKAGE_ID
    assert manifest["version"] == realitybench_addon.__version__


def test_supported_blender_range_is_the_manifests_and_says_so_in_one_line():
    import realitybench_addon as rb

    manifest = committed_manifest()
    low, high = rb.SUPPORTED_BLENDER
    assert manifest["blender_version_max"] == ".".join(map(str, high))
    assert tuple(map(int, manifest["blender_version_min"].split("."))) >= low  # extensions start at 4.2
    for version in ((3, 4, 1), (4, 2, 0), (4, 5, 15), (5, 2, 3), (5, 3, 0), (5, 99, 9)):
        assert rb.unsupported_blender(version) is None, version
    for version in ((3, 3, 9), (2, 93, 0), (6, 0, 0), (7, 1, 0)):
        message = rb.unsupported_blender(version)
        assert message == (f"RealityBench {rb.__version__} supports Blender 3.4 up to 5.x, not Blender "
                           f"{'.'.join(map(str, version))}; use Blender 4.5 LTS or 5.2 LTS")


def test_build_leaves_the_committed_manifest_untouched(extension_build):
    assert extension_build.manifest_after == extension_build.manifest_before
    assert not {"wheels", "platforms"} & committed_manifest().keys()


def test_build_writes_one_zip_per_platform(extension_build):
    build = load_build_script()
    built = sorted(p.name for p in extension_build.out_dir.glob("*.zip"))
    assert built == sorted(platform_zip(extension_build.out_dir, p).name for p in build.WHEEL_PLATFORMS)


@pytest.mark.parametrize("line", sorted(LINES))
def test_linux_zip_passes_each_lines_blender_validation(extension_build, line):
    build = load_build_script()
    zip_path = platform_zip(extension_build.out_dir, "linux-x64")
    python, blender_ext = line_python(line), line_blender_ext(line)
    done = subprocess.run([str(python), str(blender_ext), "validate", str(zip_path),
                           "--valid-tags", str(build.find_valid_tags(blender_ext))],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_linux_zip_holds_package_presets_and_a_wheel_per_python(extension_build):
    build = load_build_script()
    zip_path = platform_zip(extension_build.out_dir, "linux-x64")

    with zipfile.ZipFile(zip_path) as archive:
        names = set(archive.namelist())
        manifest = tomllib.loads(archive.read("blender_manifest.toml").decode("utf-8"))
    # The zip's root is the package folder: Blender unpacks it as extensions/<repo>/realitybench/.
    assert {"__init__.py", "ui/operators.py", "core/presets.py"} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    shipped = {f"presets/{p.name}" for p in (REPO_ROOT / "presets").glob("*.toml")}
    assert shipped and shipped == {n for n in names if n.startswith("presets/")}

    wheels = sorted(n for n in names if n.startswith("wheels/"))
    assert [w.split("-")[2] for w in wheels] == ["cp311", "cp313"]  # Blender 4.2-4.5 and 5.x
    for wheel in wheels:
        assert wheel.startswith(f"wheels/pillow-{build.PILLOW_VERSION}-") and "manylinux" in wheel
        assert wheel.endswith("x86_64.whl")
    # The builder lists this zip's own platform and wheels in a generated table.
    assert manifest["build"]["generated"] == {"platforms": ["linux-x64"], "wheels": [f"./{w}" for w in wheels]}
    assert manifest["version"] == committed_manifest()["version"]


@pytest.mark.parametrize("line", sorted(LINES))
def test_installed_extension_runs_and_uninstalls_without_leftovers(extension_build, tmp_path, line):
    python = line_python(line)
    zip_path = platform_zip(extension_build.out_dir, "linux-x64")
    user = tmp_path / "blender_user"
    env = {**os.environ,
           # Blender reads its user folders from these: nothing touches the real home.
           "BLENDER_USER_RESOURCES": str(user / "resources"),
           "BLENDER_USER_CONFIG": str(user / "config"),
           "BLENDER_USER_SCRIPTS": str(user / "scripts"),
           "BLENDER_USER_EXTENSIONS": str(user / "extensions")}
    summary_path = tmp_path / "summary.json"
    done = subprocess.run([str(python), __file__, str(zip_path), str(summary_path)], env=env,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not summary_path.is_file():
        pytest.fail(f"install check failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-6000:]}",
                    pytrace=False)
    s = json.loads(summary_path.read_text())
    package_dir = user / "extensions" / REPO / PACKAGE_ID

    # Installed and enabled as an extension, from the user repository.
    assert s["install"] == ["FINISHED"]
    assert s["enabled"] is True
    assert Path(s["package_file"]) == package_dir / "__init__.py"
    assert Path(s["presets_dir"]) == package_dir / "presets"
    assert s["registered_classes"] == s["package_classes"]
    assert {"REALITYBENCH_OT_measure", "REALITYBENCH_OT_demo_scene"} <= set(s["rna_types"])
    assert s["wm_property"] is True
    assert f"depsgraph_update_post:{MODULE}.bl.raycast.on_depsgraph_update" in s["handlers"]
    assert f"save_pre:{MODULE}.bl.materials.pack_before_save" in s["handlers"]  # drawn textures go into saves

    # The bundled wheel went into the extensions' site-packages and works on its own.
    assert s["blender"].startswith(line)
    site_packages = user / "extensions" / ".local" / "lib" / s["python"] / "site-packages"
    assert Path(s["extension_site_packages"]) == site_packages
    assert s["pillow_in_extension_site_packages"] == load_build_script().PILLOW_VERSION
    assert Path(s["bundled_pillow"]["file"]).is_relative_to(site_packages)
    assert s["bundled_pillow"]["image_size"] == [4, 3]

    # The operators work on the demo scene; the demo's file reset keeps the add-on alive.
    assert s["demo_scene"] == ["FINISHED"] and s["measure"] == ["FINISHED"]
    assert s["in_frame_fraction"] == 1.0
    assert s["enabled_after_demo"] is True
    assert s["handlers_after_demo"] == s["handlers"], "the depsgraph handler must survive file loads (@persistent)"
    assert s["export"] == ["FINISHED"]
    assert s["exported_rows"] == ["tape_gap-random-s0-000000", "tape_gap-random-s0-000001"]
    assert s["exported_images"] == [f"tape_gap/{f}.jpg" for f in s["exported_rows"]]

    # Disabled: nothing of the add-on is left in Blender.
    assert s["disable"] == ["FINISHED"]
    assert s["enabled_after_disable"] is False
    assert s["registered_classes_after_disable"] == []
    assert s["rna_types_after_disable"] == []
    assert s["wm_property_after_disable"] is False
    assert s["handlers_after_disable"] == []

    # Uninstalled: the package folder and its wheel are gone.
    assert s["uninstall"] == ["FINISHED"]
    assert not package_dir.exists()
    assert s["pillow_in_extension_site_packages_after_uninstall"] is None


# --- The install check, run in a fresh bpy process ------------------------------------


def _rb_rna_types(bpy) -> list[str]:
    return sorted(n for n in dir(bpy.types) if n.startswith(("RB_", "REALITYBENCH_")))


def _wm_property(bpy) -> bool:
    wm = bpy.types.WindowManager
    return hasattr(wm, "realitybench") or "realitybench" in wm.bl_rna.properties


def _package_handlers(bpy) -> list[str]:
    """'<handler list>:<module>.<function>' for every handler the package left in bpy.app.handlers."""
    found = []
    for name in dir(bpy.app.handlers):
        handlers = getattr(bpy.app.handlers, name)
        if isinstance(handlers, list):
            found += [f"{name}:{fn.__module__}.{fn.__qualname__}" for fn in handlers
                      if getattr(fn, "__module__", "").startswith(MODULE)]
    return sorted(found)


def _pillow_version(site_packages: str) -> str | None:
    from importlib.metadata import distributions

    versions = [d.version for d in distributions(path=[site_packages]) if d.metadata["Name"].lower() == "pillow"]
    return versions[0] if versions else None


def _bundled_pillow(site_packages: str) -> dict:
    """Import PIL from the extensions' site-packages alone: -S keeps the venv's pillow out of sys.path."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import PIL, PIL.Image; "
            "print(json.dumps({'file': PIL.__file__, 'image_size': list(PIL.Image.new('RGB', (4, 3)).size)}))")
    done = subprocess.run([sys.executable, "-S", "-c", code, site_packages], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the bundled pillow does not import:\n{done.stderr}")
    return json.loads(done.stdout)


def install_check(zip_path: str, summary_path: str) -> None:
    import bpy  # first: it puts Blender's modules (addon_utils) on sys.path
    import addon_utils

    def enabled() -> bool:
        return addon_utils.check(MODULE)[1] and MODULE in bpy.context.preferences.addons

    s = {"python": "python{}.{}".format(*sys.version_info[:2]), "blender": bpy.app.version_string}
    s["install"] = sorted(bpy.ops.extensions.package_install_files(
        filepath=zip_path, repo=REPO, enable_on_install=True))
    s["enabled"] = enabled()
    package = sys.modules[MODULE]
    classes = package.ui.CLASSES
    s["package_file"] = package.__file__
    s["presets_dir"] = str(importlib.import_module(f"{MODULE}.core.presets").shipped_presets_dir())
    s["package_classes"] = sorted(cls.__name__ for cls in classes)
    s["registered_classes"] = sorted(cls.__name__ for cls in classes if cls.is_registered)
    s["rna_types"] = _rb_rna_types(bpy)
    s["wm_property"] = _wm_property(bpy)
    s["handlers"] = _package_handlers(bpy)

    # Where Blender installs extension wheels (addon_utils._initialize_extensions_site_packages).
    site_packages = os.path.join(bpy.utils.user_resource("EXTENSIONS"), ".local", "lib",
                                 "python{}.{}".format(*sys.version_info[:2]), "site-packages")
    s["extension_site_packages"] = site_packages
    s["pillow_in_extension_site_packages"] = _pillow_version(site_packages)
    s["bundled_pillow"] = _bundled_pillow(site_packages)

    s["demo_scene"] = sorted(bpy.ops.realitybench.demo_scene())
    s["measure"] = sorted(bpy.ops.realitybench.measure(target="Label"))
    s["in_frame_fraction"] = json.loads(bpy.context.window_manager.realitybench.last_result)["in_frame_fraction"]
    s["enabled_after_demo"] = enabled()
    s["handlers_after_demo"] = _package_handlers(bpy)
    # Build two scenes, render and measure two frames, write a set: the whole path, in this line.
    out = Path(summary_path).parent / "set"
    s["export"] = sorted(bpy.ops.realitybench.export(environments="tape_gap", random=2, positive=0,
                                                     resolution="64x48", samples=1, denoise=False, out=str(out)))
    s["exported_rows"] = [json.loads(line)["frame_id"] for line in (out / "metadata.jsonl").read_text().splitlines()]
    s["exported_images"] = sorted(str(p.relative_to(out)) for p in out.rglob("*.jpg"))

    s["disable"] = sorted(bpy.ops.preferences.addon_disable(module=MODULE))
    s["enabled_after_disable"] = enabled()
    s["registered_classes_after_disable"] = sorted(cls.__name__ for cls in classes if cls.is_registered)
    s["rna_types_after_disable"] = _rb_rna_types(bpy)
    s["wm_property_after_disable"] = _wm_property(bpy)
    s["handlers_after_disable"] = _package_handlers(bpy)

    repo_directory = next(r.directory for r in bpy.context.preferences.extensions.repos if r.module == REPO)
    s["uninstall"] = sorted(bpy.ops.extensions.package_uninstall(repo_directory=repo_directory, pkg_id=PACKAGE_ID))
    s["pillow_in_extension_site_packages_after_uninstall"] = _pillow_version(site_packages)

    print("install check summary:", json.dumps(s))
    Path(summary_path).write_text(json.dumps(s, indent=2))


if __name__ == "__main__":
    install_check(*sys.argv[1:3])

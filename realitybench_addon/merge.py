"""Join the shard folders of one export into one complete set, all or nothing.

Every shard is checked first (finished, same settings and presets, the shards K/N for every K, every row sound,
no slot twice, the expected frame count); only then is the set written, into a temporary folder
beside OUT that becomes OUT by one rename. A refused merge leaves nothing behind that a reader
could take for a set.
"""
from __future__ import annotations

import os
import shutil
from contextlib import ExitStack
from pathlib import Path
from typing import Sequence

from .version import __version__
from .core.errors import RealityBenchError
from .core.render_settings import RenderSettings
from .dataset_card import write_dataset_card
from .export import (EXTRAS, ExportConfig, ExportError, check_same_presets, expected_frames, row_preset_hash,
                     stored_render_settings, write_contact_sheets)
from .core import safefs
from .setio import SetError, append_row, atomic_write, read_image, read_manifest, read_rows, write_manifest
from .setlock import SetLock


class MergeError(RealityBenchError, ValueError):
    """A merge refused before anything was written; the message names the shard and the problem."""


def _check_shards(shard_dirs: Sequence[Path]) -> tuple[ExportConfig, RenderSettings, list[dict]]:
    manifests = []
    for d in shard_dirs:
        m = read_manifest(d)
        if m is None:
            raise MergeError(f"{d} is not an exported set (no manifest.json)")
        if not m.get("complete"):
            raise MergeError(f"{d} is an unfinished shard; resume it first")
        if not isinstance(m.get("config"), dict) or "shard" not in m["config"]:
            raise MergeError(f"{d}/manifest.json has no export settings")
        manifests.append(m)
    base = {k: v for k, v in manifests[0]["config"].items() if k != "shard"}
    shards = []
    for d, m in zip(shard_dirs, manifests):
        if {k: v for k, v in m["config"].items() if k != "shard"} != base:
            raise MergeError(f"{d} was exported with different settings from {shard_dirs[0]}")
        shards.append(tuple(m["config"]["shard"]))
    n = manifests[0]["config"]["shard"][1]
    wanted = {(k, n) for k in range(n)}
    if len(shards) != len(set(shards)) or set(shards) != wanted:
        repeated = sorted({s for s in shards if shards.count(s) > 1})
        missing = sorted(wanted - set(shards))
        raise MergeError(f"shards missing or repeated: have {sorted(shards)}, missing {missing}, repeated {repeated}")
    try:
        config = ExportConfig.from_dict({**base, "shard": (0, 1)})
    except TypeError as exc:
        raise MergeError(f"{shard_dirs[0]}/manifest.json: unknown export settings ({exc})") from None
    try:
        settings = [stored_render_settings(m, config, d) for d, m in zip(shard_dirs, manifests)]
    except ExportError as exc:
        raise MergeError(str(exc)) from None
    for d, other in zip(shard_dirs, settings):
        if other != settings[0]:
            changed = sorted(k for k, v in other.to_dict().items() if settings[0].to_dict()[k] != v)
            raise MergeError(f"{d} was rendered with other Cycles settings than {shard_dirs[0]} "
                             f"({', '.join(changed)}); a set renders every frame alike")
    return config, settings[0], manifests


def _check_presets(shard: Path, manifest: dict, rows: list[dict], preset_hashes: dict) -> None:
    """Every shard, and every row in it, scored with the presets the merge loads: a set never mixes presets."""
    remedy = "merge shards exported with the same presets, with those presets in place"
    versions = manifest.get("versions")
    try:
        check_same_presets(versions.get("preset_hashes") if isinstance(versions, dict) else None, preset_hashes,
                           shard, remedy)
        for row in rows:
            check_same_presets({row["environment"]: row_preset_hash(row)}, preset_hashes, shard, remedy)
    except ExportError as exc:
        raise MergeError(str(exc)) from None


def merge(shard_dirs: Sequence[str | os.PathLike], out: str | os.PathLike) -> dict:
    """Check every shard, then write the merged set into OUT (which must not exist or be empty)."""
    from .core.presets import load_environment_preset

    shard_dirs = [Path(d) for d in shard_dirs]
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise MergeError(f"{out} already holds files; merge into a new or empty folder")
    with ExitStack() as held:
        for d in {d.resolve(): d for d in shard_dirs}.values():  # a shard named twice is refused below
            try:  # no export may write a shard while it is read; a read-only shard needs no lock
                held.enter_context(SetLock(d, "merge (reading)", leave_no_trace=True))  # no lock file left behind
            except OSError:  # read-only (EROFS, EACCES), missing: nothing can write it either
                pass
        config, settings, manifests = _check_shards(shard_dirs)
        presets = {env: load_environment_preset(env, [Path(p) for p in config.preset_dirs])
                   for env in config.environments}
        preset_hashes = {env: p.content_hash() for env, p in presets.items()}
        rows_by_shard, seen = [], {}
        for d, manifest in zip(shard_dirs, manifests):
            rows = read_rows(d)
            _check_presets(d, manifest, rows, preset_hashes)
            for row in rows:
                key = (row["environment"], row["stratum"], row["slot"])
                if key in seen:
                    raise MergeError(f"frame slot {key} appears in {seen[key]} and {d}")
                seen[key] = d
                try:  # opened below the shard without following a link, a regular file within the cap
                    os.close(safefs.open_regular(d, row["file_name"], "image"))
                except FileNotFoundError:
                    raise MergeError(f"{d}: frame {row['frame_id']} has no image {row['file_name']}") from None
                except (SetError, OSError) as exc:
                    raise MergeError(f"{d}: frame {row['frame_id']}: {exc}") from None
            rows_by_shard.append(rows)
        expected = expected_frames(config, presets)
        if len(seen) != expected:
            raise MergeError(f"the shards hold {len(seen)} frames, the export expects {expected}; "
                             "resume or re-export the shard that lacks frames")

        staging = out.parent / f".{out.name}.merging-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            with SetLock(staging, "merge"):
                for d, rows in zip(shard_dirs, rows_by_shard):
                    for row in rows:  # read and written without following a link (safefs.py)
                        try:
                            atomic_write(staging / row["file_name"], read_image(d, row), root=staging)
                        except SetError as exc:
                            raise MergeError(f"{d}: frame {row['frame_id']}: {exc}") from None
                        for kind, suffix in (("masks", ".png"), ("overlays", ".jpg")):
                            extra = f"{EXTRAS}/{kind}/{row['environment']}/{row['frame_id']}{suffix}"
                            try:
                                data = safefs.read_bytes(d, extra, "image")
                            except (FileNotFoundError, NotADirectoryError, SetError):
                                continue  # extras are optional; one that is a link is not copied
                            atomic_write(staging / extra, data, root=staging)
                        append_row(staging, row)
                write_manifest(staging, {
                    "command": "merge", "config": config.identity(), "config_hash": config.content_hash(),
                    "complete": True, "expected_frames": expected, "render_settings": settings.to_dict(),
                    "versions": {"realitybench": __version__, "preset_hashes": preset_hashes},
                    "merged_from": [str(d) for d in shard_dirs],
                    "shard_manifests": manifests})
                write_dataset_card(staging)  # README.md: the set's Hugging Face card, from its manifest and rows
                if config.extras:
                    write_contact_sheets(staging)
            try:
                os.rename(staging, out)  # replaces an empty OUT; fails if OUT gained files meanwhile
            except OSError as exc:
                raise MergeError(f"cannot move the merged set into {out}: {exc.strerror}") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return {"frames": len(seen), "out": str(out)}


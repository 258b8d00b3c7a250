"""Exports that outgrow one machine: shards as Ray tasks, gathered into one set.

Each task runs one shard (`export --shard K/N`) in its own Python process with the bpy
wheel (bpy is not thread-safe, and a fresh process per shard also bounds memory), writing
into `.OUT.shards/K-of-N/` beside OUT; when all tasks finish, the shards are merged into OUT
(one rename: OUT appears whole or not at all) and removed. Every frame is a pure function of its id, so where a task runs does not matter;
on a multi-node cluster OUT must be on a filesystem all nodes share. Rerunning the same
command resumes: finished shards are skipped, unfinished ones resume from their metadata.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Optional


def shards_root(out: Path) -> Path:
    out = Path(out).resolve()
    return out.parent / f".{out.name}.shards"


def shard_dir(out: Path, k: int, n: int) -> Path:
    return shards_root(out) / f"{k}-of-{n}"


def _run_shard(process: list[str]) -> tuple[int, str]:
    proc = subprocess.run(process, capture_output=True, text=True)
    return proc.returncode, proc.stderr[-4000:]


def export_on_ray(config, out: Path, *, workers: int, address: Optional[str] = None, command: str = "",
                  recycle_every: int = 0) -> dict:
    """Run the export `config` (export.ExportConfig) as `workers` shards on Ray, each recycling its worker
    process every `recycle_every` frames; merge them into `out`."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("--engine ray needs Ray: pip install 'ray[default]'") from None
    from .api import merge
    from .export import export_argv, export_process
    from .setio import read_manifest

    existing = read_manifest(out)
    if existing is not None and existing.get("complete") and existing.get("command") == "merge":
        return existing
    ray.init(address=address, ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(_run_shard)
        futures = [task.remote(export_process(export_argv(replace(config, shard=(k, workers)),
                                                          shard_dir(out, k, workers), command=command,
                                                          recycle_every=recycle_every)))
                   for k in range(workers)]
        results = ray.get(futures)
    finally:
        ray.shutdown()
    failed = [(k, err) for k, (rc, err) in enumerate(results) if rc != 0]
    if failed:
        k, err = failed[0]
        last = err.strip().splitlines()[-1] if err.strip() else "no message"
        raise RuntimeError(f"{len(failed)} of {workers} shards failed; shard {k}: {last}")
    shards = [shard_dir(out, k, workers) for k in range(workers)]
    summary = merge(shards, out)
    shutil.rmtree(shards_root(out))
    return {**read_manifest(out), "ray": {"workers": workers, "address": address or "local"}, **summary}

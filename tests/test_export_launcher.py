"""The one export launcher: a configuration turns itself into the command line that runs it
(export.export_argv), and that command line parses back into the same configuration, for the CLI's
recycled workers, the Ray shards and the sidebar's background export alike."""
from __future__ import annotations

from dataclasses import replace

import pytest

from realitybench_addon.__main__ import _export_config, build_parser
from realitybench_addon.export import ExportConfig, export_argv, export_process


CONFIGS = [
    ExportConfig(("tape_gap",)),
    ExportConfig(("rail_attachment", "car_plate"), random=3, positive=0, seed=7, long_side_px=640, samples=2,
                 denoise=False, device="auto", shard=(1, 3), extras=True),
    ExportConfig(("ro_board",), long_side_px=333, samples=1),  # a long side whose 3/4 is not whole
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(c.environments))
def test_the_command_line_parses_back_into_the_same_config(config, tmp_path):
    presets = tmp_path / "presets"
    presets.mkdir()
    config = replace(config, preset_dirs=(str(presets),))
    argv = export_argv(config, tmp_path / "out", command="python -m realitybench_addon export --env x")
    args = build_parser().parse_args(argv)
    assert _export_config(args) == config
    assert args.out == str(tmp_path / "out") and args.recycle_every == 0 and args.max_frames is None
    assert args.record_command == "python -m realitybench_addon export --env x" and not args.repair


def test_a_worker_gets_its_share_and_the_repair_flag(tmp_path):
    args = build_parser().parse_args(export_argv(CONFIGS[0], tmp_path, command="c", max_frames=100, repair=True,
                                                 recycle_every=0))
    assert (args.max_frames, args.repair, args.recycle_every) == (100, True, 0)
    shard = build_parser().parse_args(export_argv(CONFIGS[0], tmp_path, command="c", recycle_every=50))
    assert (shard.max_frames, shard.recycle_every) == (None, 50)


def test_the_process_runs_this_package_in_this_python_or_a_blender_binary():
    python = export_process(["version"])
    assert python[1] == "-c" and "realitybench_addon.__main__" in python[2] and "['version']" in python[2]
    blender = export_process(["version"], blender="/usr/bin/blender")
    assert blender[:5] == ["/usr/bin/blender", "-b", "--factory-startup", "--python-exit-code", "1"]
    assert blender[-1] == python[2]


def test_the_process_really_runs(tmp_path):
    import json
    import subprocess

    done = subprocess.run(export_process(["version"]), capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["realitybench"]

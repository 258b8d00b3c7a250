"""Shared fixtures. Standard library and pytest only: no bpy import at collection time."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def _drop_bpy_colour_config(event: str, _args) -> None:
    """The bpy 5.x wheel, once imported, sets OCIO in the C environment (not in os.environ) to its
    own colour config, so every child process inherits it: Debian's Blender 3.4 and the 4.5 wheel
    cannot read that config (OCIO 2.5) and fail, and 5.x children log 'Using OCIO=' on stdout. A test
    that starts a process gets the environment the session started with (unless it set OCIO itself)."""
    if event in ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec") and "OCIO" not in os.environ:
        os.unsetenv("OCIO")


sys.addaudithook(_drop_bpy_colour_config)


def _hypothesis_runs_the_same_cases_everywhere() -> None:
    """Every property test draws the same cases on every machine: derandomized, no example database (a database
    left by an earlier local run would replay cases CI never sees, and CI's fresh one would differ again).
    A test's own settings(...) inherit this profile and override only what they name."""
    try:
        from hypothesis import settings
    except ImportError:  # the Debian Blender's test modules run without Hypothesis
        return
    settings.register_profile("realitybench", derandomize=True, database=None, deadline=None, print_blob=True)
    settings.load_profile("realitybench")


_hypothesis_runs_the_same_cases_everywhere()


def pytest_collection_modifyitems(config, items):
    """The longest files first, the other Blender lines' file last: their suites run beside everything before it,
    and under xdist (`-n 2 --dist loadfile`) the worker that waits for them gets that file only when the rest is
    handed out."""
    from blender_lines import LINE_FILE, LONGEST_FILES

    def place(item):
        path = item.nodeid.split("::")[0]
        return (path == LINE_FILE, LONGEST_FILES.index(path) if path in LONGEST_FILES else len(LONGEST_FILES))

    items.sort(key=place)  # stable: the tests of a file keep their order


def _start_lines(config, nodeids) -> None:
    """Start the suites of the other Blender lines whose checks (tests/test_blender_lines.py) are among `nodeids`,
    once per session, as soon as collection ends: they run beside this suite's other tests, on the cores it leaves
    idle."""
    from blender_lines import LINE_DIR, LINE_RUNS, selected_lines

    if LINE_RUNS in config.stash or config.option.collectonly:
        return
    lines = selected_lines(nodeids)
    config.stash[LINE_RUNS] = {}
    if lines:
        from test_blender_lines import start_line_runs

        if LINE_DIR not in config.stash:
            config.stash[LINE_DIR] = Path(tempfile.mkdtemp(prefix="rb_lines_"))
        config.stash[LINE_RUNS] = start_line_runs(config.stash[LINE_DIR], lines)


def pytest_collection_finish(session):
    if not hasattr(session.config, "workerinput"):  # in an xdist worker, its controller starts them (below)
        _start_lines(session.config, [item.nodeid for item in session.items])


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist's controller, before a worker starts: the folder the line runs write to, which the line checks read."""
    from blender_lines import LINE_DIR, LINE_DIR_WORKER_INPUT

    if LINE_DIR not in node.config.stash:
        node.config.stash[LINE_DIR] = Path(tempfile.mkdtemp(prefix="rb_lines_"))
    node.workerinput[LINE_DIR_WORKER_INPUT] = str(node.config.stash[LINE_DIR])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    _start_lines(node.config, ids)  # the first worker's collection: every worker collects the same tests


def pytest_runtest_logreport(report):
    """A failure is named on its own line the moment it is reported, with its last line of explanation: when a run
    is cut off (CI's time limit), the summary at the end never prints, and a bare 'F' among the dots names nothing.
    Under xdist the controller receives every worker's reports; a worker's own output is not shown."""
    if report.failed and "PYTEST_XDIST_WORKER" not in os.environ:
        crash = getattr(getattr(report.longrepr, "reprcrash", None), "message", "")
        last = crash or next((ln.strip() for ln in reversed(report.longreprtext.splitlines()) if ln.strip()), "")
        sys.stdout.write(f"\nFAILED {report.nodeid} ({report.when}): {' '.join(last.split())[:300]}\n")
        sys.stdout.flush()


def pytest_sessionfinish(session):
    from blender_lines import LINE_RUNS

    runs = session.config.stash.get(LINE_RUNS, None)
    if runs:
        from test_blender_lines import stop_line_runs

        stop_line_runs(runs)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "every_environment: a test of every registered environment (envs/registry.py); "
        "tests/test_adding_an_environment.py runs these on a copy with docs/adding-an-environment.md's example added")


@dataclass(frozen=True)
class ExtensionBuild:
    out_dir: Path
    output: str = field(repr=False)  # build.py's stdout and stderr
    # The committed blender_manifest.toml, before and after the build.
    manifest_before: bytes = field(repr=False)
    manifest_after: bytes = field(repr=False)


@pytest.fixture(scope="session")
def extension_build(tmp_path_factory) -> ExtensionBuild:
    """`python build.py --out <tmp>` once per session.

    The first build downloads the pillow wheels from PyPI into build/wheels/; later builds
    reuse them. A failed build (e.g. no network on the first run) fails the tests that use
    it, with build.py's message, rather than skipping them.
    """
    out_dir = tmp_path_factory.mktemp("dist")
    manifest = REPO_ROOT / "blender_manifest.toml"
    before = manifest.read_bytes()
    done = subprocess.run([sys.executable, "build.py", "--out", str(out_dir)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"build.py failed (exit {done.returncode}):\n{output}", pytrace=False)
    return ExtensionBuild(out_dir, output, before, manifest.read_bytes())


@pytest.fixture
def rated_set(tmp_path):
    """A small scored set (rating_support.HOSTILE_FRAMES) for the rating server's hostile and guard tests."""
    from rating_support import HOSTILE_FRAMES, make_scored_set

    return make_scored_set(tmp_path / "set", HOSTILE_FRAMES)


@pytest.fixture
def serve(rated_set):
    """serve(**server options) -> a started RatingServer over `rated_set`; every one stopped after the test."""
    from realitybench_addon.rating.server import RatingServer, RatingSession

    servers = []

    def start(**options):
        server = RatingServer(RatingSession(rated_set, stratum="all"), port=0, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()

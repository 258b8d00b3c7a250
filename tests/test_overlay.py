"""The viewport overlay's corner text names the failing terms by their labels (issue 39, item 6)."""
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import api  # noqa: E402
from realitybench_addon.ui import overlay  # noqa: E402


def test_the_corner_text_uses_labels_not_ids():
    api.build_frame("tape_gap", 0, 2)
    bpy.context.scene.camera.location.z += 30.0  # far above the tape: geometric terms fail
    bpy.context.view_layer.update()
    result = api.check_active("tape_gap", 0, 2, render=False, build=False)
    labels = {t["name"]: t["label"] for t in result["terms"]}
    failing = result["failing_terms"]
    assert result["verdict"] == "reject" and len(failing) >= 2
    text = overlay.verdict_text(result)
    assert text.startswith("RealityBench: REJECT  failing: ")
    for name in failing[:3]:
        assert labels[name] in text
    assert not any(name in text for name in failing if name not in labels[name])  # ids (with _) never shown
    if len(failing) > 3:
        assert text.endswith(f"(+{len(failing) - 3} more)")


def test_an_accepted_frame_says_so_alone():
    assert overlay.verdict_text({"verdict": "accept", "terms": [], "failing_terms": []}) == "RealityBench: ACCEPT"

"""The gauge display and the equipment labels as drawn (pure): what is drawn equals the ground truth,
and a real OCR engine and barcode reader read it back."""
import math
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from realitybench_addon.core import barcode
from realitybench_addon.core.equipment import KINDS, LABEL_SIZES, draw_label, label_texture
from realitybench_addon.core.gauge import (DIGIT_HEIGHT_M, display_texture, draw_gauge, gauge_tilt_deg,
                                           read_seven_segment)
from realitybench_addon.core.roof import draw_roof_plan


def roof(seed=0, **kw):
    return draw_roof_plan(np.random.default_rng(seed), **kw)


# --- the gauge -------------------------------------------------------------------------------------

@pytest.mark.parametrize("pitch, yaw, expected", [(30.0, 0.0, 30.0), (30.0, 90.0, 0.0), (30.0, 60.0, 14.4775),
                                                  (26.565, 45.0, 18.4349), (45.0, -30.0, 37.7612)])
def test_a_yawed_gauge_reads_the_tilt_of_its_own_axis(pitch, yaw, expected):
    # asin(cos(yaw) sin(pitch)): e.g. 30 deg pitch, 60 deg yaw -> asin(0.5 * 0.5) = 14.4775 deg
    assert gauge_tilt_deg(pitch, yaw) == pytest.approx(expected, abs=1e-3)


def test_gauge_reading_is_the_tilt_of_its_long_axis_vector_rounded():
    """Independent of the formula: the axis vector in world coordinates, its angle to the horizontal."""
    for seed in range(40):
        plan = roof(seed)
        gauge = draw_gauge(plan, np.random.default_rng(seed))
        along, _ = gauge.axes_uvh()
        axis = plan.frame.axes @ along
        tilt = math.degrees(math.asin(abs(axis[2]) / np.linalg.norm(axis)))
        assert gauge.reading_deg == round(tilt, 1)
        assert gauge.reading_deg <= plan.pitch_deg + 0.05
        assert gauge.on_module == (gauge.placement in ("glass", "frame"))


def test_gauge_placements_and_yaws_cover_the_spec():
    gauges = [draw_gauge(roof(s), np.random.default_rng(100 + s)) for s in range(300)]
    shares = {p: sum(g.placement == p for g in gauges) / len(gauges) for p in ("glass", "frame", "roof")}
    assert 0.6 < shares["glass"] < 0.8 and 0.08 < shares["frame"] < 0.22 and 0.08 < shares["roof"] < 0.22
    yaws = np.abs([g.yaw_deg for g in gauges])
    assert 0.6 < np.mean(yaws < 15) < 0.9  # mostly aligned
    assert yaws.max() <= 60.0 and np.mean((yaws > 15) & (yaws < 45)) > 0.08  # some in the gray zone


def test_gauge_on_glass_lies_inside_its_module():
    for seed in range(60):
        plan = roof(seed)
        gauge = draw_gauge(plan, np.random.default_rng(seed))
        if gauge.placement != "glass":
            continue
        row, col = gauge.module
        u0, v0 = plan.module_origin(row, col)
        assert u0 < gauge.u < u0 + plan.module_width_m and v0 < gauge.v < v0 + plan.module_length_m
        assert gauge.h == pytest.approx(plan.module_bottom_h + plan.module_thickness_m - 0.002)


@pytest.mark.parametrize("text", ["0.0", "7.1", "18.4", "26.6", "39.8", "45.0"])
def test_display_shows_the_reading(text):
    image, layout = display_texture(text)
    assert read_seven_segment(image, layout) == text
    digit_px = layout.digit_height_m * 1000 * layout.px_per_mm
    tall = [b for b in layout.glyph_boxes_px if b[3] - b[1] > 0.5 * digit_px]
    assert all(b[3] - b[1] == pytest.approx(DIGIT_HEIGHT_M * 1000 * layout.px_per_mm) for b in tall)
    # a digit drawn with its top and bottom bars (0, 2, 3, 5, 6, 8, 9) spans the layout's digit height in ink
    dark = np.asarray(image, float).mean(axis=2) < 100
    digits = [c for c in text if c != "."]
    for c, b in zip(digits, tall):
        if c in "0235689":
            rows = np.nonzero(dark[:, int(b[0]):int(b[2])].any(axis=1))[0]
            assert rows.max() - rows.min() + 1 == pytest.approx(digit_px, abs=2)


def test_display_rejects_what_seven_segments_cannot_show():
    with pytest.raises(ValueError, match="cannot show"):
        display_texture("2A.5")


# --- equipment labels ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_label_draws_its_ground_truth(kind):
    for seed in range(10):
        label = draw_label(kind, np.random.default_rng(seed))
        image, layout = label_texture(label)
        assert layout.text_of("brand") == label.brand
        assert layout.text_of("model") == label.model
        assert layout.text_of("serial") == label.serial
        assert layout.barcode_data == label.serial
        assert layout.row_pitch_m == LABEL_SIZES[kind].row_pitch_m
        # every row fits the label, rows do not overlap, the barcode sits between serial and ratings
        h, w = image.shape[:2]
        boxes = [r.box_px for r in layout.rows]
        assert all(0 <= b[0] and b[2] <= w and 0 <= b[1] and b[3] <= h for b in boxes)
        assert all(a[3] <= b[1] + 1 for a, b in zip(boxes[1:], boxes[2:]))
        serial = next(r for r in layout.rows if r.role == "serial")
        assert serial.box_px[3] < layout.barcode_box_px[1]
        # rows are one pitch apart, as the px-per-row term assumes
        model = next(r for r in layout.rows if r.role == "model")
        pitch_px = LABEL_SIZES[kind].row_pitch_m * 1000 * layout.px_per_mm
        assert serial.baseline_px - model.baseline_px == pytest.approx(pitch_px)
        assert layout.barcode_box_px[2] - layout.barcode_box_px[0] == pytest.approx(
            barcode.symbol_width_modules(label.serial) * LABEL_SIZES[kind].bar_module_m * 1000 * layout.px_per_mm)


def test_label_formats():
    for seed in range(30):
        module = draw_label("module", np.random.default_rng(seed))
        assert module.serial[:2] == module.model[:2] and len(module.serial) == 13 and module.serial[2:].isdigit()
        micro = draw_label("microinverter", np.random.default_rng(seed))
        assert micro.serial.isdigit() and len(micro.serial) == 12
        inverter = draw_label("inverter", np.random.default_rng(seed))
        assert len(inverter.serial) == 13 and inverter.serial[2:12].isdigit()
    with pytest.raises(ValueError, match="unknown equipment kind"):
        draw_label("battery", np.random.default_rng(0))


def test_label_is_deterministic():
    a = label_texture(draw_label("inverter", np.random.default_rng(5)))
    b = label_texture(draw_label("inverter", np.random.default_rng(5)))
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]


def _crop(image, box, pad):
    x0, y0, x1, y1 = box
    h, w = image.shape[:2]
    return image[max(0, int(y0 - pad)):min(h, int(y1 + pad)), max(0, int(x0 - pad)):min(w, int(x1 + pad))]


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr is not installed (apt)")
@pytest.mark.parametrize("kind", KINDS)
def test_ocr_reads_model_and_serial_off_the_label(kind, tmp_path):
    label = draw_label(kind, np.random.default_rng(3))
    image, layout = label_texture(label)
    for role, expected in (("model", label.model), ("serial", label.serial)):
        row = next(r for r in layout.rows if r.role == role)
        path = tmp_path / f"{role}.png"
        Image.fromarray(_crop(image, row.box_px, 20)).save(path)
        text = subprocess.run(["tesseract", str(path), "-", "--psm", "7"], capture_output=True, text=True,
                              check=True).stdout
        read = "".join(c for c in text.upper() if c.isalnum())
        assert "".join(c for c in expected if c.isalnum()) in read, (role, text)


def test_barcode_on_the_label_decodes_to_the_serial():
    pyzbar = pytest.importorskip("pyzbar.pyzbar", reason="pyzbar / libzbar0 not installed")
    for kind in KINDS:
        label = draw_label(kind, np.random.default_rng(11))
        image, layout = label_texture(label)
        crop = _crop(image, layout.barcode_box_px, 40)
        found = pyzbar.decode(Image.fromarray(crop))
        assert [r.data.decode() for r in found] == [label.serial]

"""Issue 41, the RO board: a used dry-erase board (core/board_wear.py): ghosts of earlier writing wiped
sideways, a film of wiping swirls and grime under the thumbs; never over the writing the terms measure, so the
writing reads as it did. A blind panel's words for the clean board: "perfectly clean and flat with uniform
lighting", "no paper texture or wear"."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from realitybench_addon.core import board_wear
from realitybench_addon.core.ro_board import board_texture, draw_board

WRITTEN = ("ro", "vin", "date")


def _board(seed: int):
    return draw_board(np.random.default_rng(seed), (0.0, 0.0), 30.0, "front")


def _paper_ratio(board):
    """(worn / unworn on paper pixels, or nan on ink; the layout): what the wear did to the board's white."""
    worn, layout = board_texture(board)
    clean, same = board_texture(board, worn=False)
    assert same == layout  # the wear moves nothing that is measured
    lum_worn, lum_clean = worn.astype(float).mean(axis=2), clean.astype(float).mean(axis=2)
    return np.where(lum_clean > 150.0, lum_worn / np.maximum(lum_clean, 1.0), np.nan), layout


def _grown(box, shape, margin_px):
    x0, y0, x1, y1 = box
    h, w = shape
    return (slice(max(0, int(y0 - margin_px)), min(h, int(y1 + margin_px) + 1)),
            slice(max(0, int(x0 - margin_px)), min(w, int(x1 + margin_px) + 1)))


# the most the film and the two thumbs' grime can darken together; a ghost would darken far more (GHOST_OPACITY)
FILM_AND_GRIME = (1 - board_wear.HAZE_DARKENING[1]) * (1 - board_wear.SMUDGE_DARKENING[1]) ** 2 - 0.01


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 31 - 2))
def test_no_ghost_lies_on_the_written_rows(seed):
    ratio, layout = _paper_ratio(_board(seed))
    margin = board_wear.GHOST_CLEAR_MM * layout.px_per_mm
    for role in WRITTEN:
        region = ratio[_grown(layout.row(role).box_px, ratio.shape, margin)]
        assert np.nanmin(region) >= FILM_AND_GRIME, (role, np.nanmin(region))


def test_ghosts_film_and_grime_are_left_between_the_rows():
    darkest = []
    for seed in range(20):
        ratio, _ = _paper_ratio(_board(seed))
        assert np.nanmax(ratio) <= 1.0 + 1 / 150 and np.nanmin(ratio) > 0.4  # a ghost is faint
        darkest.append(np.nanmin(ratio))
        film = ratio[np.isfinite(ratio)]
        assert np.percentile(film, 95) - np.percentile(film, 5) > 0.01  # the white is not one even tone
    assert np.mean(np.array(darkest) < FILM_AND_GRIME) >= 0.8  # most boards show an erased ghost


def test_the_writing_keeps_its_contrast():
    """The texture's own Weber contrast of each written row, worn against clean: within 3 %."""
    for seed in range(12):
        board = _board(seed)
        worn, layout = board_texture(board)
        clean, _ = board_texture(board, worn=False)
        for role in WRITTEN:
            box = _grown(layout.row(role).box_px, worn.shape[:2], 0)
            contrast = []
            for image in (worn, clean):
                lum = image[box].astype(float).mean(axis=2)
                paper, ink = np.percentile(lum, 90), np.percentile(lum, 5)
                contrast.append((paper - ink) / paper)
            assert contrast[0] == pytest.approx(contrast[1], rel=0.03), (seed, role, contrast)


def test_the_wear_is_the_boards_own():
    a, b = board_texture(_board(3))[0], board_texture(_board(3))[0]
    assert np.array_equal(a, b)
    assert not np.array_equal(a, board_texture(_board(4), worn=False)[0])
    # the writing's draws are as before the wear: the clean texture is what the hand wrote
    worn, layout = board_texture(_board(3))
    assert layout.text_of("vin") == _board(3).vin


"""The phone view's pictures (`api.phone_view`, `api.picture_preview`; shown by ui/phone_view.py): Blender images
composed from the phone's JPEG and the target's mask (`core.phone_view` draws, `bl.image_pixels` reads and
writes), and previews of exported JPEGs. User errors raise RealityBenchError (PhoneViewError), one line."""
from __future__ import annotations

import os
from typing import Optional, Sequence

NAMES = ("RealityBench Phone Frame", "RealityBench Target Mask", "RealityBench Phone View")


def phone_view(image_path: str | os.PathLike, mask_path: Optional[str | os.PathLike] = None,
               regions: Sequence[str] = (), *, names: Sequence[str] = NAMES):
    """The phone view of a render: the JPEG as the phone saved it and the target's mask PNG loaded as Blender
    images named `names[0]` and `names[1]`, composed into the generated image `names[2]` (target tinted and
    outlined magenta; each of `regions`, "target" or a mask PNG's path where a failing term fails, red) with
    its preview. Returns (that image, the target's pixels at the frame's size). A missing or unreadable
    picture, or a mask of another frame, raises RealityBenchError."""
    from .bl.image_pixels import compose_phone_view

    return compose_phone_view(image_path, mask_path, regions, *names)


def picture_preview(path: str | os.PathLike):
    """An image file (an exported JPEG) as a Blender image with its preview made at once (headless too); its
    full-size pixels are freed. A missing or unreadable file raises RealityBenchError."""
    from .bl.image_pixels import load_with_preview

    return load_with_preview(path)

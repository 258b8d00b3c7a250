"""Materials and objects of a person (core/person.py): skin that scatters light under its surface, with a faint
sheen and roughness variation, heathered fabric with creases and a weave bump, an evenly dyed fluorescent hi-vis
vest with dull silver retro-reflective tape, scuffed leather boots, nitrile or work gloves, hair and a cap.
Smooth shaded."""
from __future__ import annotations

import numpy as np

from ..core.face_tint import BROW_ATTRIBUTE, TINT_ATTRIBUTE
from ..core.person import HAIR, Look
from . import compat
from . import materials as mats
from .meshes import mesh_object
from .material_cache import reused


def _set(bsdf, names: tuple[str, ...], value) -> None:
    """Set the first of `names` the Principled BSDF has (sheen and coat sockets differ between 3.x and 4.x)."""
    for name in names:
        if name in bsdf.inputs:
            bsdf.inputs[name].default_value = value
            return


def _sheen(bsdf, weight: float, color) -> None:
    """A sheen at `weight` (cloth, skin, hair), tinted by the material's own colour. 4.x's sheen is a white
    microfibre layer by default: at 0.4 it lit dark trousers with a glowing rim ("fuzzy glowing clothes", a blind
    panel of 2026-12-07). 3.x takes a share of tint toward the base colour."""
    _set(bsdf, ("Sheen Weight", "Sheen"), weight)
    tint = bsdf.inputs.get("Sheen Tint")
    if tint is not None:
        tint.default_value = (*color, 1.0) if hasattr(tint.default_value, "__len__") else 1.0


def _object_noise(nodes, links, scale: float, detail: float = 2.0):
    return mats.noise_fac(nodes, links, nodes.new("ShaderNodeTexCoord").outputs["Object"], scale, detail)


def _stretched_noise(nodes, links, stretch, scale: float, detail: float):
    """A noise over object coordinates scaled by `stretch` per axis (0.3 along z: features 3x longer up and down)."""
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    return mats.noise_fac(nodes, links, mats.scaled_vector(nodes, links, coord, stretch), scale, detail)


def _creased_bump(nodes, links, bsdf, creases, crease: tuple[float, float], fine, grain: tuple[float, float]):
    """The BSDF's normal: a fine bump (`fine`, (strength, distance) `grain`) laid over coarse creases."""
    crease_bump = mats.bump_normal(nodes, links, bsdf, creases, *crease)
    fine_bump = mats.bump_normal(nodes, links, bsdf, fine, *grain)
    links.new(crease_bump.outputs["Normal"], fine_bump.inputs["Normal"])


def _tinted(nodes, links, color, socket, spread: float):
    """The colour scaled by 1 -/+ spread as `socket` goes 0..1 (mottling), as a colour socket."""
    ramp = mats.color_ramp(nodes, links, socket, [(0.2, tuple(c * (1 - spread) for c in color)),
                                                  (0.8, tuple(min(c * (1 + spread), 1.0) for c in color))])
    return ramp.outputs["Color"]


# Light enters skin and leaves it a few millimetres away, red light farthest: the soft, warm shading that tells
# skin from painted plaster ("a smooth mannequin"). Mean free paths of skin, red, green, blue (m).
SKIN_SCATTER_RADIUS_M = (0.0036, 0.0014, 0.0007)
# Christensen-Burley's profile, not a random walk: the body's nose and ears are thin shells, and a walk that
# leaves through the far side lit the nose's tip as a white blob (2026-12-07).
SKIN_SCATTER_METHOD = "BURLEY"


# What the face's regions (core/face_tint: flush, shadow, stubble) do to the skin's colour: a flush multiplies
# it toward red, a shadow darkens it, stubble is dark hair stumps (under 0.5 mm: dots) over a grey-blue cast.
FLUSH_RGB = (1.12, 0.9, 0.9)
SHADOW_RGB = (0.8, 0.76, 0.8)
STUBBLE_RGB = (0.6, 0.6, 0.66)  # the cast, as a factor on the skin
STUBBLE_DOTS_PER_M = 2500.0


def _point_vector(nodes, links, name: str):
    """The X, Y, Z of a point attribute (0 where a mesh has none)."""
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_name = name
    parts = nodes.new("ShaderNodeSeparateXYZ")
    links.new(attr.outputs["Vector"], parts.inputs[0])
    return tuple(parts.outputs[k] for k in ("X", "Y", "Z"))


BROW_HAIRS_PER_M = 1800.0  # a brow's hairs as a fine mottling, so its colour is not one flat ink


def _face_regions(nodes, links, tone, brow_color):
    """The tone with core/face_tint's regions (the TINT_ATTRIBUTE and BROW_ATTRIBUTE point attributes)."""
    flush, shadow, stubble = _point_vector(nodes, links, TINT_ATTRIBUTE)
    tone = mats.mix_rgb(nodes, links, flush, tone, _times(nodes, links, tone, FLUSH_RGB))
    tone = mats.mix_rgb(nodes, links, shadow, tone, _times(nodes, links, tone, SHADOW_RGB))
    stumps = mats.map_range(nodes, links, _object_noise(nodes, links, STUBBLE_DOTS_PER_M, 1.0), 0.45, 0.6, 0.55,
                            1.0)
    shaved = mats.scaled_color(nodes, links, _times(nodes, links, tone, STUBBLE_RGB), stumps)
    tone = mats.mix_rgb(nodes, links, stubble, tone, shaved)
    brows = _point_vector(nodes, links, BROW_ATTRIBUTE)[0]
    hairs = mats.map_range(nodes, links, _object_noise(nodes, links, BROW_HAIRS_PER_M, 2.0), 0.35, 0.65, 0.55, 1.0)
    return mats.mix_rgb(nodes, links, mats.math_node(nodes, links, "MULTIPLY", brows, hairs), tone, brow_color)


def _times(nodes, links, color, rgb):
    """The colour socket times a constant RGB, per channel."""
    product = nodes.new("ShaderNodeVectorMath")
    product.operation = "MULTIPLY"
    links.new(color, product.inputs[0])
    product.inputs[1].default_value = rgb
    return product.outputs["Vector"]


@reused
def skin_material(name: str, color, brow_color=(0.02, 0.015, 0.01)):
    """Skin: blotchy tone and roughness (oilier and redder in places), the face's flush, shadows, stubble and
    brows (`_face_regions`), a faint sheen, a pore-scale bump, and light scattered under the surface
    (SKIN_SCATTER_RADIUS_M)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    blotch = _object_noise(nodes, links, 40.0, 3.0)
    tone = _face_regions(nodes, links, _tinted(nodes, links, color, blotch, 0.08), brow_color)
    links.new(tone, compat.principled_input(bsdf, "Base Color"))
    _set(bsdf, ("Subsurface Weight", "Subsurface"), 1.0)
    bsdf.inputs["Subsurface Radius"].default_value = SKIN_SCATTER_RADIUS_M
    if "Subsurface Scale" in bsdf.inputs:  # 4.x: the radius is scaled by this; 3.x takes it in metres
        bsdf.inputs["Subsurface Scale"].default_value = 1.0
    bsdf.subsurface_method = SKIN_SCATTER_METHOD
    if "Subsurface Color" in bsdf.inputs:  # 3.x scatters its own colour
        links.new(tone, bsdf.inputs["Subsurface Color"])
    rough = mats.map_range(nodes, links, _object_noise(nodes, links, 25.0), 0.0, 1.0, 0.38, 0.62)
    links.new(rough, compat.principled_input(bsdf, "Roughness"))
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.35
    _sheen(bsdf, 0.15, color)
    mats.bump_normal(nodes, links, bsdf, _object_noise(nodes, links, 600.0, 1.0), 0.04, 0.001)
    mat.diffuse_color = (*color, 1.0)
    return mat


FABRIC_SHEEN = 0.15  # a soft sheen along the folds, in the cloth's colour (was 0.4, white: a glowing rim)
HEATHER_PER_M, HEATHER_SPREAD = 350.0, 0.16  # yarn flecks 2-3 mm (a pixel or two at 2 m), colour x 0.84..1.16
CREASE_PER_M, CREASE_STRENGTH = 9.0, 0.35  # creases some 5-10 cm apart
CREASE_STRETCH = (1.0, 1.0, 0.3)  # ... and three times longer down the garment than across it
CREASE_LABEL = "fabric creases"


@reused
def fabric_material(name: str, color, roughness: float = 0.85, weave_per_m: float = 2000.0, strength: float = 0.08,
                    heather_spread: float = HEATHER_SPREAD):
    """Cloth: a heathered yarn colour (fine light and dark flecks) over a slight mottling; creases that run mostly
    down the garment (a noise stretched along z) as a bump, with a twill-like weave (two crossing bands) as a
    finer bump on top; a sheen along the folds. A smooth colour and a weave finer than a pixel read as clay."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    weave = []
    for direction in ("X", "Y"):
        wave = nodes.new("ShaderNodeTexWave")
        wave.bands_direction = direction
        wave.inputs["Scale"].default_value = weave_per_m / 10.0
        links.new(coord, wave.inputs["Vector"])
        weave.append(wave.outputs["Fac"])
    mottled = _tinted(nodes, links, color, _object_noise(nodes, links, 12.0), 0.1)
    heather = mats.map_range(nodes, links, mats.noise_fac(nodes, links, coord, HEATHER_PER_M, 6.0), 0.3, 0.7,
                             1.0 - heather_spread, 1.0 + heather_spread)
    links.new(mats.scaled_color(nodes, links, mottled, heather), compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = roughness
    compat.principled_input(bsdf, "Specular IOR Level").default_value = 0.3
    _sheen(bsdf, FABRIC_SHEEN, color)
    creases = _stretched_noise(nodes, links, CREASE_STRETCH, CREASE_PER_M, 3.0)
    creases.node.label = CREASE_LABEL
    weave_height = mats.math_node(nodes, links, "MULTIPLY", *weave)
    _creased_bump(nodes, links, bsdf, creases, (CREASE_STRENGTH, 0.01), weave_height, (strength, 0.002))
    mat.diffuse_color = (*color, 1.0)
    return mat


# Hi-vis polyester is dyed in one bath: its colour hardly varies (the shirts' heather read on a vest as "tennis
# ball felt", 2026-12-07); its knit is a fine mesh.
HI_VIS_HEATHER = 0.03
STRIPE_RGB = (0.42, 0.43, 0.44)


@reused
def hi_vis_material(name: str, color):
    """Fluorescent vest fabric: as saturated and bright as a pigment gets, one even colour, a fine knit. No
    emission: an emissive mesh turns into a light Cycles samples at every shading point (render time), for a
    glow the eye barely sees."""
    return fabric_material(name, color, roughness=0.7, weave_per_m=2400.0, strength=0.1,
                           heather_spread=HI_VIS_HEATHER)


@reused
def reflective_stripe_material(name: str):
    """Retro-reflective tape: a flat silver-grey with a dull sheen (its glass beads send light back toward the
    light, not into a mirror image: at 0.6 metallic and 0.3 roughness the band shone like a chrome tube), the
    beads' grain as a fine bump."""
    mat, nodes, links, bsdf = mats.new_material(name)
    compat.principled_input(bsdf, "Base Color").default_value = (*STRIPE_RGB, 1.0)
    compat.principled_input(bsdf, "Roughness").default_value = 0.5
    compat.principled_input(bsdf, "Metallic").default_value = 0.3
    mats.bump_normal(nodes, links, bsdf, _object_noise(nodes, links, 800.0, 1.0), 0.15, 0.001)
    mat.diffuse_color = (*STRIPE_RGB, 1.0)
    return mat


SCUFF_COLOR = (0.23, 0.2, 0.16)  # dry dust and scuffed grain on a work boot
SOLE_RGB = (0.032, 0.03, 0.028)  # worn rubber, dusty and matte: a shade lighter than black leather


@reused
def leather_material(name: str, color):
    """Boot leather: a mottled, half-glossy grain with creases, and scuffs of dust in patches (rougher there)."""
    mat, nodes, links, bsdf = mats.new_material(name)
    mottled = _tinted(nodes, links, color, _object_noise(nodes, links, 30.0), 0.2)
    scuffs = mats.map_range(nodes, links, _object_noise(nodes, links, 18.0, 6.0), 0.55, 0.7, 0.0, 0.7)
    links.new(mats.mix_rgb(nodes, links, scuffs, mottled, SCUFF_COLOR), compat.principled_input(bsdf, "Base Color"))
    rough = mats.map_range(nodes, links, _object_noise(nodes, links, 60.0), 0.0, 1.0, 0.42, 0.65)  # worn, not polished
    links.new(mats.math_node(nodes, links, "MAXIMUM", rough, mats.math_node(nodes, links, "ADD", scuffs, 0.2)),
              compat.principled_input(bsdf, "Roughness"))
    creases = _stretched_noise(nodes, links, (1.0, 1.0, 3.0), 40.0, 3.0)  # round the boot: creases across it
    _creased_bump(nodes, links, bsdf, creases, (0.3, 0.004), _object_noise(nodes, links, 300.0, 2.0), (0.1, 0.002))
    mat.diffuse_color = (*color, 1.0)
    return mat


def glove_material(name: str, look: Look):
    if look.gloves == "work":
        return fabric_material(name, look.glove_color, roughness=0.9, weave_per_m=1200.0, strength=0.3)
    mat, nodes, links, bsdf = mats.new_material(name)  # nitrile: a thin, semi-glossy rubber
    compat.principled_input(bsdf, "Base Color").default_value = (*look.glove_color, 1.0)
    rough = mats.map_range(nodes, links, _object_noise(nodes, links, 80.0), 0.0, 1.0, 0.3, 0.45)
    links.new(rough, compat.principled_input(bsdf, "Roughness"))
    mat.diffuse_color = (*look.glove_color, 1.0)
    return mat


@reused
def hair_material(name: str, color):
    """Short hair: strands as fine bands running front to back, a sheen."""
    mat, nodes, links, bsdf = mats.new_material(name)
    coord = nodes.new("ShaderNodeTexCoord").outputs["Object"]
    strands = nodes.new("ShaderNodeTexWave")
    strands.bands_direction = "Y"
    strands.inputs["Scale"].default_value = 150.0
    strands.inputs["Distortion"].default_value = 4.0
    links.new(coord, strands.inputs["Vector"])
    links.new(_tinted(nodes, links, color, strands.outputs["Fac"], 0.3), compat.principled_input(bsdf, "Base Color"))
    compat.principled_input(bsdf, "Roughness").default_value = 0.5
    _sheen(bsdf, 0.3, color)
    mats.bump_normal(nodes, links, bsdf, strands.outputs["Fac"], 0.3, 0.002)
    mat.diffuse_color = (*color, 1.0)
    return mat


LIP_TINT = (0.9, 0.6, 0.58)  # the lips: the skin's colour, redder and darker


def person_materials(prefix: str, look: Look, keys) -> dict:
    """Material key (core/person.person_parts) -> material, for the keys given (what the person wears)."""
    brows = tuple(0.6 * c for c in HAIR[0 if sum(look.skin) < 0.6 else 1])
    makers = {"skin": lambda name: skin_material(name, look.skin, brows),
              "shirt": lambda name: fabric_material(name, look.shirt),
              "trousers": lambda name: fabric_material(name, look.trousers, roughness=0.9, weave_per_m=1500.0,
                                                       strength=0.18),
              "boots": lambda name: leather_material(name, look.boots),
              "vest": lambda name: hi_vis_material(name, look.vest),
              "stripe": reflective_stripe_material,
              "gloves": lambda name: glove_material(name, look),
              "cap": lambda name: fabric_material(name, look.hair_or_cap, roughness=0.8, weave_per_m=1500.0),
              "hair": lambda name: hair_material(name, look.hair_or_cap),
              "eyes": lambda name: mats.principled(name, (0.025, 0.018, 0.014), roughness=0.15, specular=0.6),
              "lips": lambda name: skin_material(name, tuple(c * k for c, k in zip(look.skin, LIP_TINT))),
              "nails": lambda name: mats.principled(name, tuple(min(1.0, 1.15 * c + 0.12) for c in look.skin),
                                                    roughness=0.25, specular=0.5),
              "soles": lambda name: mats.principled(name, SOLE_RGB, roughness=0.85),
              "sclera": lambda name: mats.principled(name, (0.55, 0.5, 0.46), roughness=0.2, specular=0.5)}
    return {key: makers[key](f"{prefix}_{key}") for key in keys}


def build_person_object(name: str, meshes: list, collection, material, point_vectors=None):
    """One smooth-shaded object from a list of (vertices, triangles); `point_vectors` (name -> (V, 3)) over the
    meshes' vertices in order."""
    verts, tris, offset = [], [], 0
    for v, t in meshes:
        verts.append(np.asarray(v))
        tris.append(np.asarray(t) + offset)
        offset += len(v)
    return mesh_object(name, np.concatenate(verts), np.concatenate(tris), collection, materials=[material],
                       point_vectors=point_vectors, smooth=True)

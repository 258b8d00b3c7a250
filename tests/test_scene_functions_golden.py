"""Golden digests of the pure scene functions in core/ (surroundings, roof, person, vehicle geometry and
details): every array, number and string they return, bit for bit, for a spread of seeds and options,
and the generator's state after the call. A refactor of these functions must leave every digest as it
was; a change meant to alter the scenes regenerates the table (and says so in its commit):

    .venv/bin/python tests/test_scene_functions_golden.py   # prints GOLDEN for the current code
"""
from __future__ import annotations

import dataclasses
import hashlib
import sys

import numpy as np
import pytest

from realitybench_addon.core.person import draw_look, person_parts
from realitybench_addon.core.ro_board import board_grips, draw_board, technician_look
from realitybench_addon.core.roof import draw_roof_plan
from realitybench_addon.core.surroundings import draw_surroundings
from realitybench_addon.core.vehicle import BODY_STYLES, draw_vehicle
from realitybench_addon.core.vehicle_details import add_details
from realitybench_addon.core.vehicle_geometry import vehicle_geometry
from realitybench_addon.core.vehicle_loft import PartBuilder, Profile
from realitybench_addon.core.vehicle_panels import door_seams, side_zones


def _feed(h, obj) -> None:
    """Feed `obj` into the hash exactly: arrays by dtype, shape and bytes; floats by repr; containers in order."""
    h.update(type(obj).__name__.encode() + b"|")
    if isinstance(obj, np.ndarray):
        h.update(f"{obj.dtype}{obj.shape}".encode())
        h.update(np.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, np.generic):
        h.update(str(obj.dtype).encode() + obj.tobytes())
    elif obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        h.update(repr(obj).encode())
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _feed(h, k)
            _feed(h, v)
    elif isinstance(obj, (list, tuple)):
        h.update(str(len(obj)).encode())
        for v in obj:
            _feed(h, v)
    elif isinstance(obj, (set, frozenset)):
        h.update(repr(sorted(map(repr, obj))).encode())
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            h.update(f.name.encode())
            _feed(h, getattr(obj, f.name))
    elif hasattr(obj, "__dict__"):
        _feed(h, dict(vars(obj)))
    else:
        raise TypeError(f"cannot digest {type(obj)}")
    h.update(b";")


def digest(*objs) -> str:
    h = hashlib.sha256()
    for obj in objs:
        _feed(h, obj)
    return h.hexdigest()[:16]


def _surroundings(seed: int, radius: float) -> str:
    rng = np.random.default_rng(seed)
    return digest(draw_surroundings(rng, radius), rng.bit_generator.state)


ROOF_OPTIONS = ({}, {"partial_install_share": 0.3}, {"partial_install_share": 1.0},
                {"partial_install_share": 0.3, "touching_share": 0.2},
                {"lag_missing_share": 0.9, "flashing_missing_share": 0.9, "touching_share": 1.0,
                 "min_installed_cols": 2})


def _roof(seed: int, option: int) -> str:
    rng = np.random.default_rng(seed)
    return digest(draw_roof_plan(rng, **ROOF_OPTIONS[option]), rng.bit_generator.state)


def _person(seed: int) -> str:
    rng = np.random.default_rng(seed)
    face = ("front", "back")[seed % 2]
    board = draw_board(rng, (float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3))), float(rng.uniform(0, 360)), face)
    look = technician_look(board) if seed % 3 else draw_look(rng)
    return digest(person_parts(look, board.feet_xy, board.facing_deg, board_grips(board)), rng.bit_generator.state)


def _vehicle(seed: int, style: str) -> str:
    rng = np.random.default_rng(seed)
    plan = draw_vehicle(rng, style)
    return digest(vehicle_geometry.__wrapped__(plan), rng.bit_generator.state)


def _details(seed: int, style: str) -> str:
    plan = draw_vehicle(np.random.default_rng(seed), style)
    p = plan.profile
    seams = door_seams(p)
    b = PartBuilder()
    add_details(plan, Profile(p), seams, {side: side_zones(p, side, seams) for side in ("left", "right")}, b)
    return digest(b.data)


CASES = {
    **{f"surroundings/{seed}/{radius}": (_surroundings, seed, radius)
       for seed in range(12) for radius in (5.0, 9.5, 16.0)},
    **{f"roof/{seed}/{option}": (_roof, seed, option) for seed in range(8) for option in range(len(ROOF_OPTIONS))},
    **{f"person/{seed}": (_person, seed) for seed in range(30)},
    **{f"vehicle/{seed}/{style}": (_vehicle, seed, style) for seed in range(3) for style in BODY_STYLES},
    **{f"details/{seed}/{style}": (_details, seed, style) for seed in range(3, 6) for style in BODY_STYLES},
}

GOLDEN: dict[str, str] = {
    'surroundings/0/5.0': '6a272c0318a0394b',
    'surroundings/0/9.5': '5f595bef978d5e57',
    'surroundings/0/16.0': '7e4d2d2491b72441',
    'surroundings/1/5.0': '031d4854af68b52b',
    'surroundings/1/9.5': '8f73df8fb088eed1',
    'surroundings/1/16.0': '9c7d744bf54ec3c1',
    'surroundings/2/5.0': '5c3643c65ac2cdfc',
    'surroundings/2/9.5': '8176b7219ad00b41',
    'surroundings/2/16.0': '0fb45e3f26655dcb',
    'surroundings/3/5.0': '12936ca0b7fe6928',
    'surroundings/3/9.5': 'afffe8996b92975e',
    'surroundings/3/16.0': 'bb7811b811614975',
    'surroundings/4/5.0': '98469157c7c8c14e',
    'surroundings/4/9.5': '3ae150a115c9d51a',
    'surroundings/4/16.0': '9e50c4bc3884fce5',
    'surroundings/5/5.0': 'cc21788ace9a80d7',
    'surroundings/5/9.5': 'afc1e3fc03453999',
    'surroundings/5/16.0': '9c53a41a670b2255',
    'surroundings/6/5.0': 'a04bdb5fd97d60f3',
    'surroundings/6/9.5': 'bddd28a2f1d44e9b',
    'surroundings/6/16.0': '4d5ce191244a03b7',
    'surroundings/7/5.0': '7e95ea71bb010ce0',
    'surroundings/7/9.5': '63b32a7ef1670e5a',
    'surroundings/7/16.0': '5841a493ce730361',
    'surroundings/8/5.0': 'b5a40a070e565850',
    'surroundings/8/9.5': 'ac450be03ea5d4d4',
    'surroundings/8/16.0': '1167056fed0d523f',
    'surroundings/9/5.0': 'a06e765d1bc4aa91',
    'surroundings/9/9.5': 'cec8cf1458a24b19',
    'surroundings/9/16.0': '9eb5ea9946abb7a5',
    'surroundings/10/5.0': 'cfb166975da03745',
    'surroundings/10/9.5': '52e19794c9ea82a4',
    'surroundings/10/16.0': '53b9af26eb706da3',
    'surroundings/11/5.0': '2e54926140b13ca2',
    'surroundings/11/9.5': '37b0e0bf6041106a',
    'surroundings/11/16.0': '664594f42b627596',
    'roof/0/0': '4f1b1d5944ba023c',
    'roof/0/1': '4f1b1d5944ba023c',
    'roof/0/2': '4f1b1d5944ba023c',
    'roof/0/3': '4f1b1d5944ba023c',
    'roof/0/4': 'aff2f9a09c469b17',
    'roof/1/0': '4a4a275746ae19e6',
    'roof/1/1': '4a4a275746ae19e6',
    'roof/1/2': '4a4a275746ae19e6',
    'roof/1/3': '7c70c4a4a64273dc',
    'roof/1/4': '493758f474a82e4c',
    'roof/2/0': '8725feaf5bf0a1b1',
    'roof/2/1': 'de216904c238ca27',
    'roof/2/2': '8725feaf5bf0a1b1',
    'roof/2/3': 'de216904c238ca27',
    'roof/2/4': '593ab65d2c0ac265',
    'roof/3/0': 'de43ed34186a8cd8',
    'roof/3/1': 'de43ed34186a8cd8',
    'roof/3/2': '92f89fc7e80afc70',
    'roof/3/3': 'de43ed34186a8cd8',
    'roof/3/4': 'a82fbfe4e749386f',
    'roof/4/0': '12c2e24e243e4b83',
    'roof/4/1': '12c2e24e243e4b83',
    'roof/4/2': '12c2e24e243e4b83',
    'roof/4/3': '12c2e24e243e4b83',
    'roof/4/4': 'cfca55f57e40e6da',
    'roof/5/0': 'd9fb775993026c5b',
    'roof/5/1': 'd9fb775993026c5b',
    'roof/5/2': 'b407f963b4c76087',
    'roof/5/3': 'd9fb775993026c5b',
    'roof/5/4': '0048002118acfff9',
    'roof/6/0': '7fa8fb58344e902a',
    'roof/6/1': '7fa8fb58344e902a',
    'roof/6/2': '348e62dd375ca4d3',
    'roof/6/3': '7fa8fb58344e902a',
    'roof/6/4': 'e2fab202cfa98a53',
    'roof/7/0': '5800ae5614bc30aa',
    'roof/7/1': '5800ae5614bc30aa',
    'roof/7/2': 'a79789e53631ac90',
    'roof/7/3': '37da4d0f64a45e69',
    'roof/7/4': 'f70369271211b65c',
    'person/0': 'ab8ef0ea04eea959',
    'person/1': '10513898d98bc608',
    'person/2': 'c0481daeff5f3a6e',
    'person/3': '8f814e1967cabe1f',
    'person/4': '87248163d151e3a4',
    'person/5': '2ea146349b46ed9c',
    'person/6': '1975afc4720aaf88',
    'person/7': 'b4b170d478a099d9',
    'person/8': 'aa29e29eed01587a',
    'person/9': 'c922f81e696959b1',
    'person/10': 'bc98cf67ff075118',
    'person/11': 'c9248c106122366f',
    'person/12': 'de38d6c4151a0b6f',
    'person/13': '7874e4fe0b72087e',
    'person/14': 'c65461cdd9fee0cb',
    'person/15': '428105f972c98fdb',
    'person/16': 'ba72c92b7c46181b',
    'person/17': '89dd7360b5f34f40',
    'person/18': 'ba654dea00bafd56',
    'person/19': '322c2dd4f848b159',
    'person/20': '478f0a999148b97c',
    'person/21': '97359d64102fb823',
    'person/22': '665548c3e0fd378c',
    'person/23': 'b37e9c8bfd782812',
    'person/24': '5f4cc8131084857b',
    'person/25': '09939bbea494e59b',
    'person/26': 'b5252b94f6d5027c',
    'person/27': '5881cb428435da9b',
    'person/28': '0287bb656070d0bd',
    'person/29': '5692d58286a451d6',
    'vehicle/0/sedan': '694de2cb102e2bf3',
    'vehicle/0/suv': 'f99ad8b4cee1afa4',
    'vehicle/0/crossover': 'd179315cdea5e796',
    'vehicle/0/pickup': 'c0902eb09a968664',
    'vehicle/0/hatchback': '7aeffd935b0db792',
    'vehicle/0/coupe': '8ded5e3465023bc3',
    'vehicle/0/wagon': '5a5d01b5a5944293',
    'vehicle/0/minivan': '0db7acd198f4433c',
    'vehicle/0/van': '4f9d4d493ee9ed3e',
    'vehicle/0/convertible': '2cf74812fae45d87',
    'vehicle/1/sedan': '6cfde1fab43bc9b5',
    'vehicle/1/suv': 'edf605b9dcb0e6ef',
    'vehicle/1/crossover': 'add1c1a2344d1fba',
    'vehicle/1/pickup': 'a4928906d498195d',
    'vehicle/1/hatchback': 'a95cd0c5043b51bf',
    'vehicle/1/coupe': 'eecf5b39f47dadeb',
    'vehicle/1/wagon': 'e8e2c3dec105a0d3',
    'vehicle/1/minivan': '7274b29e8ace6810',
    'vehicle/1/van': 'f6e7d964247998cd',
    'vehicle/1/convertible': '79640541f99e0fe1',
    'vehicle/2/sedan': 'ecd4c30e41c4cc27',
    'vehicle/2/suv': 'b49605a12630a955',
    'vehicle/2/crossover': '6de2f27987a1d130',
    'vehicle/2/pickup': '21a1a73c3b456bb4',
    'vehicle/2/hatchback': '73cd55e70409cc6b',
    'vehicle/2/coupe': 'ed09a084d3521117',
    'vehicle/2/wagon': '76827ff81805ca62',
    'vehicle/2/minivan': '73378e8ee6d7ef57',
    'vehicle/2/van': 'acdad94d29bb7950',
    'vehicle/2/convertible': '833e6f8350a730e7',
    'details/3/sedan': 'cedf2eb25d055c24',
    'details/3/suv': '36dced6837e45aaf',
    'details/3/crossover': '9f5e52404d1aabdd',
    'details/3/pickup': '7ea3b5744f9a6c40',
    'details/3/hatchback': '9c074c1d692fdca4',
    'details/3/coupe': '3fb4dabb99aacb23',
    'details/3/wagon': '0d8555ff9c4ace82',
    'details/3/minivan': 'd24513225ec9d967',
    'details/3/van': '7c685edfb56f979c',
    'details/3/convertible': '1069842ea7aac904',
    'details/4/sedan': 'c8d14b2892f0ac93',
    'details/4/suv': 'd58387be25fae966',
    'details/4/crossover': '03231f48c4b2e535',
    'details/4/pickup': '4514451dbb92d486',
    'details/4/hatchback': 'a20981c908fe49f6',
    'details/4/coupe': '94f0ef9e313b09fa',
    'details/4/wagon': '3e1a9a10b04e43d2',
    'details/4/minivan': '25214bf1d6befe76',
    'details/4/van': 'ce218a19bdcaba58',
    'details/4/convertible': 'cd1ed49a49e27e63',
    'details/5/sedan': 'b3a56d2ee025a9ce',
    'details/5/suv': 'd8a6ea22e2a876ed',
    'details/5/crossover': '30ae1def3742d237',
    'details/5/pickup': 'a76b22436f56607b',
    'details/5/hatchback': 'a74323f4398cfc50',
    'details/5/coupe': '6fca644f9a4956ed',
    'details/5/wagon': 'e6bb4b9d1c3856a7',
    'details/5/minivan': '38269450ea8326b6',
    'details/5/van': 'b3e926134256e0a7',
    'details/5/convertible': '52dae6f692840474',
}


@pytest.mark.parametrize("family", sorted({k.split("/")[0] for k in CASES}))
def test_scene_functions_match_their_golden_digests(family):
    keys = [k for k in CASES if k.startswith(family + "/")]
    got = {k: CASES[k][0](*CASES[k][1:]) for k in keys}
    want = {k: GOLDEN[k] for k in keys}
    assert got == want


if __name__ == "__main__":
    print("GOLDEN: dict[str, str] = {")
    for key, (fn, *args) in CASES.items():
        print(f"    {key!r}: {fn(*args)!r},")
        sys.stdout.flush()
    print("}")

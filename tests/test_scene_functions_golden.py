"""Golden digests of the pure scene functions in core/ (surroundings, roof, person, vehicle geometry and
details): every array, number and string they return, for a spread of seeds and options, and the
generator's state after the call: structure, integers and strings bit for bit, floats to a billionth
(`_Fingerprint` says why not bit for bit). A refactor of these functions must leave every digest as it
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


class _Fingerprint:
    """What a scene function returned, split in two: its structure, integers and strings, hashed exactly; and
    its floats, summarised by four fixed random projections and their absolute sum. The floats are compared
    within a billionth of that sum, because numpy's sin, cos and exp differ in the last bit between CPUs
    (its AVX-512 kernels are not its AVX2 ones): a bit-exact hash of them held on one machine and failed on
    another. Any real change moves a projection by far more (a millimetre on one vertex: about 1e-3)."""

    def __init__(self):
        self.exact = hashlib.sha256()
        self.floats: list[np.ndarray] = []

    def feed(self, obj) -> None:
        h = self.exact
        h.update(type(obj).__name__.encode() + b"|")
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "fc":
            h.update(f"{obj.dtype}{obj.shape}".encode())
            values = np.ascontiguousarray(obj, dtype=np.complex128 if obj.dtype.kind == "c" else np.float64).ravel()
            values = values.view(np.float64)
            finite = np.isfinite(values)
            h.update(np.packbits(finite).tobytes() + values[~finite].tobytes())
            self.floats.append(np.where(finite, values, 0.0))
        elif isinstance(obj, np.ndarray):
            h.update(f"{obj.dtype}{obj.shape}".encode())
            h.update(np.ascontiguousarray(obj).tobytes())
        elif isinstance(obj, (float, np.floating)):
            self.feed(np.array([obj], np.float64))
        elif isinstance(obj, np.generic):
            h.update(str(obj.dtype).encode() + obj.tobytes())
        elif obj is None or isinstance(obj, (bool, int, str, bytes)):
            h.update(repr(obj).encode())
        elif isinstance(obj, dict):
            for k, v in obj.items():
                self.feed(k)
                self.feed(v)
        elif isinstance(obj, (list, tuple)):
            h.update(str(len(obj)).encode())
            for v in obj:
                self.feed(v)
        elif isinstance(obj, (set, frozenset)):
            h.update(repr(sorted(map(repr, obj))).encode())
        elif dataclasses.is_dataclass(obj):
            for f in dataclasses.fields(obj):
                h.update(f.name.encode())
                self.feed(getattr(obj, f.name))
        elif hasattr(obj, "__dict__"):
            self.feed(dict(vars(obj)))
        else:
            raise TypeError(f"cannot digest {type(obj)}")
        h.update(b";")

    def value(self) -> tuple:
        x = np.concatenate(self.floats) if self.floats else np.zeros(0)
        weights = np.random.default_rng(len(x)).uniform(-1.0, 1.0, (4, len(x)))  # integer arithmetic: bit-exact
        # 12 significant digits: the projections are at most the absolute sum, compared to a billionth of it
        summary = (*(weights @ x), np.abs(x).sum())
        return (self.exact.hexdigest()[:16], *(float(f"{v:.12g}") for v in summary))


def digest(*objs) -> tuple:
    fingerprint = _Fingerprint()
    for obj in objs:
        fingerprint.feed(obj)
    return fingerprint.value()


def matches(got: tuple, want: tuple) -> bool:
    """The exact part equal, the float projections within a billionth of the floats' absolute sum."""
    tolerance = 1e-9 * (want[-1] + 1.0)
    return got[0] == want[0] and all(abs(g - w) <= tolerance for g, w in zip(got[1:], want[1:]))


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

GOLDEN: dict[str, tuple] = {
    'surroundings/0/5.0':
        ('0de8b4e181d6151d', -15.926837101, -2478.3053169, -71.7129738419, 3088.92646405, 94367.9627399),
    'surroundings/0/9.5':
        ('be84c5fd6b146612', -1807.8565668, 1796.44583271, 3227.08498993, 1339.37547659, 105041.566448),
    'surroundings/0/16.0':
        ('04d25cc5680e27cf', 842.548722389, -179.628566883, -1453.67696791, -1803.3619686, 80123.289011),
    'surroundings/1/5.0':
        ('9f4fb432f57dc0fc', -2090.13919723, -1022.87268771, -2616.67761859, -1270.80012594, 73072.4646508),
    'surroundings/1/9.5':
        ('1b128ab5a1a0c275', -991.875083934, 2903.90513082, -1926.55468407, -1594.92146719, 68929.6247108),
    'surroundings/1/16.0':
        ('03536f75e27612d1', -1101.67716188, -1355.07358096, 3881.79693814, 4566.21380909, 86469.0427801),
    'surroundings/2/5.0':
        ('c0dc6204854e78d4', 992.235672125, -2064.31645122, 2671.7799727, -495.6722893, 69801.6026092),
    'surroundings/2/9.5':
        ('7ec25822846fea53', 486.977622467, 650.995832069, -1328.24750574, -1253.89645144, 50911.066403),
    'surroundings/2/16.0':
        ('7009a470df278d12', 347.840913638, 725.614941447, 1927.90256551, -2993.02184381, 62091.8388896),
    'surroundings/3/5.0':
        ('91c9f8bcfaeae3d8', 1822.1606808, 2287.04817933, -1799.9734371, -1456.02905861, 66222.6564261),
    'surroundings/3/9.5':
        ('46f495ba25f00198', -1602.8412313, 370.304515813, 2207.35506521, 534.935249801, 51775.8165617),
    'surroundings/3/16.0':
        ('8ae75892b1eaa519', 3071.43804042, 2763.40553973, -2053.91604217, 231.121956921, 63030.0232722),
    'surroundings/4/5.0':
        ('321627a70dfb31be', -173.016437393, -2388.35471861, 1582.73928043, 2336.0485572, 94843.7773989),
    'surroundings/4/9.5':
        ('361c9c5a309925b4', 1809.62685562, 578.536655624, 822.934390111, -599.525670366, 80008.9318267),
    'surroundings/4/16.0':
        ('63e59a675a247ffa', -2571.72965096, 646.917781669, 1151.26319085, -4978.16490514, 97174.0678953),
    'surroundings/5/5.0':
        ('b0039dd7312b1206', 1185.26706921, 856.893609369, -41.7894330528, -1090.30203004, 83341.7138526),
    'surroundings/5/9.5':
        ('7640b7314961f00b', 335.931744221, 521.423204951, 1545.09031435, -1405.47456832, 57436.6740928),
    'surroundings/5/16.0':
        ('a36817f679e13836', 46.6750378795, -223.173888808, -886.097734697, -1018.9365185, 67001.6114406),
    'surroundings/6/5.0':
        ('77336a44b4149afd', 1326.00503226, -2194.33085321, -997.655895059, 1800.25854934, 109215.294486),
    'surroundings/6/9.5':
        ('97b3ee337e919223', 4781.92376617, 1516.08749616, -139.918042871, -2889.75746237, 68174.470237),
    'surroundings/6/16.0':
        ('56a4529987062e69', -3705.39747951, -2050.0223469, -2794.50764083, -2014.1956099, 75678.2824087),
    'surroundings/7/5.0':
        ('85f8ab87c1cb2c1a', -3051.01048905, 3785.00773105, -402.557830445, -1239.26705245, 72277.1038792),
    'surroundings/7/9.5':
        ('ca7643cd5f3bd268', -2752.63353425, -2672.84599906, 830.54174053, 337.211989883, 85358.1374057),
    'surroundings/7/16.0':
        ('86e62c4114fe62df', -290.199746279, 1064.11789128, -1101.58185035, 1061.74772598, 80490.8287731),
    'surroundings/8/5.0':
        ('89a0fbc054d19619', -2340.4564856, 802.913651429, 667.454417021, 336.35977553, 48648.9655649),
    'surroundings/8/9.5':
        ('04434966f7a32e28', -1542.61106312, -1103.89858502, -918.603228189, -501.401904253, 64799.5400835),
    'surroundings/8/16.0':
        ('a47a627ff2b8c03e', 275.659774028, 529.111584103, -1120.03546427, -461.479509198, 55684.2195063),
    'surroundings/9/5.0':
        ('1f24e02f56bc5a7f', -237.825578726, -2674.68667371, 1642.67471047, 1811.81647039, 90468.6405237),
    'surroundings/9/9.5':
        ('0c47ef792914e49c', -340.277609439, -19.6096294352, -1206.3510363, -30.3049199623, 98628.2963242),
    'surroundings/9/16.0':
        ('20ac2528f63fdd3b', 426.442124078, -819.040790156, -633.271921991, 911.976004148, 72460.8497233),
    'surroundings/10/5.0':
        ('493b6d0c8872e059', -1390.48388015, -1319.0851659, 174.170735387, 81.8146869643, 77812.6393036),
    'surroundings/10/9.5':
        ('06efac8b6f33e0c4', -1610.67889644, -618.823811018, -463.160385279, -1645.1020452, 68974.6059242),
    'surroundings/10/16.0':
        ('ab5334baabd3a697', -547.862100085, 3019.34095195, 1063.87112702, -908.76779931, 100441.646003),
    'surroundings/11/5.0':
        ('1ef0ece1897b06bf', -190.175609146, 1443.14812687, -211.715068612, 217.979671583, 61027.4418578),
    'surroundings/11/9.5':
        ('fd927af4808fd56a', -1204.58950771, -1239.43849885, 957.165343417, 2309.34724429, 65704.1134104),
    'surroundings/11/16.0':
        ('edb3048574a492e8', -463.407096898, -1549.93802701, -1389.72425851, 1572.34524755, 52888.2199393),
    'roof/0/0':
        ('be324ed0c24cd27e', 61.550581139, 126.537908695, 95.4372792342, -98.0157317224, 4378.32380307),
    'roof/0/1':
        ('be324ed0c24cd27e', 61.550581139, 126.537908695, 95.4372792342, -98.0157317224, 4378.32380307),
    'roof/0/2':
        ('be324ed0c24cd27e', 61.550581139, 126.537908695, 95.4372792342, -98.0157317224, 4378.32380307),
    'roof/0/3':
        ('be324ed0c24cd27e', 61.550581139, 126.537908695, 95.4372792342, -98.0157317224, 4378.32380307),
    'roof/0/4':
        ('c9e8fe2364b379bb', 61.550581139, 126.537908695, 95.4372792342, -98.0157317224, 4378.32380307),
    'roof/1/0':
        ('4879ccfc9c11d8de', 62.5718307665, -156.529402275, -226.95810607, -47.6412095255, 1805.33363355),
    'roof/1/1':
        ('4879ccfc9c11d8de', 62.5718307665, -156.529402275, -226.95810607, -47.6412095255, 1805.33363355),
    'roof/1/2':
        ('4879ccfc9c11d8de', 62.5718307665, -156.529402275, -226.95810607, -47.6412095255, 1805.33363355),
    'roof/1/3':
        ('b34bee2084616808', 97.2171984838, -118.186763271, 27.5388171862, 92.9359309435, 1665.01575336),
    'roof/1/4':
        ('325c363612d5964b', 11.2672175698, -122.449449491, -98.3886069073, -122.951792602, 2849.66752936),
    'roof/2/0':
        ('d714cb43fb5308ed', -7.57913679358, 21.6080160495, 189.591277392, -109.753553594, 5582.58354478),
    'roof/2/1':
        ('0d21d70f15b194b3', 244.840245742, 172.171365555, 26.4267359932, -131.779091812, 7289.10539548),
    'roof/2/2':
        ('d714cb43fb5308ed', -7.57913679358, 21.6080160495, 189.591277392, -109.753553594, 5582.58354478),
    'roof/2/3':
        ('0d21d70f15b194b3', 244.840245742, 172.171365555, 26.4267359932, -131.779091812, 7289.10539548),
    'roof/2/4':
        ('8947b4739cc5b27b', -7.57913679358, 21.6080160495, 189.591277392, -109.753553594, 5582.58354478),
    'roof/3/0':
        ('300363ceaaa8b0e4', 51.0789383922, -24.3980506536, -42.0386829101, -129.518093786, 4235.43553748),
    'roof/3/1':
        ('300363ceaaa8b0e4', 51.0789383922, -24.3980506536, -42.0386829101, -129.518093786, 4235.43553748),
    'roof/3/2':
        ('c9b73d58bf4b261f', -167.553783659, -122.100317489, -135.468741127, 133.358170976, 1719.41041559),
    'roof/3/3':
        ('300363ceaaa8b0e4', 51.0789383922, -24.3980506536, -42.0386829101, -129.518093786, 4235.43553748),
    'roof/3/4':
        ('a122bcbf67a58f74', 23.962563887, 61.9793255685, 93.6664886544, 207.001228405, 4272.65776606),
    'roof/4/0':
        ('b4f84e1c46393c82', -6.79521980066, 72.0606160223, -94.808524207, -29.0988033003, 2567.10534637),
    'roof/4/1':
        ('b4f84e1c46393c82', -6.79521980066, 72.0606160223, -94.808524207, -29.0988033003, 2567.10534637),
    'roof/4/2':
        ('b4f84e1c46393c82', -6.79521980066, 72.0606160223, -94.808524207, -29.0988033003, 2567.10534637),
    'roof/4/3':
        ('b4f84e1c46393c82', -6.79521980066, 72.0606160223, -94.808524207, -29.0988033003, 2567.10534637),
    'roof/4/4':
        ('de978a298ae3d306', 49.2685856448, 93.0544721152, -80.072500384, -1.03291716567, 2515.6985096),
    'roof/5/0':
        ('30a20061f5261165', 23.1205462943, 32.0893301548, -54.2412468873, 41.800739171, 2593.21723756),
    'roof/5/1':
        ('30a20061f5261165', 23.1205462943, 32.0893301548, -54.2412468873, 41.800739171, 2593.21723756),
    'roof/5/2':
        ('c96303be552786f2', 15.1025612845, 10.3357153424, -28.4042793798, -45.674756536, 1196.51483982),
    'roof/5/3':
        ('30a20061f5261165', 23.1205462943, 32.0893301548, -54.2412468873, 41.800739171, 2593.21723756),
    'roof/5/4':
        ('acf4cfd698d55fdf', -30.05038974, -160.891501836, 202.045992558, 209.521173647, 2785.27308515),
    'roof/6/0':
        ('facc4601ad2a3005', -250.996556619, -158.539428021, -237.338771926, 232.809863699, 2725.48560068),
    'roof/6/1':
        ('facc4601ad2a3005', -250.996556619, -158.539428021, -237.338771926, 232.809863699, 2725.48560068),
    'roof/6/2':
        ('7e36add4c39e07f2', 83.5698630011, -38.9675824622, -281.831461503, -176.744447118, 812.270809042),
    'roof/6/3':
        ('facc4601ad2a3005', -250.996556619, -158.539428021, -237.338771926, 232.809863699, 2725.48560068),
    'roof/6/4':
        ('cf340f185d504f2d', -116.802141157, -66.2454871055, -101.594834479, 88.9045608651, 2650.60745313),
    'roof/7/0':
        ('a8e7837d67297a48', -178.227207142, -9.02927180661, -143.629566054, -81.9715711475, 6439.4772045),
    'roof/7/1':
        ('a8e7837d67297a48', -178.227207142, -9.02927180661, -143.629566054, -81.9715711475, 6439.4772045),
    'roof/7/2':
        ('24ae4cf7403edcfe', -94.6301690759, -32.5669886938, 81.1790010544, 11.9708653702, 5130.73068885),
    'roof/7/3':
        ('df52d78310f5282d', -149.124474509, -139.493045372, 24.3281365827, 178.567508061, 6513.9043267),
    'roof/7/4':
        ('f9c153fdccf8bef6', -178.227207142, -9.02927180661, -143.629566054, -81.9715711475, 6439.4772045),
    'person/0':
        ('91fcd507adaf25c7', -47.4000640314, 123.920422565, -54.1042143971, 53.7597258387, 11185.5386915),
    'person/1':
        ('e440b6d169c93f04', -170.92173614, -168.602168564, -308.317167722, 53.339423, 14586.5720548),
    'person/2':
        ('310dcd1549a17a88', 61.4797510429, 11.2539702562, 3.60842649674, -84.0967176029, 13778.3061121),
    'person/3':
        ('c706f839bb957b1e', 43.291010985, -66.7151331553, -136.63207384, -68.0390298572, 20849.177638),
    'person/4':
        ('64351908f7177223', 76.8148228813, 105.66812751, -37.0792160186, -32.6154650215, 13466.5223902),
    'person/5':
        ('4e7bba067128d748', 179.678932571, -30.2329730109, -78.2254483243, 41.3117491198, 16671.3769022),
    'person/6':
        ('49d1c835b2f97eee', -33.5846201464, 6.63453578844, -133.182492416, 31.4212971841, 8996.57472925),
    'person/7':
        ('a495094b817fc816', -178.085304565, -186.936174835, -259.396425166, 98.8211474259, 14629.9845096),
    'person/8':
        ('35b49bd8f162ac47', 46.0518267508, 134.031427352, 12.7987495753, 25.7072784268, 18662.386266),
    'person/9':
        ('c3b8a100be0be270', 12.7273100867, -19.529357599, -138.714854278, -46.4064862746, 19157.3044032),
    'person/10':
        ('db95876418fd0b90', 199.915303247, 30.5630333603, 256.408385339, 68.5685531951, 22873.2046358),
    'person/11':
        ('19d904996df075f4', -38.6507408628, -54.6375327318, -67.3336724001, 15.8603674082, 12215.1102806),
    'person/12':
        ('c921ee9599429496', 101.380007672, -52.2954334545, 66.0448871017, 7.2344895281, 17673.776335),
    'person/13':
        ('ccabb3b0edf403a5', 68.9552177617, -139.329305625, 114.238310453, -71.1212962935, 18114.8834064),
    'person/14':
        ('b67ee8cac325151c', -83.6621161434, -25.1007546479, -5.71559956225, 2.69979418335, 15885.7752238),
    'person/15':
        ('9ef147bf982fcc71', -66.147439433, 121.079746691, -133.916324896, 6.74815388847, 15445.1144745),
    'person/16':
        ('df8d54fff57933d2', -13.3014886891, 10.8415494183, -21.7190983004, 19.7231377761, 8010.45782502),
    'person/17':
        ('4ae30809999da563', -24.5542724693, 125.941533368, -124.113358456, 96.421179344, 20815.3921801),
    'person/18':
        ('4c07bd95729d71d9', -71.0998825356, -39.7994577064, -145.141039664, -24.9156639672, 11348.8775609),
    'person/19':
        ('2992e12e187402b8', -154.886756086, -185.2751946, 257.702064295, 19.9041637886, 14573.0762043),
    'person/20':
        ('761db4213f5c36ad', -3.78408424808, -48.406679897, 57.6825102787, 0.348247837261, 8350.90693808),
    'person/21':
        ('4adc2171e6b6b896', 113.161838118, 83.9675577409, -169.884301848, 18.2081826103, 13231.1317229),
    'person/22':
        ('6929baebd21d7741', -110.373434801, -11.3985103882, -86.9082288187, 36.9343752184, 14237.574755),
    'person/23':
        ('98b83a184854d985', 10.8717518392, 11.761687501, -28.1564383031, -17.550108261, 14040.5222021),
    'person/24':
        ('5bc405e709e73fb7', 21.3411366736, -18.0446638928, 117.034784487, -1.66602949064, 11425.5244307),
    'person/25':
        ('37c21941d4fdf32c', -8.25806847621, -27.2558406046, 244.802176661, 96.029350895, 23899.6097403),
    'person/26':
        ('deee0d0c8d4981ec', -82.0736405689, 120.720049017, -48.2876782752, 88.3551718585, 9292.13900015),
    'person/27':
        ('7f434049d2b042f5', -57.0126095505, -194.340526018, -42.4805730363, -20.3726417756, 11828.8213753),
    'person/28':
        ('0eceae646f415fd1', 160.588384494, 19.5382020151, 34.1889086943, -69.3640170123, 17720.1876431),
    'person/29':
        ('7a2449934a71f050', 84.6377921171, 212.422792077, 66.5541776435, -201.237746623, 14484.5016726),
    'vehicle/0/sedan':
        ('96733be3132185fb', -49.6506250334, 348.138795006, -84.9549694655, -55.3334164158, 91191.3115366),
    'vehicle/0/suv':
        ('c405feee6ec9720b', 34.571336758, -486.806308226, -337.947182821, -131.302121372, 102314.081273),
    'vehicle/0/crossover':
        ('203acd0bc68c1680', -363.892231966, -383.103640911, 242.119470417, 72.1800287466, 91069.4731973),
    'vehicle/0/pickup':
        ('ac9561ee4a827e61', -153.327615912, -81.6514617727, -119.764426302, 35.5708904979, 115989.438361),
    'vehicle/0/hatchback':
        ('54ec70bbba5d6c38', -211.543085966, -0.303676959967, 173.722235856, 378.378343429, 80358.0274483),
    'vehicle/0/coupe':
        ('a8181ea6eb14375b', -57.7941405039, -4.17047125214, 384.343254587, 6.91713020078, 86277.9856152),
    'vehicle/0/wagon':
        ('3625a2b0a3d2b860', 155.378161095, 433.610503869, -210.198103017, -82.8166551316, 92423.3013318),
    'vehicle/0/minivan':
        ('0f306fa064f4d3d6', 93.9273868061, -221.751884388, 193.423699723, 311.632517503, 104725.538691),
    'vehicle/0/van':
        ('6f36c8193464ba76', 69.0482065172, -49.8723677284, -106.061945979, -471.600034781, 152027.036579),
    'vehicle/0/convertible':
        ('4df1bfeeb49d7ade', 172.395641694, -20.8725227862, -21.235469583, -28.7337397297, 82585.1627267),
    'vehicle/1/sedan':
        ('9e26c645b63dd4f5', 461.150124184, -370.394258151, 264.781739711, 28.6770391794, 95984.7518562),
    'vehicle/1/suv':
        ('695d1f620066ba25', -114.427295425, 393.925314431, -230.790945795, -299.589412036, 107458.575622),
    'vehicle/1/crossover':
        ('f7083224db5248ae', -180.06757735, -145.429464268, -369.04302313, 86.7466083513, 95800.7311149),
    'vehicle/1/pickup':
        ('bd2bdc4779537be1', 311.475566573, -395.240494012, 265.137328987, -79.3788868645, 122674.968148),
    'vehicle/1/hatchback':
        ('f6e65fa62a3628dc', 54.2615673247, -62.4376326075, 144.36387882, -309.638655368, 84752.1181931),
    'vehicle/1/coupe':
        ('2a381cdf72b9ef56', 104.182859984, 147.552106933, -176.330691581, -28.9582735614, 91128.4285948),
    'vehicle/1/wagon':
        ('01a07ad139df759b', -127.683539137, -292.613336642, 125.545175202, 413.921658832, 97409.8919623),
    'vehicle/1/minivan':
        ('5e11fdc7efb44d5f', 557.179494583, -233.324624791, 75.5141775589, 176.2175864, 110184.004817),
    'vehicle/1/van':
        ('3bc432c1fc058aa4', 832.367054367, 140.012086585, -274.245734878, 124.943877821, 160843.950572),
    'vehicle/1/convertible':
        ('cb6c3fe6d49f0c31', 83.2487228656, -328.477110642, 123.892103959, -45.1817145068, 87101.0793082),
    'vehicle/2/sedan':
        ('fdd8f5a7801809d4', 33.6262725548, 193.596582618, 97.287449864, 49.6513825345, 92223.0424347),
    'vehicle/2/suv':
        ('62ec78ad214a8c00', -7.50148508853, -268.194412841, 92.4212931294, 90.2830323175, 103329.889316),
    'vehicle/2/crossover':
        ('73e7618c48d2a169', 243.474885076, -187.055747631, 192.821639488, 293.427636266, 91918.4717148),
    'vehicle/2/pickup':
        ('e4fcc9ee76fc4556', 105.960239674, 112.16529995, -2.41679819317, -185.924033025, 117117.219626),
    'vehicle/2/hatchback':
        ('7f2db3d949ae3e2c', -42.1056130251, -280.923788585, -312.317028774, -12.0040758234, 80937.4686964),
    'vehicle/2/coupe':
        ('1fd2ad5306c875f9', -75.2005649266, 292.13393902, 116.251509579, -13.7655727102, 87282.4522418),
    'vehicle/2/wagon':
        ('bf6994478891bf61', -272.72201121, 155.702685068, -409.056969543, 297.02729803, 93512.3228455),
    'vehicle/2/minivan':
        ('47b6443dfec29612', -36.9080163874, 186.464874437, -212.893464771, -127.000750014, 105949.24697),
    'vehicle/2/van':
        ('2ff2416d7ea560bb', -219.742483893, 141.540503308, -1016.797503, -258.748928433, 154275.846313),
    'vehicle/2/convertible':
        ('3c0073e8bf9cf353', 213.761929484, 336.844233713, -12.7960579053, -470.446112022, 83569.7064221),
    'details/3/sedan':
        ('b13fa20b2f7732db', 47.3803312064, -23.2943722102, -49.7216971984, 99.3575105433, 10587.6139235),
    'details/3/suv':
        ('12221c73d9666237', -21.2829515689, -131.518026504, -126.245275524, -39.1585727214, 12948.8994349),
    'details/3/crossover':
        ('7ec527bffa738243', -2.02129790008, -28.707692193, -48.4447820659, 90.1979164108, 11772.9262002),
    'details/3/pickup':
        ('e573214dad7450c5', -26.7347615647, 114.6076813, -35.0438845075, 159.067304555, 12683.6712399),
    'details/3/hatchback':
        ('b13fa20b2f7732db', 42.3701234147, -31.5136058709, -38.5375027993, 84.5157905136, 9954.84527067),
    'details/3/coupe':
        ('de615d520498a755', 29.7611678315, -8.23674764213, 26.9835573663, 6.58839225027, 10287.1906934),
    'details/3/wagon':
        ('f8939c5a49505b65', -0.0271526436033, 54.0238755776, 6.80261099539, 72.7889223578, 11051.1066677),
    'details/3/minivan':
        ('adcf30e4a26c559f', 13.1145430256, 175.307087935, -66.5825303813, -34.5514507793, 11511.7161613),
    'details/3/van':
        ('0007c89adeaaa373', 51.8928069049, -118.250066902, -20.1637672013, 9.41181702543, 12561.8318181),
    'details/3/convertible':
        ('d6ac314a02ab5f1a', 124.254813635, -11.1512545226, -3.72704022085, 120.328094445, 12033.8558303),
    'details/4/sedan':
        ('b13fa20b2f7732db', 47.8786805421, -21.9218099526, -49.8295063208, 101.98467353, 10657.14406),
    'details/4/suv':
        ('12221c73d9666237', -23.4600301117, -132.509124276, -127.55219989, -39.5378509803, 13018.7894047),
    'details/4/crossover':
        ('7ec527bffa738243', -0.580279813372, -29.7400856058, -48.8927639199, 90.3582656981, 11840.2029373),
    'details/4/pickup':
        ('e573214dad7450c5', -27.6057193349, 116.975489987, -33.5867733964, 160.337597868, 12755.2192535),
    'details/4/hatchback':
        ('723cec2c56612449', 11.2690942902, -118.893872782, -45.9752216932, 24.2799157379, 9948.61113091),
    'details/4/coupe':
        ('2673d525e1a36bc5', 23.6889558284, 91.3416584457, -80.8681626968, -8.92354962679, 10285.2462868),
    'details/4/wagon':
        ('f8939c5a49505b65', 0.19211806515, 53.9175242619, 6.97988692059, 72.9848893284, 11118.8820826),
    'details/4/minivan':
        ('adcf30e4a26c559f', 14.6364732574, 178.2296145, -67.7991150055, -34.5741242958, 11588.5392461),
    'details/4/van':
        ('0007c89adeaaa373', 51.6016911802, -119.343434314, -20.3863915789, 10.8893677262, 12648.0995392),
    'details/4/convertible':
        ('34be3315c64d5b38', 29.478594897, -53.724165323, -121.145334795, 79.1653061024, 12014.5008558),
    'details/5/sedan':
        ('9b4f652ca866adb2', -31.7234518494, -51.9433596621, 40.7414293666, 44.5700574683, 10738.294709),
    'details/5/suv':
        ('4f7b8313afec1a98', 27.1228560395, -71.2478569905, 74.2938301488, 12.2800151802, 13111.9066624),
    'details/5/crossover':
        ('926daed4df828f96', 92.8087896353, -63.3685449528, 75.5956893588, 58.0470317443, 11917.4469575),
    'details/5/pickup':
        ('e51b8dc30ba8f086', -40.8688264308, 79.8313737137, -14.0778874285, -132.523184887, 12874.3057073),
    'details/5/hatchback':
        ('9b4f652ca866adb2', -33.7401897551, -51.4552943433, 44.0251852456, 37.4554063302, 10081.5913562),
    'details/5/coupe':
        ('ed697b39244e3558', 66.6528739529, -81.6196380218, 4.60261722581, 32.2177957046, 10431.2878803),
    'details/5/wagon':
        ('8ce3766815bbd4cd', -38.6098774529, -34.3232145416, 10.3997506159, 60.5461168969, 11204.1430699),
    'details/5/minivan':
        ('09ee81f0c31e6ab7', 69.6207907989, -22.9584997587, 4.50746883593, 214.27208234, 11680.4669363),
    'details/5/van':
        ('cc7619ff9da0ab6f', 36.6956467878, -77.9074998875, 4.61961201256, 21.5106964258, 12764.4858687),
    'details/5/convertible':
        ('1aa76cc5dba001b8', -36.1991763088, -44.7017531698, -111.970141324, 48.1252036974, 12144.0771897),
}


@pytest.mark.parametrize("family", sorted({k.split("/")[0] for k in CASES}))
def test_scene_functions_match_their_golden_digests(family):
    keys = [k for k in CASES if k.startswith(family + "/")]
    got = {k: CASES[k][0](*CASES[k][1:]) for k in keys}
    changed = {k: (got[k], GOLDEN[k]) for k in keys if not matches(got[k], GOLDEN[k])}
    assert not changed, f"{len(changed)} of {len(keys)} digests changed: {changed}"


def test_the_fingerprint_ignores_last_bit_noise_and_sees_a_millimetre():
    plan = draw_vehicle(np.random.default_rng(4), "sedan")
    geometry = vehicle_geometry.__wrapped__(plan)
    want = digest(geometry)
    vertices = geometry.parts["hood"].vertices
    original = vertices.copy()
    try:
        vertices[:] = np.nextafter(original, np.inf)  # every coordinate one bit up, as another CPU's sin may give
        assert matches(digest(geometry), want)
        vertices[:] = original
        vertices[len(vertices) // 2, 2] += 1e-3  # one vertex a millimetre higher
        assert not matches(digest(geometry), want)
    finally:
        vertices[:] = original
    assert digest(geometry) == want


if __name__ == "__main__":
    print("GOLDEN: dict[str, tuple] = {")
    for key, (fn, *args) in CASES.items():
        print(f"    {key!r}:\n        {fn(*args)!r},")
        sys.stdout.flush()
    print("}")

"""The load-center scene as a plan (pure, no bpy): room, panel, breakers, door, directory card.

World axes: the panel's wall is the plane y = 0 and faces the room along -Y (the room is
at y < 0); X runs along the wall (to the right as the electrician faces it), Z is up, the
floor at z = 0. Lengths in metres, angles in degrees.

The plan holds what the scene *is*: the main breaker's rating, every branch circuit
(name, amperage, poles, breaker type, slot), the door's hinge and angle, and the
directory card (where it hangs, its size, its writing style). The card's texture and the
layout of the rows it actually drew are in directory_card.py.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

INCH = 0.0254
SLOT_M = INCH  # one breaker space is 1 in tall
MAIN_AMPS = (100, 125, 150, 200)
MAIN_AMPS_P = (0.15, 0.15, 0.15, 0.55)
SPACES_BY_MAIN = {100: (20, 24), 125: (24, 30), 150: (30, 32), 200: (30, 32, 40, 42)}
BOX_WIDTH_M = 14.25 * INCH
MAIN_AREA_M = 7.0 * INCH  # from the top of the box to the first branch row
BOTTOM_GUTTER_M = 5.0 * INCH
COLUMN_OFFSET_M = 1.25 * INCH  # centre of the box to a column's handle centre
CARD_PX_PER_M = 6000.0  # texture density: 6 px per mm
WALL_FINISHES = ("drywall", "plywood", "block")
WALL_COLORS = {
    "drywall": {"white": (0.72, 0.72, 0.7), "greige": (0.55, 0.52, 0.46), "pale_blue": (0.5, 0.58, 0.64),
                "pale_green": (0.55, 0.6, 0.5)},
    "plywood": {"pine": (0.55, 0.4, 0.22), "osb": (0.5, 0.38, 0.22), "weathered": (0.4, 0.33, 0.24)},
    "block": {"gray": (0.38, 0.38, 0.37), "painted_white": (0.65, 0.65, 0.63), "tan": (0.45, 0.4, 0.32)},
}
PAPER_COLORS = {"white": (238, 238, 232), "cream": (236, 228, 200), "manila": (230, 212, 160),
                "yellowed": (222, 206, 160)}
INK_COLORS = {"black": (22, 22, 24), "blue": (24, 34, 110), "pencil": (80, 80, 86), "red": (150, 28, 24)}


class LoadCenterPlanError(ValueError):
    pass


# ---------------------------------------------------------------------------------------------
# Circuits: realistic names, ratings and poles
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CircuitKind:
    names: tuple[str, ...]  # ways the same circuit gets written on a card
    amps: tuple[int, ...]
    amps_p: tuple[float, ...]
    poles: int  # 1: 120 V; 2: 240 V double-pole
    breaker: str  # standard | gfci | afci | dual (AFCI + GFCI)
    weight: float  # how likely a house has it
    core: bool = False  # nearly every house has it


CIRCUIT_KINDS: tuple[CircuitKind, ...] = (
    # 240 V double-pole loads
    CircuitKind(("DRYER", "CLOTHES DRYER", "ELEC DRYER"), (30,), (1.0,), 2, "standard", 0.8),
    CircuitKind(("RANGE", "ELECTRIC RANGE", "STOVE"), (40, 50), (0.4, 0.6), 2, "standard", 0.7),
    CircuitKind(("WATER HEATER", "WTR HEATER", "HOT WATER"), (30,), (1.0,), 2, "standard", 0.6),
    CircuitKind(("A/C", "AC CONDENSER", "AIR COND"), (30, 40), (0.6, 0.4), 2, "standard", 0.6),
    CircuitKind(("HEAT PUMP",), (40, 50), (0.5, 0.5), 2, "standard", 0.2),
    CircuitKind(("EV CHARGER", "CAR CHARGER"), (40, 50, 60), (0.35, 0.4, 0.25), 2, "standard", 0.2),
    CircuitKind(("SUBPANEL", "GARAGE SUBPANEL", "SUB PANEL"), (60,), (1.0,), 2, "standard", 0.12),
    CircuitKind(("HOT TUB", "SPA"), (50,), (1.0,), 2, "gfci", 0.08),
    CircuitKind(("WELL PUMP",), (20, 30), (0.6, 0.4), 2, "standard", 0.1),
    CircuitKind(("WALL OVEN", "OVEN"), (30, 40), (0.6, 0.4), 2, "standard", 0.15),
    CircuitKind(("SOLAR PV", "PV SYSTEM", "SOLAR"), (30, 40), (0.5, 0.5), 2, "standard", 0.25),
    CircuitKind(("BASEBOARD HEAT", "BB HEAT"), (20,), (1.0,), 2, "standard", 0.1),
    # 120 V kitchen and laundry (20 A, GFCI where wet)
    CircuitKind(("KITCHEN COUNTER", "KITCHEN CTR", "KIT COUNTER"), (20,), (1.0,), 1, "dual", 1.0, True),
    CircuitKind(("KITCHEN ISLAND", "ISLAND"), (20,), (1.0,), 1, "dual", 0.4),
    CircuitKind(("DISHWASHER", "DISH WASHER", "D/W"), (15, 20), (0.4, 0.6), 1, "dual", 0.85),
    CircuitKind(("DISPOSAL", "GARBAGE DISP"), (15, 20), (0.5, 0.5), 1, "standard", 0.6),
    CircuitKind(("MICROWAVE", "MICRO"), (20,), (1.0,), 1, "afci", 0.6),
    CircuitKind(("REFRIGERATOR", "FRIDGE", "REFRIG"), (20,), (1.0,), 1, "standard", 0.75),
    CircuitKind(("LAUNDRY", "WASHER", "LAUNDRY RECEPT"), (20,), (1.0,), 1, "dual", 0.9, True),
    # bathrooms and wet locations
    CircuitKind(("BATH", "BATHROOM", "BATH GFCI"), (20,), (1.0,), 1, "gfci", 1.0, True),
    CircuitKind(("MASTER BATH", "PRIMARY BATH"), (20,), (1.0,), 1, "gfci", 0.5),
    CircuitKind(("OUTDOOR RECEPT", "EXTERIOR GFCI", "OUTSIDE PLUGS"), (15, 20), (0.3, 0.7), 1, "gfci", 0.7),
    CircuitKind(("GARAGE RECEPT", "GARAGE PLUGS", "GARAGE"), (20,), (1.0,), 1, "gfci", 0.7),
    # rooms: lighting and receptacles (AFCI)
    CircuitKind(("BEDROOM 1", "BR 1", "BEDRM 1"), (15,), (1.0,), 1, "afci", 0.95, True),
    CircuitKind(("BEDROOM 2", "BR 2", "BEDRM 2"), (15,), (1.0,), 1, "afci", 0.8),
    CircuitKind(("BEDROOM 3", "BR 3", "BEDRM 3"), (15,), (1.0,), 1, "afci", 0.5),
    CircuitKind(("MASTER BEDROOM", "MASTER BR", "PRIMARY BEDRM"), (15, 20), (0.7, 0.3), 1, "afci", 0.6),
    CircuitKind(("LIVING ROOM", "LIVING RM", "LR RECEPT"), (15, 20), (0.7, 0.3), 1, "afci", 0.9, True),
    CircuitKind(("DINING ROOM", "DINING RM"), (15, 20), (0.5, 0.5), 1, "afci", 0.6),
    CircuitKind(("FAMILY ROOM", "FAMILY RM", "DEN"), (15, 20), (0.7, 0.3), 1, "afci", 0.5),
    CircuitKind(("OFFICE", "HOME OFFICE", "STUDY"), (15, 20), (0.6, 0.4), 1, "afci", 0.4),
    CircuitKind(("HALL LIGHTS", "HALLWAY", "HALL & STAIRS"), (15,), (1.0,), 1, "afci", 0.6),
    CircuitKind(("KITCHEN LIGHTS", "KIT LIGHTS"), (15,), (1.0,), 1, "afci", 0.5),
    CircuitKind(("SMOKE DETECTORS", "SMOKE ALARMS", "SMOKES"), (15,), (1.0,), 1, "afci", 0.5),
    CircuitKind(("PORCH LIGHTS", "EXTERIOR LIGHTS", "OUTSIDE LIGHTS"), (15,), (1.0,), 1, "standard", 0.5),
    CircuitKind(("BASEMENT LIGHTS", "BSMT LIGHTS"), (15,), (1.0,), 1, "standard", 0.4),
    CircuitKind(("BASEMENT RECEPT", "BSMT PLUGS"), (20,), (1.0,), 1, "gfci", 0.35),
    CircuitKind(("GARAGE LIGHTS", "GARAGE LTS"), (15,), (1.0,), 1, "standard", 0.45),
    CircuitKind(("GARAGE DOOR", "GARAGE DOOR OPENER", "GD OPENER"), (15, 20), (0.6, 0.4), 1, "gfci", 0.45),
    CircuitKind(("FURNACE", "FURNACE/AIR HANDLER", "FAU"), (15, 20), (0.6, 0.4), 1, "standard", 0.7),
    CircuitKind(("SUMP PUMP",), (15, 20), (0.5, 0.5), 1, "standard", 0.25),
    CircuitKind(("ATTIC FAN", "ATTIC"), (15,), (1.0,), 1, "standard", 0.15),
    CircuitKind(("IRRIGATION", "SPRINKLERS"), (15,), (1.0,), 1, "standard", 0.15),
    CircuitKind(("DOORBELL", "CHIME"), (15,), (1.0,), 1, "standard", 0.1),
    CircuitKind(("WORKSHOP", "SHOP TOOLS"), (20,), (1.0,), 1, "gfci", 0.15),
    CircuitKind(("FREEZER", "CHEST FREEZER"), (20,), (1.0,), 1, "standard", 0.2),
)


@dataclass(frozen=True)
class Circuit:
    name: str
    amps: int
    poles: int
    breaker: str  # standard | gfci | afci | dual
    slot: int  # first space (1-based; odd = left column, even = right); a 2-pole also takes slot + 2

    @property
    def slots(self) -> tuple[int, ...]:
        return (self.slot,) if self.poles == 1 else (self.slot, self.slot + 2)

    @property
    def slot_label(self) -> str:
        return ",".join(str(s) for s in self.slots)


def draw_circuits(rng: np.random.Generator, spaces: int) -> tuple[Circuit, ...]:
    """Circuits of a house's panel: the core ones, then others by how common they are, until the
    drawn count (or the panel's spaces) runs out; slots assigned top-down with a few left blank."""
    if spaces < 8 or spaces % 2:
        raise LoadCenterPlanError(f"a panel needs an even number of at least 8 spaces, got {spaces}")
    target = int(rng.integers(8, min(28, spaces - 2) + 1))
    core = [k for k in CIRCUIT_KINDS if k.core]
    rest = [k for k in CIRCUIT_KINDS if not k.core]
    weights = np.array([k.weight for k in rest])
    # a weighted draw without replacement: sort by Exponential(1)/weight (Efraimidis-Spirakis)
    keys = rng.exponential(1.0, len(rest)) / weights
    order = core + [rest[i] for i in np.argsort(keys, kind="stable")]
    chosen, used = [], 0
    for kind in order:
        if len(chosen) >= target:
            break
        if used + kind.poles > spaces:
            continue
        chosen.append(kind)
        used += kind.poles
    # large 240 V loads tend to sit at the top of the panel; the rest in no particular order
    two = [k for k in chosen if k.poles == 2]
    one = [k for k in chosen if k.poles == 1]
    rng.shuffle(two)
    rng.shuffle(one)
    seq = two + one if rng.random() < 0.7 else [chosen[i] for i in rng.permutation(len(chosen))]
    free = set(range(1, spaces + 1))
    circuits = []
    for kind in seq:
        name = kind.names[int(rng.integers(len(kind.names)))]
        amps = int(rng.choice(kind.amps, p=np.asarray(kind.amps_p) / sum(kind.amps_p)))
        # the lowest free space that fits, sometimes skipping one (a blank filler in the middle)
        candidates = [s for s in sorted(free) if kind.poles == 1 or (s + 2 in free)]
        if not candidates:  # the free spaces are scattered: this double-pole breaker is left out
            continue
        slot = candidates[1] if len(candidates) > 1 and rng.random() < 0.08 else candidates[0]
        free.discard(slot)
        if kind.poles == 2:
            free.discard(slot + 2)
        circuits.append(Circuit(name, amps, kind.poles, kind.breaker, slot))
    return tuple(sorted(circuits, key=lambda c: c.slot))


# ---------------------------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CardPlan:
    style: str  # typed | hand
    width_m: float
    row_pitch_m: float  # the ruled line spacing the writing follows
    paper: str
    ink: str
    title: str  # printed heading ("" for none)
    main_amps: int
    entries: tuple[tuple[str, str, int], ...]  # (slot label, name, amps) in card order
    seed: int  # the hand's jitter (style "hand")
    glossy: bool  # laminated / in a plastic sleeve

    @property
    def header_rows(self) -> int:
        return 2 if self.title else 1

    @property
    def height_m(self) -> float:
        """Margins + heading rows + one ruled row per entry."""
        return 2 * self.margin_m + (self.header_rows + 0.5 + len(self.entries)) * self.row_pitch_m

    @property
    def margin_m(self) -> float:
        return 0.6 * self.row_pitch_m


def _cover_margin(mount: str) -> float:
    """How far the cover (trim) reaches beyond the box on each side: a flush trim overlaps the wall."""
    return 0.75 * INCH if mount == "flush" else 0.1 * INCH


@dataclass(frozen=True)
class LoadCenterPlan:
    # room
    wall_finish: str
    wall_color: str
    room_x0: float  # side walls at x = room_x0 and x = room_x1
    room_x1: float
    room_depth_m: float  # the back wall at y = -room_depth_m
    ceiling_m: float
    # the load center
    mount: str  # surface | flush
    spaces: int
    main_amps: int
    box_center_x: float
    box_top_z: float
    box_height_m: float
    box_depth_m: float  # how far the box (surface) or its trim (flush) stands off the wall
    circuits: tuple[Circuit, ...]
    # door
    hinge_side: int  # -1: hinge on the left edge, +1: on the right
    door_angle_deg: float  # 0 closed, 180 folded back flat
    # card
    card_placement: str  # wall | door
    card_side: int  # wall cards: -1 left of the box, +1 right
    card_gap_m: float  # wall cards: gap to the cover's edge
    card_drop_m: float  # card top below the cover's top
    card: CardPlan
    # light
    ceiling_light_xy: tuple[float, float]
    ceiling_light_w: float
    ceiling_light_size_m: float
    window_side: int  # 0: none, -1: left wall, +1: right wall
    sun_elevation_deg: float
    sun_azimuth_deg: float  # 0: the sun shines along +Y (towards the panel wall), 90: along -X
    sun_strength: float

    # ---- derived geometry (pure) -------------------------------------------------------------
    @property
    def rows(self) -> int:
        return self.spaces // 2

    @property
    def box_bottom_z(self) -> float:
        return self.box_top_z - self.box_height_m

    @property
    def cover_margin_m(self) -> float:
        return _cover_margin(self.mount)

    @property
    def cover_width_m(self) -> float:
        return BOX_WIDTH_M + 2 * self.cover_margin_m

    @property
    def cover_height_m(self) -> float:
        return self.box_height_m + 2 * self.cover_margin_m

    @property
    def cover_front_y(self) -> float:
        """The cover's front face (y < 0: in front of the wall)."""
        return -(self.box_depth_m + 0.003)

    @property
    def breakers_top_z(self) -> float:
        return self.box_top_z - MAIN_AREA_M

    def slot_center(self, slot: int) -> np.ndarray:
        """World centre of a breaker space on the cover's front plane."""
        if not 1 <= slot <= self.spaces:
            raise LoadCenterPlanError(f"slot {slot} is outside 1..{self.spaces}")
        column = -1 if slot % 2 else 1
        row = (slot - 1) // 2
        return np.array([self.box_center_x + column * COLUMN_OFFSET_M, self.cover_front_y,
                         self.breakers_top_z - (row + 0.5) * SLOT_M])

    def main_breaker_center(self) -> np.ndarray:
        return np.array([self.box_center_x, self.cover_front_y, self.box_top_z - 0.5 * MAIN_AREA_M])

    def breakers_center(self) -> np.ndarray:
        return np.array([self.box_center_x, self.cover_front_y, self.breakers_top_z - self.rows * SLOT_M / 2])

    def panel_center(self) -> np.ndarray:
        return np.array([self.box_center_x, self.cover_front_y, self.box_top_z - self.box_height_m / 2])

    @property
    def door_width_m(self) -> float:
        return self.cover_width_m - 0.004

    @property
    def door_height_m(self) -> float:
        return self.cover_height_m - 0.004

    @property
    def door_thickness_m(self) -> float:
        return 0.012

    def hinge_point(self) -> np.ndarray:
        """The hinge axis (vertical) at the cover's front plane, at the cover's hinge edge, mid-height."""
        return np.array([self.box_center_x + self.hinge_side * self.cover_width_m / 2, self.cover_front_y,
                         self.box_top_z - self.box_height_m / 2])

    def door_matrix(self) -> np.ndarray:
        """Door object matrix (right-handed, no scale): origin on the hinge axis, local Y = the inner face's
        normal (towards the wall when closed), Z up, X = Y x Z (+X world when closed). The door reaches from
        the hinge along `door_along()`, i.e. local -hinge_side * X. It swings out into the room: at 90
        degrees it stands straight out from the wall, at 180 it lies back flat with its inner face out."""
        phi = math.radians(self.hinge_side * self.door_angle_deg)
        m = np.eye(4)
        m[:3, :3] = np.array([[math.cos(phi), -math.sin(phi), 0.0], [math.sin(phi), math.cos(phi), 0.0],
                              [0.0, 0.0, 1.0]])
        m[:3, 3] = self.hinge_point()
        return m

    def door_along(self) -> np.ndarray:
        """World unit vector from the hinge across the door."""
        return -self.hinge_side * self.door_matrix()[:3, 0]

    def card_frame(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(centre, right, up, normal) of the card's written face, world space; right/up are the texture's
        +x / -y directions (reading direction and up the card), normal points out of the writing."""
        c = self.card
        up = np.array([0.0, 0.0, 1.0])
        if self.card_placement == "wall":
            x = (self.box_center_x + self.card_side * (self.cover_width_m / 2 + self.card_gap_m + c.width_m / 2))
            z = self.box_top_z + self.cover_margin_m - self.card_drop_m - c.height_m / 2
            return np.array([x, -0.0015, z]), np.array([1.0, 0.0, 0.0]), up, np.array([0.0, -1.0, 0.0])
        m = self.door_matrix()
        along, inner = self.door_along(), m[:3, 1]
        # the card sits centred across the door's inner face, 1 mm off it
        s = self.door_width_m / 2
        z = self.box_top_z + self.cover_margin_m - self.card_drop_m - c.height_m / 2
        center = m[:3, 3] + along * s + inner * 0.001
        center[2] = z
        normal = inner / np.linalg.norm(inner)
        right = np.cross(up, normal)  # reading left to right as you face the writing
        return center, right / np.linalg.norm(right), up, normal

    def card_corners(self) -> np.ndarray:
        """The card's four corners, world space: top-left, top-right, bottom-right, bottom-left (as read)."""
        center, right, up, _ = self.card_frame()
        hw, hh = self.card.width_m / 2, self.card.height_m / 2
        return np.stack([center - hw * right + hh * up, center + hw * right + hh * up,
                         center + hw * right - hh * up, center - hw * right - hh * up])

    def card_point(self, u_px: float, v_px: float, layout) -> np.ndarray:
        """World point of the card texture's pixel coordinate (u right, v down from the top-left corner) of the
        texture laid out as `layout` (directory_card.CardLayout)."""
        tl = self.card_corners()[0]
        _, right, up, _ = self.card_frame()
        return tl + right * (u_px / layout.px_per_m_x) - up * (v_px / layout.px_per_m_y)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["circuits"] = [asdict(c) for c in self.circuits]
        return d


def draw_load_center_plan(rng: np.random.Generator, *, door_card_share: float = 0.35) -> LoadCenterPlan:
    """A random wall with a load center: realistic ratings, circuits, box, door and directory card."""
    if not 0.0 <= door_card_share <= 1.0:
        raise LoadCenterPlanError(f"door_card_share must be in [0, 1], got {door_card_share}")
    finish = str(rng.choice(WALL_FINISHES, p=[0.45, 0.3, 0.25]))
    color = str(rng.choice(sorted(WALL_COLORS[finish])))
    mount = "flush" if (finish == "drywall" and rng.random() < 0.6) else "surface"
    main = int(rng.choice(MAIN_AMPS, p=MAIN_AMPS_P))
    spaces = int(rng.choice(SPACES_BY_MAIN[main]))
    rows = spaces // 2
    box_h = MAIN_AREA_M + rows * SLOT_M + BOTTOM_GUTTER_M
    top = float(rng.uniform(1.62, 1.95))
    box_depth = float(rng.uniform(0.09, 0.105)) if mount == "surface" else float(rng.uniform(0.008, 0.016))
    circuits = draw_circuits(rng, spaces)
    room_w = float(rng.uniform(3.0, 6.5))
    cx_offset = float(rng.uniform(-0.35, 0.35)) * (room_w - 1.6)
    room_x0, room_x1 = -room_w / 2 - cx_offset, room_w / 2 - cx_offset
    depth = float(rng.uniform(3.6, 6.5))
    ceiling = float(rng.uniform(2.4, 3.0))
    hinge = int(rng.choice([-1, 1]))
    placement = "door" if rng.random() < door_card_share else "wall"
    if placement == "door":
        card_side = -hinge
        angle = float(rng.uniform(125.0, 178.0))
    else:
        card_side = hinge if rng.random() < 0.25 else -hinge
        # a door hinged on the card's side cannot fold back flat over it: it stands out from the wall, in the
        # way of views from the far side
        angle = float(rng.uniform(70.0, 95.0)) if card_side == hinge else float(rng.uniform(95.0, 178.0))
    style = "hand" if rng.random() < 0.55 else "typed"
    pitch = float(rng.uniform(0.0065, 0.0095)) if style == "hand" else float(rng.uniform(0.0055, 0.0085))
    margin = _cover_margin(mount)
    cover_w, cover_h = BOX_WIDTH_M + 2 * margin, box_h + 2 * margin
    if placement == "wall":
        width = float(rng.uniform(0.095, 0.13))
    else:
        width = float(min(rng.uniform(0.1, 0.13), cover_w - 0.08))
    card = CardPlan(
        style=style, width_m=width, row_pitch_m=pitch,
        paper=str(rng.choice(list(PAPER_COLORS), p=[0.45, 0.25, 0.2, 0.1])),
        ink=str(rng.choice(list(INK_COLORS), p=[0.55, 0.25, 0.15, 0.05])) if style == "hand" else "black",
        title="CIRCUIT DIRECTORY" if (style == "typed" or rng.random() < 0.5) else "",
        main_amps=main, entries=tuple((c.slot_label, c.name, c.amps) for c in circuits),
        seed=int(rng.integers(0, 2**31 - 1)), glossy=bool(rng.random() < 0.3))
    max_drop = max(0.0, cover_h - card.height_m) if placement == "door" else 0.2
    drop = float(rng.uniform(0.02, max(0.021, min(0.2, max_drop))))
    if placement == "door" and card.height_m + drop > cover_h - 0.01:
        drop = max(0.005, (cover_h - card.height_m) / 2)
    light_xy = (float(rng.uniform(room_x0 + 0.5, room_x1 - 0.5)), float(-rng.uniform(0.6, min(2.5, depth - 0.5))))
    window_p = [0.6, 0.2, 0.2] if finish == "block" else [0.3, 0.35, 0.35]  # basements seldom have one
    window = int(rng.choice([0, -1, 1], p=window_p))
    return LoadCenterPlan(
        wall_finish=finish, wall_color=color, room_x0=room_x0, room_x1=room_x1, room_depth_m=depth,
        ceiling_m=ceiling, mount=mount, spaces=spaces, main_amps=main, box_center_x=0.0, box_top_z=top,
        box_height_m=box_h, box_depth_m=box_depth, circuits=circuits, hinge_side=hinge, door_angle_deg=angle,
        card_placement=placement, card_side=card_side, card_gap_m=float(rng.uniform(0.02, 0.09)),
        card_drop_m=drop, card=card, ceiling_light_xy=light_xy,
        ceiling_light_w=float(rng.uniform(150.0, 600.0)), ceiling_light_size_m=float(rng.uniform(0.25, 1.2)),
        window_side=window, sun_elevation_deg=float(rng.uniform(12.0, 45.0)),
        sun_azimuth_deg=float(rng.uniform(-70.0, 70.0)), sun_strength=float(rng.uniform(1.5, 4.0)))


def sun_direction(plan: LoadCenterPlan) -> np.ndarray:
    """Unit vector towards the sun; it shines in through the window's side wall."""
    el, az = math.radians(plan.sun_elevation_deg), math.radians(plan.sun_azimuth_deg)
    side = plan.window_side or 1
    # horizontal direction the light travels: into the room from the window's wall (-side along X)
    travel = np.array([-side * math.cos(az), math.sin(az) * 0.6, 0.0])
    travel /= np.linalg.norm(travel)
    return np.array([-travel[0] * math.cos(el), -travel[1] * math.cos(el), math.sin(el)])

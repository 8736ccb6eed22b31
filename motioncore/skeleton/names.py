"""Name rules for :mod:`motioncore.skeleton`: what a joint's name says about its role.

A name is reduced to ``(side, key)``:

1. the namespace is dropped (``mixamorig:``, ``Beta:``, Maya ``|`` paths);
2. one exporter prefix is dropped (``CC_Base_``, ``joint_``, ``Bip01``, ...);
3. the rest is split into lower-case words at ``_ . - :`` and spaces, at camel-case
   boundaries and between letters and digits (``LHipJoint`` -> ``l hip joint``,
   ``upperleg01.L`` -> ``upperleg 01 l``);
4. the words ``l``/``left`` and ``r``/``right`` give the side (a glued ``lhand``
   counts as ``l hand`` when ``hand`` is a known key); digits are dropped; the
   remaining words joined give the ``key`` (``LeftUpLeg`` -> ``left`` +
   ``upleg``).

The key is looked up in two exact tables (no substring matching, so
``LeftHandIndex1`` -> ``handindex`` is nothing and ``LHipJoint`` -> ``hipjoint``
is not a leg): :data:`CENTRAL_KEYS` for names without a side, :data:`LIMB_KEYS`
for names with one. A few limb keys are *weak* (:data:`WEAK_KEYS`): ``shoulder``
is the clavicle in CMU cgspeed, Mixamo and Bandai Namco rigs but the upper arm
in the CMU 3ds Max, Perfume, GAMES-105 and Character Studio rigs, where a
``Collar``/``Clavicle`` joint sits above it; the chain decides.

Helper and non-anatomical joints are *excluded*: MakeHuman's ``__UpLeg_L``
helpers (leading ``_``), twist, share, roll and end bones (``CC_Base_L_UpperarmTwist01``,
``CC_Base_L_KneeShareBone``, ``mixamorig:HeadTop_End``). Neck "twist" bones are the
real neck in iClone rigs (``CC_Base_NeckTwist01``) and are listed as neck keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Side = Literal["left", "right"]

CENTRAL_KEYS: dict[str, str] = {
    # hips: CMU/Mixamo "Hips", Daz "hip", iClone "CC_Base_Hip"/"Pelvis", 3ds Max "Bip01 Pelvis"
    "hips": "hips",
    "hip": "hips",
    "pelvis": "hips",
    # spine: CMU "LowerBack"/"Spine", Daz "abdomen", iClone "Waist", GAMES-105 "pelvis_lowerback"
    "spine": "spine",
    "lowerback": "spine",
    "abdomen": "spine",
    "waist": "spine",
    "pelvislowerback": "spine",
    "torso": "spine",
    # chest: Biovision/Perfume "Chest", GAMES-105 "lowerback_torso", Unity "UpperChest"
    "chest": "chest",
    "upperchest": "chest",
    "lowerbacktorso": "chest",
    # neck: CMU 3ds Max "lowerneck", iClone "CC_Base_NeckTwist01"
    "neck": "neck",
    "lowerneck": "neck",
    "upperneck": "neck",
    "necktwist": "neck",
    # head: GAMES-105 "torso_head" (the joint that turns the head)
    "head": "head",
    "torsohead": "head",
}
"""Key of a side-less name -> central role."""

LIMB_KEYS: dict[str, tuple[str, ...]] = {
    "collar": ("shoulder",),  # Daz lCollar, CMU 3ds Max LeftCollar
    "clavicle": ("shoulder",),  # iClone, MakeHuman, Unreal, 3ds Max biped
    "torsoclavicle": ("shoulder",),  # GAMES-105 lTorso_Clavicle
    "shoulder": ("shoulder", "upper_arm"),  # weak: see module docstring
    "arm": ("upper_arm",),  # CMU/Mixamo LeftArm
    "upperarm": ("upper_arm",),
    "uparm": ("upper_arm",),  # Biovision LeftUpArm, MakeHuman UpArm_L
    "shldr": ("upper_arm",),  # Daz lShldr
    "forearm": ("forearm",),
    "lowerarm": ("forearm",),  # Bandai LowerArm_L, Unreal lowerarm_l
    "lowarm": ("forearm",),  # Biovision LeftLowArm
    "loarm": ("forearm",),  # MakeHuman LoArm_L
    "elbow": ("forearm",),  # CMU 3ds Max, Perfume, GAMES-105, SMPL
    "hand": ("hand",),
    "wrist": ("hand",),  # CMU 3ds Max, Perfume, GAMES-105, MakeHuman
    "upleg": ("upper_leg",),  # CMU/Mixamo LeftUpLeg
    "upperleg": ("upper_leg",),  # Bandai UpperLeg_L, MakeHuman upperleg01.L
    "thigh": ("upper_leg",),  # iClone, Daz, Unreal, 3ds Max biped
    "hip": ("upper_leg",),  # sided: CMU 3ds Max LeftHip, GAMES-105 lHip, SMPL L_Hip
    "leg": ("lower_leg",),  # CMU/Mixamo LeftLeg
    "lowerleg": ("lower_leg",),
    "lowleg": ("lower_leg",),  # Biovision LeftLowLeg
    "loleg": ("lower_leg",),  # MakeHuman LoLeg_L
    "calf": ("lower_leg",),  # iClone, Unreal, 3ds Max biped
    "shin": ("lower_leg",),  # Daz, Rigify
    "knee": ("lower_leg",),  # CMU 3ds Max, Perfume, GAMES-105, SMPL
    "foot": ("foot",),
    "ankle": ("foot",),  # CMU 3ds Max, Perfume, GAMES-105, SMPL
    "toe": ("toe",),  # Perfume LeftToe, MakeHuman toe1-1.L, 3ds Max biped Toe0
    "toes": ("toe",),  # Bandai Toes_L
    "toebase": ("toe",),  # CMU/Mixamo LeftToeBase, iClone
    "toejoint": ("toe",),  # GAMES-105 lToeJoint
    "forefoot": ("toe",),  # pybvh LeftForeFoot
    "ball": ("toe",),  # Unreal ball_l
}
"""Key of a sided name -> limb role kinds it may take, most likely first."""

WEAK_KEYS: frozenset[str] = frozenset({"shoulder"})
"""Limb keys that only fill a slot that a stronger name left empty."""

EXCLUDED_WORDS: frozenset[str] = frozenset(
    {"twist", "share", "roll", "nub", "end", "site", "ik", "pole", "helper"}
)
"""A name with any of these words is never a limb joint (neck twists excepted)."""

_PREFIXES: tuple[str, ...] = ("cc_base_", "joint_", "mixamorig_", "bip001", "bip01", "def-")
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SIDES: dict[str, Side] = {"l": "left", "left": "left", "r": "right", "right": "right"}


@dataclass(frozen=True)
class NameClass:
    """What a name says.

    Attributes:
        key: the side-less key (``"upleg"``), ``""`` when nothing is left.
        side: ``"left"``, ``"right"`` or ``None``.
        excluded: a helper, twist, share or end bone (never a limb role).
    """

    key: str
    side: Side | None
    excluded: bool

    def kinds(self) -> tuple[str, ...]:
        """Role kinds the name may take (``("foot",)``, ``("hips",)``; ``()`` if none)."""
        if self.side is None:
            kind = CENTRAL_KEYS.get(self.key)
            return (kind,) if kind is not None else ()
        return () if self.excluded else LIMB_KEYS.get(self.key, ())

    @property
    def weak(self) -> bool:
        """True for keys that only fill an empty slot (``shoulder``)."""
        return self.key in WEAK_KEYS


def _strip(name: str) -> str:
    """Drop the namespace and one exporter prefix (case-insensitive)."""
    bare = re.split(r"[:|]", name)[-1].strip()
    lowered = bare.lower()
    for prefix in _PREFIXES:
        if lowered.startswith(prefix):
            return bare[len(prefix) :]
    return bare


def _unglue(word: str) -> list[str]:
    """Split a glued side prefix (``lhand`` -> ``l``, ``hand``) when the rest is a limb key."""
    if len(word) > 2 and word[0] in "lr" and word[1:] in LIMB_KEYS:
        return [word[0], word[1:]]
    return [word]


def words(name: str) -> list[str]:
    """Lower-case words of ``name`` after namespace and prefix stripping."""
    raw = [w.lower() for w in _WORD.findall(_strip(name))]
    return [part for w in raw for part in _unglue(w)]


def classify(name: str) -> NameClass:
    """Reduce a joint name to its :class:`NameClass` (see the module docstring)."""
    parts = words(name)
    sides = {_SIDES[w] for w in parts if w in _SIDES}
    side = sides.pop() if len(sides) == 1 else None
    key = "".join(w for w in parts if w not in _SIDES and not w.isdigit())
    helper = _strip(name).startswith("_")
    excluded = helper or bool(EXCLUDED_WORDS.intersection(parts))
    if helper:
        key = ""
    return NameClass(key=key, side=side, excluded=excluded)

"""Foot contacts: when each foot is planted, on which of its points, and its steps.

* :mod:`motioncore.contacts.detection`: :func:`detect` the :class:`Contacts` of a clip,
  their :class:`Step` events and the points' speeds;
* :mod:`motioncore.contacts.floor`: the clip's floor and each point's local floor;
* :mod:`motioncore.contacts.masks`: runs of frames, hysteresis, gaps and short runs;
* :mod:`motioncore.contacts.foot_points`: the points of a foot (heel, ankle, ball, tip).

The names of the first three are re-exported here.
"""

from motioncore.contacts.detection import (
    Contacts,
    FootContacts,
    Step,
    detect,
    point_speeds,
    steps,
)
from motioncore.contacts.floor import FLOOR_BIN_M, FLOOR_SMOOTH_M, floor_height, local_lift
from motioncore.contacts.foot_points import SIDES, Side
from motioncore.contacts.masks import drop_short, fill_gaps, hysteresis, segments

__all__ = [
    "FLOOR_BIN_M",
    "FLOOR_SMOOTH_M",
    "SIDES",
    "Contacts",
    "FootContacts",
    "Side",
    "Step",
    "detect",
    "drop_short",
    "fill_gaps",
    "floor_height",
    "hysteresis",
    "local_lift",
    "point_speeds",
    "segments",
    "steps",
]

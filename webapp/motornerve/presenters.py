"""What the Drive page's script reads from the page (``json_script``): the canonical
character it poses from the network's states, and the speeds and limits of the controls,
so that the script copies none of motioncore's numbers."""

from __future__ import annotations

from typing import Any

from motioncore.motornerve import foot_lock, intent, timeline
from motioncore.skeleton import canonical


def drive_character() -> dict[str, Any]:
    """The canonical skeleton (names, parents, rest offsets in metres, which joints are
    end sites), the joints of each foot (ankle, toe) and the foot lock's constants and
    legs, for forward kinematics, the live foot lock and the foot-skate readout in the
    browser."""
    skeleton = canonical.skeleton()
    joint = canonical.JOINT_OF_ROLE
    return {
        "names": list(skeleton.names),
        "parents": [int(p) for p in skeleton.parents],
        "offsets": skeleton.offsets.tolist(),
        "end_site": [kind == "End Site" for kind in skeleton.kinds],
        "feet": {side: [joint[f"{side}_foot"], joint[f"{side}_toe"]] for side in ("left", "right")},
        "foot_lock": foot_lock.browser_config(skeleton, canonical.roles()),
    }


def drive_controls() -> dict[str, Any]:
    """The commanded speeds (a timeline's defaults: walk, run), the speed from which a
    gamepad's stick asks to run, and a timeline's limits (what a recording may hold)."""
    return {
        "walk_mps": timeline.DEFAULT_SPEED_MPS["walk"],
        "run_mps": timeline.DEFAULT_SPEED_MPS["run"],
        "run_from_mps": intent.RUN_FROM_MPS,
        "max_speed_mps": intent.MAX_SPEED_MPS,
        "max_duration_s": timeline.MAX_DURATION_S,
        "max_keys": timeline.MAX_KEYS,
    }

"""Transitions from clip A into clip B: where to cut A, where to enter B, how to join.

* :mod:`motioncore.transition.planning`: :func:`plan` one transition and
  :func:`compare` the cut methods;
* :mod:`motioncore.transition.cuts`: the four cut methods and the clips prepared once;
* :mod:`motioncore.transition.entry`: the entry frame of B and its costs;
* :mod:`motioncore.transition.alignment`: B's rigid alignment onto A;
* :mod:`motioncore.transition.blend`: crossfade and inertialization;
* :mod:`motioncore.transition.blend_choice`: the blend's length and kind from the mismatch;
* :mod:`motioncore.transition.metrics`: how good a transition is;
* :mod:`motioncore.transition.limits`: when a join is good enough (the verdict);
* :mod:`motioncore.transition.bridge`: A → C → B through a library clip;
* :mod:`motioncore.transition.sequence`: N clips joined in order;
* :mod:`motioncore.transition.engine`: game-engine settings that reproduce it;
* :mod:`motioncore.transition.joint_order`: B's joints put in A's order.

The public names of the first two are re-exported here.
"""

from motioncore.transition.cuts import FIXED_RATIO, METHODS, Cut, CutMethod, without_bind_pose
from motioncore.transition.planning import REVERSAL_DEG, Comparison, Transition, compare, plan

__all__ = [
    "FIXED_RATIO",
    "METHODS",
    "REVERSAL_DEG",
    "Comparison",
    "Cut",
    "CutMethod",
    "Transition",
    "compare",
    "plan",
    "without_bind_pose",
]

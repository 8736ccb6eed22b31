"""Analysis of one clip: momentum, motion units and phases, MTP cuts, gait.

* :mod:`motioncore.analysis.summary`: the per-clip :func:`features` and the whole
  :func:`analyze` report (re-exported here);
* :mod:`motioncore.analysis.momentum`: centre-of-mass momentum curves;
* :mod:`motioncore.analysis.mtp`: motion units and momentum transition points;
* :mod:`motioncore.analysis.phases`: start / steady / transition / ending labels;
* :mod:`motioncore.analysis.gait`: gait phase and cycles from foot contacts, with
  :mod:`motioncore.analysis.periodicity` (is the motion periodic) and
  :mod:`motioncore.analysis.duty` (stance duty factors).
"""

from motioncore.analysis.summary import (
    CURVE_UNITS,
    INITIAL_WINDOW_S,
    MIN_FRAMES,
    STEADY_RATIO,
    Analysis,
    Features,
    analyze,
    features,
)

__all__ = [
    "CURVE_UNITS",
    "INITIAL_WINDOW_S",
    "MIN_FRAMES",
    "STEADY_RATIO",
    "Analysis",
    "Features",
    "analyze",
    "features",
]

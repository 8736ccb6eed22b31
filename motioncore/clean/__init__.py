"""Cleaning a clip: bind pose, outliers, resampling, smoothing, foot skate.

* :mod:`motioncore.clean.pipeline`: :func:`clean` and its :class:`CleanReport`
  (re-exported here);
* :mod:`motioncore.clean.outliers`: the 3-sigma repair and the leading bind pose;
* :mod:`motioncore.clean.resample`: resampling to another frame rate;
* :mod:`motioncore.clean.smooth`: Savitzky-Golay and Butterworth smoothing;
* :mod:`motioncore.clean.footskate`: locking planted feet with two-bone IK.
"""

from motioncore.clean.pipeline import CleanReport, Progress, SmoothMethod, clean

__all__ = ["CleanReport", "Progress", "SmoothMethod", "clean"]

"""Phase-functioned neural network (PFNN) locomotion on the canonical skeleton.

* :mod:`motioncore.pfnn.dataset`: which clips may train shipped weights, canonical
  60 Hz motion with mirrors, gait phase, per-frame features, splits by clip;
* :mod:`motioncore.pfnn.phase`: the phase function (expert blend coefficients,
  smoothstep or cyclic Catmull-Rom), shared by training and the runtime;
* :mod:`motioncore.pfnn.network`: the weights and the numpy runtime (constant,
  linear and cubic modes), no torch needed;
* :mod:`motioncore.pfnn.train`: the torch model and its training (needs torch).
"""

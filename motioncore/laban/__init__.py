"""Labanotation to animation (seed 003, LabanDancer).

* :mod:`motioncore.laban.score`: the score format (``kinetograph-score/1``), its
  validation and JSON Schema;
* :mod:`motioncore.laban.importers.microsoft`: importers for Microsoft's LabanotationSuite and
  gestureBotDesignKit JSON;
* :mod:`motioncore.laban.importers.labanwriter`: LabanWriter 4 text in an assumed, unverified
  layout; :mod:`motioncore.laban.importers.reader` picks the importer for a file;
* :mod:`motioncore.laban.timing`: channels and the timing rules of interpretation;
* :mod:`motioncore.laban.footprints`, :mod:`motioncore.laban.body_path`,
  :mod:`motioncore.laban.com_path`,
  :mod:`motioncore.laban.foot_keys` (ground keys; with
  :mod:`motioncore.laban.flight_keys`, :mod:`motioncore.laban.free_leg`,
  :mod:`motioncore.laban.foot_geometry` and :mod:`motioncore.laban.pchip`),
  :mod:`motioncore.laban.gestures` and
  :mod:`motioncore.laban.synthesize`: supports to footprints, the optimised
  centre-of-mass path, foot keys, gestures, and the animation.
"""

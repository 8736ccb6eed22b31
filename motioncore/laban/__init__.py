"""Labanotation to animation (seed 003, LabanDancer).

* :mod:`motioncore.laban.score`: the score format (``kinetograph-score/1``), its
  validation and JSON Schema;
* :mod:`motioncore.laban.microsoft`: importers for Microsoft's LabanotationSuite and
  gestureBotDesignKit JSON.
"""

"""Score files of other programs into the score format.

* :mod:`motioncore.laban.importers.reader`: one entry for every file Kinetograph reads;
* :mod:`motioncore.laban.importers.microsoft`: Microsoft's LabanotationSuite and
  gestureBot JSON;
* :mod:`motioncore.laban.importers.labanwriter`: LabanWriter 4 text, in an assumed,
  unverified layout, whose records :mod:`motioncore.laban.importers.labanwriter_records`
  reads.
"""

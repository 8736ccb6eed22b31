"""Command line: ``python -m motioncore validate|clean|info|analyze|transition|pfnn|laban``.

* :mod:`motioncore.cli.app`: :func:`main`, the parser and the BVH commands
  (re-exported here);
* :mod:`motioncore.cli.analysis`: ``analyze`` and ``transition``;
* :mod:`motioncore.cli.pfnn`: ``pfnn dataset|train|evaluate|generate``;
* :mod:`motioncore.cli.laban`: ``laban SCORE -o OUT.bvh``.
"""

from motioncore.cli.app import EXIT_INVALID, EXIT_OK, main

__all__ = ["EXIT_INVALID", "EXIT_OK", "main"]

"""``python -m motioncore``: see :mod:`motioncore.cli`."""

from motioncore.cli import main

raise SystemExit(main())

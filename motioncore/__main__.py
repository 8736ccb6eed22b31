"""``python -m motioncore``: see :mod:`motioncore.cli`."""

import os

# MKL picks its kernels by CPU (AVX-512 ones on Intel, AVX2 ones on AMD) and the weights
# of a training drift apart from the first batch on. Its conditional numerical
# reproducibility mode, read once when MKL starts, pins the AVX2 kernels: `pfnn train`
# and `motornerve train` give the same weights on every x86-64 CPU with AVX2.
os.environ.setdefault("MKL_CBWR", "AVX2")

from motioncore.cli import main  # after the environment variable MKL reads

raise SystemExit(main())

"""``python -m motioncore``: see :mod:`motioncore.cli`."""

import os

# MKL picks its kernels by CPU (AVX-512 ones on Intel, AVX2 ones on AMD) and the weights
# of a training drift apart from the first batch on. Its conditional numerical
# reproducibility mode, read once when MKL starts, pins the AVX2 kernels: `pfnn train`
# and `motornerve train` give the same weights on every x86-64 CPU with AVX2.
os.environ.setdefault("MKL_CBWR", "AVX2")
# oneDNN (torch's convolutions and recurrent layers on CPU) picks its kernels the same way,
# read when it first runs: an Intel Xeon's AVX-512 kernels moved MotorNerve's first epoch
# loss by 1.1e-3 of itself from the run on an AMD EPYC, its AVX2 ones by 1.5e-4.
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")

from motioncore.cli import main  # after the environment variable MKL reads

raise SystemExit(main())

"""numpy for the learning code (datasets, networks, the learning bots), its BLAS held to one thread.

The networks are small: a move multiplies a few rows by matrices of a few hundred columns, and
training multiplies batches of 64. A BLAS spreading such products over every core gains nothing
and loses much when the cores are busy: its threads spin waiting for each other (training took
ten times as long beside other work). Bot processes get one thread from the harness already
(``ONE_THREAD`` in arena/sandbox/process.py); this does the same for ``arena train``, ``arena dataset``
and bots played in-process. numpy's BLAS reads its thread count once, when numpy is first
imported, so this module sets it first, unless the environment already says otherwise: import
numpy from here, ``from arena.learning.numeric import np``.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

__all__ = ["np"]

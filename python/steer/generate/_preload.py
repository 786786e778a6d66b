"""What the fork server of `_parallel` loads once, before it forks each
worker: the generator with everything it registers, pandas (see
`_parallel.import_pandas`) and inflect's engine (which the wordings use and
which loads lazily, with typeguard, about 50 ms). Without this each worker would pay
them again. Everything loaded is then frozen out of the garbage collector: a
worker's full collections would otherwise walk (and copy, page by page) the
150,000 objects it inherits, about 0.15 s of CPU per worker."""

from __future__ import annotations

import gc

import steer.generate._generate  # noqa: F401
from steer.generate._parallel import import_pandas
from steer.templates._inflect import warm

import_pandas()
warm()
gc.freeze()

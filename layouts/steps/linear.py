"""The linear programs of layering and placement, solved by HiGHS through SciPy.

``minimize_linear`` solves ``min cost·x`` subject to ``A·x <= upper`` and ``lower <= x``,
with ``A`` given as coordinate triplets (entries at one place add up); this module is the
only one that knows the solver. It goes through ``scipy.optimize.milp`` with no integer
variables: the same HiGHS dual simplex as ``linprog(method="highs-ds")``, which returns
the same vertex, with about half of ``linprog``'s fixed cost per call (0.9 ms against
1.6 ms), the larger part of a small diagram's layout. ``A`` goes straight to the
column-wise form HiGHS reads.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csc_array


class InfeasibleProgram(ValueError):
    """HiGHS found no optimum (only on inputs the callers rule out, such as a cycle)."""


def minimize_linear(cost: NDArray[np.float64], rows: ArrayLike, cols: ArrayLike, values: ArrayLike,
                    upper: NDArray[np.float64], lower: NDArray[np.float64] | float) -> NDArray[np.float64]:
    matrix = csc_array((np.asarray(values, dtype=np.float64),
                        (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                       shape=(len(upper), len(cost)))
    result = milp(cost, constraints=LinearConstraint(matrix, -np.inf, upper), bounds=Bounds(lower, np.inf))
    if result.status != 0 or result.x is None:
        raise InfeasibleProgram(result.message)
    return np.asarray(result.x, dtype=float)

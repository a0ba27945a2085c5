"""The linear and integer programs of layering, placement and exact ordering, solved by HiGHS.

This module is the only one that knows the solver: HiGHS through ``highspy``, its own
Python binding (6 MB and about 0.01 s to import on top of numpy, where SciPy, which
bundles HiGHS too, is 143 MB and 0.33 s). Programs come as coordinate triplets (entries
at one place add up), which go straight to the column-wise form HiGHS reads.

The HiGHS version is part of the drawing: layering and placement programs often have
several optimal vertices, and another version may land on another one (HiGHS 1.16
moves shapes in 13 of the corpus's 1,107 renders). highspy 1.12 is the HiGHS that
SciPy 1.17 bundled, so the drawings stayed as they were; a newer one is a deliberate
change with its goldens reviewed.

Deterministic: one thread, HiGHS's fixed default seed, no time limit (a MIP stops only
at a node count). ``highspy._core._Highs`` is the plain binding; ``highspy.Highs``
wraps it with Python logging callbacks, which print a banner to stdout on creation.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from highspy._core import HighsModelStatus, MatrixFormat, ObjSense, _Highs
from numpy.typing import ArrayLike, NDArray

#: The integer programs (exact orderings) are small and start from a heuristic's
#: solution: HiGHS's sub-MIP searches (RINS, RENS), strong branching and a large cut
#: pool cost them several times what they save (a 358-variable block of
#: blueprint.car-rental: 2.6 s with HiGHS's defaults, 0.3 s with these).
MIP_OPTIONS: dict[str, bool | int] = {"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False,
                                      "mip_pscost_minreliable": 0, "mip_pool_soft_limit": 10}


class InfeasibleProgram(ValueError):
    """HiGHS proved no optimum: the program is infeasible or unbounded (only on inputs
    the callers rule out, such as a cycle), or a MIP hit its node limit."""


def minimize_linear(cost: NDArray[np.float64], rows: ArrayLike, cols: ArrayLike, values: ArrayLike,
                    upper: NDArray[np.float64], lower: NDArray[np.float64] | float) -> NDArray[np.float64]:
    """``min cost·x`` subject to ``A·x <= upper`` and ``lower <= x``."""
    variable_count = len(cost)
    return minimize(cost, rows, cols, values, np.full(len(upper), -np.inf), upper,
                    np.broadcast_to(np.asarray(lower, dtype=np.float64), (variable_count,)),
                    np.full(variable_count, np.inf))


def minimize(cost: NDArray[np.float64], rows: ArrayLike, cols: ArrayLike, values: ArrayLike,
             row_lower: ArrayLike, row_upper: ArrayLike, col_lower: ArrayLike, col_upper: ArrayLike,
             integer: bool = False, node_limit: int | None = None, start: ArrayLike | None = None,
             options: Mapping[str, bool | int | str] | None = None) -> NDArray[np.float64]:
    """``min cost·x`` subject to ``row_lower <= A·x <= row_upper`` and ``col_lower <= x <=
    col_upper``, every variable integral if ``integer`` (then at most ``node_limit``
    branch-and-bound nodes, from the feasible point ``start`` if given); ``options``:
    HiGHS's, over the defaults. Raises
    InfeasibleProgram, with HiGHS's model status, when it proves no optimum."""
    variable_count = len(cost)
    row_lower = np.asarray(row_lower, dtype=np.float64)
    starts, row_index, entries = _column_wise(rows, cols, values, variable_count)
    highs = _Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    if node_limit is not None:
        highs.setOptionValue("mip_max_nodes", node_limit)
    for option, value in {**(MIP_OPTIONS if integer else {}), **(options or {})}.items():
        highs.setOptionValue(option, value)
    integrality = np.full(variable_count, 1 if integer else 0, dtype=np.int32)
    highs.passModel(variable_count, len(row_lower), len(entries), int(MatrixFormat.kColwise),
                    int(ObjSense.kMinimize), 0.0, np.asarray(cost, dtype=np.float64),
                    np.asarray(col_lower, dtype=np.float64), np.asarray(col_upper, dtype=np.float64),
                    row_lower, np.asarray(row_upper, dtype=np.float64), starts, row_index, entries, integrality)
    if start is not None:
        highs.setSolution(variable_count, np.arange(variable_count, dtype=np.int32),
                          np.asarray(start, dtype=np.float64))
    highs.run()
    status = highs.getModelStatus()
    if status != HighsModelStatus.kOptimal:
        raise InfeasibleProgram(highs.modelStatusToString(status))
    return np.asarray(highs.getSolution().col_value, dtype=np.float64)


def _column_wise(rows: ArrayLike, cols: ArrayLike, values: ArrayLike, column_count: int
                 ) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """Column starts, row indices and values of the matrix with these triplets, sorted by
    column and row, entries at one place added up (HiGHS refuses repeated indices)."""
    row_array = np.asarray(rows, dtype=np.int64)
    col_array = np.asarray(cols, dtype=np.int64)
    value_array = np.asarray(values, dtype=np.float64)
    order = np.lexsort((row_array, col_array))
    row_array, col_array, value_array = row_array[order], col_array[order], value_array[order]
    if len(order):
        first = np.flatnonzero(np.concatenate(
            ([True], (row_array[1:] != row_array[:-1]) | (col_array[1:] != col_array[:-1]))))
        value_array = np.add.reduceat(value_array, first)
        row_array, col_array = row_array[first], col_array[first]
    starts = np.concatenate(([0], np.cumsum(np.bincount(col_array, minlength=column_count))))
    return starts.astype(np.int32), row_array.astype(np.int32), value_array

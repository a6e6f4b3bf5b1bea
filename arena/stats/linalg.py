"""The little dense linear algebra the rating fits need, on lists of floats: a Cholesky
factorisation of a symmetric positive definite matrix, solving with it, and its inverse.

Matrices are lists of rows. Sizes are a tournament's players (tens, a few hundred at most), so
plain Python is fast enough: a 72 x 72 factorisation takes a few milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import mul

Matrix = list[list[float]]


class NotPositiveDefiniteError(ValueError):
    """The matrix given to :func:`cholesky` is not (numerically) positive definite."""


def cholesky(matrix: Sequence[Sequence[float]]) -> Matrix:
    """The lower triangular ``L`` with ``L L^T = matrix`` (rows of ``L``, zeros above the diagonal
    left out: row ``i`` has ``i + 1`` entries). Raises :class:`NotPositiveDefiniteError`."""
    n = len(matrix)
    lower: Matrix = []
    for i in range(n):
        row_i: list[float] = []
        for j in range(i):
            row_j = lower[j]
            total = matrix[i][j] - sum(map(mul, row_i, row_j))
            row_i.append(total / row_j[j])
        pivot = matrix[i][i] - sum(map(mul, row_i, row_i))
        if not pivot > 0.0:
            raise NotPositiveDefiniteError(f"pivot {i} is {pivot!r}")
        row_i.append(math.sqrt(pivot))
        lower.append(row_i)
    return lower


def solve(lower: Matrix, rhs: Sequence[float]) -> list[float]:
    """The ``x`` with ``L L^T x = rhs``, ``L`` from :func:`cholesky`."""
    n = len(lower)
    y: list[float] = []
    for i in range(n):
        row = lower[i]
        y.append((rhs[i] - sum(map(mul, row, y))) / row[i])
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(lower[k][i] * x[k] for k in range(i + 1, n))) / lower[i][i]
    return x


def inverse(lower: Matrix) -> Matrix:
    """The inverse of ``L L^T`` (symmetric, full rows), ``L`` from :func:`cholesky`."""
    n = len(lower)
    # the columns of inv(L), by forward substitution: column j is zero above row j
    columns: Matrix = []
    for j in range(n):
        column = [0.0] * n
        column[j] = 1.0 / lower[j][j]
        for i in range(j + 1, n):
            row = lower[i]
            column[i] = -sum(map(mul, row[j:i], column[j:i])) / row[i]
        columns.append(column)
    # inv(L L^T) = inv(L)^T inv(L): entry (i, j) is the dot product of columns i and j of inv(L)
    result: Matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        tail = columns[i][i:]
        for j in range(i + 1):
            result[i][j] = result[j][i] = sum(map(mul, tail, columns[j][i:]))
    return result


def product(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> Matrix:
    """The matrix product ``a b`` (a 72 x 72 one in about 15 ms)."""
    columns = list(zip(*b))
    return [[sum(map(mul, row, column)) for column in columns] for row in a]

"""The dense linear algebra of the rating fits, on a small matrix worked out by hand."""

from __future__ import annotations

import pytest

from arena.stats.linalg import NotPositiveDefiniteError, cholesky, inverse, solve

#: [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]]; its inverse is [[3, -2], [-2, 4]] / 8
MATRIX = [[4.0, 2.0], [2.0, 3.0]]


def test_cholesky_of_a_2x2_matrix():
    assert cholesky(MATRIX) == [[2.0], [1.0, pytest.approx(2**0.5)]]


def test_solve_with_the_factor():
    assert solve(cholesky(MATRIX), [8.0, 7.0]) == pytest.approx([1.25, 1.5])


def test_inverse_from_the_factor():
    assert inverse(cholesky(MATRIX)) == [pytest.approx([3 / 8, -2 / 8]), pytest.approx([-2 / 8, 4 / 8])]


def test_a_matrix_that_is_not_positive_definite_is_refused():
    with pytest.raises(NotPositiveDefiniteError):
        cholesky([[1.0, 2.0], [2.0, 1.0]])


def test_the_product_of_two_matrices_is_row_by_column():
    from arena.stats.linalg import product

    assert product([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]) == [[19.0, 22.0], [43.0, 50.0]]
    assert product([[1.0, 2.0, 3.0]], [[1.0], [0.0], [2.0]]) == [[7.0]]

"""`steer._draws` returns what numpy's Generator methods return and leaves
the stream where they leave it: numpy is the reference, on twin generators."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _draws, _native
from steer.errors import InputError

# Ranges on both sides of numpy's 32-bit path (and its all-ones special cases).
# (low, high) pairs.
BOUNDS = st.one_of(
    st.tuples(st.integers(-50, 50), st.integers(1, 40)).map(lambda t: (t[0], t[0] + t[1])),
    st.tuples(st.integers(-(2**40), 2**40), st.integers(1, 2**33)).map(
        lambda t: (t[0], t[0] + t[1])
    ),
    st.just((0, 2**32)),  # the closed range 2^32 - 1: one raw 32-bit word
    st.just((0, 2**32 + 1)),
    st.just((-(2**63), 2**63 - 1)),  # 2^64 - 2: the 64-bit path at its top
)


def twins(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    return np.random.Generator(np.random.PCG64(seed)), np.random.Generator(np.random.PCG64(seed))


def same_stream(a: np.random.Generator, b: np.random.Generator) -> None:
    # Also checks PCG64's buffered half word: the next 32-bit draw uses it.
    assert a.bit_generator.state == b.bit_generator.state
    assert a.integers(0, 7, size=3).tolist() == b.integers(0, 7, size=3).tolist()


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    bounds=BOUNDS,
    size=st.integers(0, 40),
    odd_start=st.booleans(),
)
def test_integers_match_numpy(
    seed: int, bounds: tuple[int, int], size: int, odd_start: bool
) -> None:
    low, high = bounds
    numpy_rng, ours = twins(seed)
    if odd_start:  # leave half a 64-bit word buffered first
        assert numpy_rng.integers(3) == ours.integers(3)
    expected = numpy_rng.integers(low, high, size=size)
    got = _draws.integers(ours, low, high, size)
    assert got.dtype == expected.dtype == np.int64
    assert got.tolist() == expected.tolist()
    same_stream(numpy_rng, ours)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), bounds=BOUNDS, odd_start=st.booleans())
def test_one_integer_matches_numpy(seed: int, bounds: tuple[int, int], odd_start: bool) -> None:
    low, high = bounds
    numpy_rng, ours = twins(seed)
    if odd_start:
        assert numpy_rng.integers(3) == ours.integers(3)
    for _ in range(3):
        got = _draws.integer(ours, low, high)
        assert type(got) is int and got == int(numpy_rng.integers(low, high))
    same_stream(numpy_rng, ours)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    population=st.one_of(st.integers(1, 60), st.integers(9_990, 12_000)),
    share=st.floats(0, 1),
)
def test_samples_match_numpy(seed: int, population: int, share: float) -> None:
    # Populations above 10,000 with samples above 1/50 of them take numpy's
    # other algorithm (a tail shuffle).
    size = round(population * share)
    numpy_rng, ours = twins(seed)
    expected = numpy_rng.choice(population, size=size, replace=False).tolist()
    assert _draws.sample(ours, population, size) == expected
    same_stream(numpy_rng, ours)


def test_sample_of_picks_the_items_numpy_picks() -> None:
    items = ["ant", "bee", "cat", "dog", "eel"]
    numpy_rng, ours = twins(4)
    for size in (0, 1, 2, 5):
        assert _draws.sample_of(ours, items, size) == [
            str(x) for x in numpy_rng.choice(items, size=size, replace=False)
        ]
    same_stream(numpy_rng, ours)


def test_a_shape_is_filled_in_numpy_order() -> None:
    numpy_rng, ours = twins(9)
    expected = numpy_rng.integers(0, 10, size=(3, 3, 2))
    got = _draws.integers(ours, 0, 10, (3, 3, 2))
    assert got.shape == (3, 3, 2) and (got == expected).all()


def test_bad_arguments_are_input_errors_and_draw_nothing() -> None:
    numpy_rng, ours = twins(2)
    with pytest.raises(InputError, match="low >= high"):
        _draws.integers(ours, 5, 5, 3)
    with pytest.raises(InputError, match="low >= high"):
        _draws.integer(ours, 2, 1)
    with pytest.raises(InputError, match="cannot take 4 distinct items"):
        _draws.sample(ours, 3, 4)
    with pytest.raises(InputError, match=r"numpy\.random\.Generator"):
        _native.sample(object(), 3, 1)  # type: ignore[arg-type]
    same_stream(numpy_rng, ours)


def test_the_generator_lock_is_released_after_each_draw() -> None:
    # numpy's own methods would block forever on a lock left held.
    rng = np.random.Generator(np.random.PCG64(1))
    _draws.sample(rng, 10, 3)
    with pytest.raises(InputError):
        _draws.sample(rng, 1, 2)
    assert rng.bit_generator.lock.acquire(blocking=False)
    rng.bit_generator.lock.release()
    done = threading.Event()
    threading.Thread(target=lambda: (rng.integers(5, size=4), done.set())).start()
    assert done.wait(5)

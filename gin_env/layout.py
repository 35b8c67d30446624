"""Flat vectors built from named parts: the two helpers every layout of the package shares
(the gin observations, move history and state in :mod:`gin_env.encoding`, rummy's in
:mod:`gin_env.rummy_encoding`, the hand value's features in the evaluation).

A layout is a sequence of ``(name, size)`` parts laid side by side; :func:`part_slices`
says where each lies. Card parts are 52 zero/one entries, card ``c`` at index ``c``, and
:func:`int_bits` writes a whole int of bits (a card mask, or many parts packed into one
int) in a single numpy call.

>>> part_slices([("role", 3), ("phase", 5)])
{'role': slice(0, 3, None), 'phase': slice(3, 8, None)}
>>> int_bits(0b1101, 5).tolist()
[1, 0, 1, 1, 0]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

__all__ = ["part_slices", "part_views", "int_bits"]

# np.unpackbits is fastest with its default big-endian bit order; reversing the bits of each
# little-endian byte first (bytes.translate) puts bit i of the int at position i.
_REVERSED_BYTE = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def part_slices(parts: Iterable[tuple[str, int]]) -> dict[str, slice]:
    """Where each named part lies in a vector that holds ``parts`` in order: ``{name:
    slice}``. A name given twice or a negative size is a ValueError."""
    out: dict[str, slice] = {}
    start = 0
    for name, size in parts:
        if name in out:
            raise ValueError(f"the part {name!r} is named twice in one layout")
        if size < 0:
            raise ValueError(f"the part {name!r} has a negative size {size}")
        out[name] = slice(start, start + size)
        start += size
    return out


def part_views(
    vector: np.ndarray,
    parts: Sequence[tuple[str, int]],
    per_seat: Mapping[str, int],
    seats: int,
    what: str,
) -> dict[str, np.ndarray]:
    """The named parts of ``vector`` (its last axis laid out as ``parts``), as views; a part
    named in ``per_seat`` holds one row of that width for each of the ``seats``. A last
    axis of the wrong size is a ValueError that names ``what`` the vector is."""
    vector = np.asarray(vector)
    size = sum(n for _, n in parts)
    if vector.ndim == 0 or vector.shape[-1] != size:
        raise ValueError(f"{what} has {size} entries (the last axis), got shape {vector.shape}")
    out = {}
    for name, where in part_slices(parts).items():
        part = vector[..., where]
        if name in per_seat:
            part = part.reshape(*vector.shape[:-1], seats, per_seat[name])
        out[name] = part
    return out


def int_bits(value: int, count: int) -> np.ndarray:
    """The low ``count`` bits of the non-negative int ``value`` as zero/one ``uint8``
    entries, bit ``i`` at index ``i`` (a card mask with ``count=52`` is its card part)."""
    raw = value.to_bytes((count + 7) // 8, "little").translate(_REVERSED_BYTE)
    return np.unpackbits(np.frombuffer(raw, np.uint8))[:count]

"""A compiled reader of BVH frame lines (numba), used by :mod:`motioncore.bvh.fast`.

It scans the bytes of the MOTION block once and writes every value into a
preallocated float64 array. It accepts only the plain decimal forms BVH
exporters write (``-12.5``, ``3``, ``.5``, ``5.1072e-06``) and converts them
exactly: the significant digits go into an integer ``m < 2**53`` and the value
is ``m * 10**e`` or ``m / 10**-e`` with ``|e| <= 22``, one correctly rounded
operation on exact operands (Clinger's fast path), so the result is the
correctly rounded double, identical to ``strtod``. Well-formed numbers outside
that range (more digits, ``6.6e-19``) are left to Python's correctly rounded
``float`` afterwards (their byte spans are recorded). Anything else — ``nan``,
a stray character, a line with the wrong number of values, more values than
expected — stops the scan with a status, and the caller falls back to the
general reader, which reports located errors.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

OK = 0
BAD_TOKEN = 1
BAD_LINE = 2
TOO_MANY = 3
UNSUPPORTED = 4

_MAX_EXACT_MANTISSA = 1 << 53
_POW10 = np.array([10.0**k for k in range(23)])


@njit(cache=True, nogil=True)
def _scan(
    buf: NDArray[np.uint8],
    start: int,
    channels: int,
    out: NDArray[np.float64],
    pow10: NDArray[np.float64],
    fixups: NDArray[np.int64],
) -> tuple[int, int, int, int, int, int]:  # pragma: no cover - compiled; tested through scan
    """``(status, values_written, lf_count, crlf_count, lone_cr_count, fixup_count)``.

    ``fixups[k] = (value index, token start, token end)`` for values left to Python.
    """
    n = buf.shape[0]
    i = start
    count = 0
    on_line = 0
    lf = 0
    crlf = 0
    lone_cr = 0
    nfix = 0
    capacity = out.shape[0]
    while i < n:
        c = buf[i]
        if c == 32 or c == 9:  # space, tab
            i += 1
            continue
        if c == 10 or c == 13:  # LF, CR (CRLF is one line end)
            if c == 10:
                lf += 1
            elif i + 1 < n and buf[i + 1] == 10:
                lf += 1
                crlf += 1
                i += 1
            else:
                lone_cr += 1
            if on_line != 0 and on_line != channels:
                return BAD_LINE, count, lf, crlf, lone_cr, nfix
            on_line = 0
            i += 1
            continue
        # one number
        token_start = i
        exact = True
        negative = False
        if c == 45 or c == 43:  # '-' '+'
            negative = c == 45
            i += 1
        mantissa = 0
        digits = 0
        exponent = 0
        seen_point = False
        while i < n:
            c = buf[i]
            if 48 <= c <= 57:
                if mantissa == 0 and c == 48:
                    if seen_point:
                        exponent -= 1
                    digits += 1
                    i += 1
                    continue
                if mantissa >= _MAX_EXACT_MANTISSA // 10:
                    exact = False  # too many digits for one exact operation
                else:
                    mantissa = mantissa * 10 + (c - 48)
                if seen_point:
                    exponent -= 1
                digits += 1
                i += 1
            elif c == 46 and not seen_point:  # '.'
                seen_point = True
                i += 1
            else:
                break
        if digits == 0:
            return BAD_TOKEN, count, lf, crlf, lone_cr, nfix
        if i < n and (buf[i] == 101 or buf[i] == 69):  # 'e' 'E'
            i += 1
            exp_negative = False
            if i < n and (buf[i] == 45 or buf[i] == 43):
                exp_negative = buf[i] == 45
                i += 1
            exp_digits = 0
            exp_value = 0
            while i < n and 48 <= buf[i] <= 57:
                if exp_value > 1000:
                    return UNSUPPORTED, count, lf, crlf, lone_cr, nfix
                exp_value = exp_value * 10 + (buf[i] - 48)
                exp_digits += 1
                i += 1
            if exp_digits == 0:
                return BAD_TOKEN, count, lf, crlf, lone_cr, nfix
            exponent += -exp_value if exp_negative else exp_value
        if i < n:
            c = buf[i]
            if not (c == 32 or c == 9 or c == 10 or c == 13):
                return BAD_TOKEN, count, lf, crlf, lone_cr, nfix
        if count >= capacity:
            return TOO_MANY, count, lf, crlf, lone_cr, nfix
        if mantissa != 0 and (exponent > 22 or exponent < -22):
            exact = False
        if not exact:
            if nfix >= fixups.shape[0]:
                return UNSUPPORTED, count, lf, crlf, lone_cr, nfix
            fixups[nfix, 0] = count
            fixups[nfix, 1] = token_start
            fixups[nfix, 2] = i
            nfix += 1
            value = 0.0
        elif mantissa == 0:
            value = 0.0
        elif exponent >= 0:
            value = float(mantissa) * pow10[exponent]
        else:
            value = float(mantissa) / pow10[-exponent]
        out[count] = -value if negative else value
        count += 1
        on_line += 1
    if on_line != 0 and on_line != channels:
        return BAD_LINE, count, lf, crlf, lone_cr, nfix
    return OK, count, lf, crlf, lone_cr, nfix


MAX_FIXUPS = 1 << 16
"""Values left to Python per scan; past this the caller takes the general path."""


def scan(
    buf: NDArray[np.uint8], start: int, channels: int, capacity: int
) -> tuple[int, NDArray[np.float64], int, int, int]:
    """Read frame values from ``buf[start:]``: ``(status, values [n], lf, crlf, lone_cr)``.

    ``capacity`` is the number of values expected (``Frames × channels``); the
    scan stops with ``TOO_MANY`` past it. ``lf`` counts line feeds (alone or after
    a CR), ``crlf`` the CR-LF pairs and ``lone_cr`` the CRs without a line feed,
    all from ``start`` on.
    """
    out = np.empty(capacity, dtype=np.float64)
    fixups = np.empty((MAX_FIXUPS, 3), dtype=np.int64)
    status, count, lf, crlf, lone_cr, nfix = _scan(buf, start, channels, out, _POW10, fixups)
    raw = buf.data
    for index, begin, end in fixups[:nfix].tolist():
        value = float(bytes(raw[begin:end]))  # correctly rounded, like strtod
        if not np.isfinite(value):
            return BAD_TOKEN, out[:index], int(lf), int(crlf), int(lone_cr)
        out[index] = value
    return int(status), out[:count], int(lf), int(crlf), int(lone_cr)

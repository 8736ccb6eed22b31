"""Smoothing of whole-clip signals: Savitzky-Golay and zero-phase Butterworth.

Signals are ``[F, ...]`` arrays sampled at ``fps`` Hz, filtered along axis 0
(time), each trailing channel independently. Rotations ``[F, J, 4]`` (unit
quaternions ``w, x, y, z``) are smoothed in a continuous representation: the
quaternions are unrolled along time (no sign flips), filtered per component and
renormalised. Translations (metres) are filtered per component.

Sources: seed 001 §3.1 smooths the root position with a Savitzky-Golay filter
(去抖动); seed 000 §5.3 low-passes with a Butterworth filter whose cutoff is
2.5x the dominant motion frequency (截止频率取运动主频的 2.5 倍). Neither seed
gives a window length or a filter order; the defaults below are ours.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy.signal import butter, savgol_filter, sosfiltfilt

from motioncore import fk, quat
from motioncore.clip import Clip

FloatArray = NDArray[np.float64]
Method = Literal["savgol", "butterworth"]
Filter = Callable[[FloatArray], FloatArray]

CUTOFF_RATIO = 2.5
"""Butterworth cutoff as a multiple of the dominant frequency (seed 000 §5.3)."""

_NYQUIST_MARGIN = 0.95


def savgol(x: FloatArray, fps: float, *, window_s: float = 0.2, polyorder: int = 3) -> FloatArray:
    """Savitzky-Golay smoothing along time.

    Args:
        x: ``[F, ...]`` signal sampled at ``fps`` Hz.
        fps: frame rate, Hz.
        window_s: window length, seconds (rounded to an odd number of frames,
            at least ``polyorder + 2``; capped at the clip length).
        polyorder: degree of the local polynomial.

    Returns:
        ``[F, ...]`` smoothed copy; a clip too short for the window is copied as is.
    """
    x = np.asarray(x, dtype=np.float64)
    frames = x.shape[0] if x.shape[0] % 2 == 1 else x.shape[0] - 1
    window = min(_odd(window_s * fps), frames)
    window = max(window, _odd(polyorder + 2))
    if window > frames:
        return x.copy()
    return np.asarray(savgol_filter(x, window, polyorder, axis=0, mode="interp"), dtype=np.float64)


def butterworth(x: FloatArray, fps: float, *, cutoff_hz: float, order: int = 4) -> FloatArray:
    """Zero-phase Butterworth low-pass along time (forward-backward, ``sosfiltfilt``).

    Args:
        x: ``[F, ...]`` signal sampled at ``fps`` Hz.
        fps: frame rate, Hz.
        cutoff_hz: -3 dB frequency of the one-way filter, Hz (capped just below Nyquist).
        order: filter order (the forward-backward pass doubles its roll-off).

    Returns:
        ``[F, ...]`` filtered copy, no phase lag; one-frame clips are copied.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] < 2:
        return x.copy()
    wn = min(cutoff_hz / (0.5 * fps), _NYQUIST_MARGIN)
    sos = butter(order, wn, btype="low", output="sos")
    padlen = min(3 * (2 * sos.shape[0] + 1), x.shape[0] - 1)
    return np.asarray(sosfiltfilt(sos, x, axis=0, padlen=padlen), dtype=np.float64)


def dominant_frequency(x: FloatArray, fps: float, *, min_hz: float = 0.25) -> float:
    """Frequency (Hz) of the largest peak of the summed power spectrum of ``x``.

    Args:
        x: ``[F, ...]`` signal; every trailing channel is linearly detrended and
            Hann-windowed, and the channels' power spectra are summed.
        fps: frame rate, Hz.
        min_hz: lowest frequency considered (drifts below it are not "motion").

    Returns:
        The dominant frequency in Hz, or ``nan`` when the clip is too short to
        resolve any frequency at or above ``min_hz``.
    """
    x = np.asarray(x, dtype=np.float64).reshape(np.shape(x)[0], -1)
    frames = x.shape[0]
    if frames < 4:
        return float("nan")
    t = np.arange(frames, dtype=np.float64)
    slope, intercept = np.polyfit(t, x, 1)
    detrended = (x - (t[:, None] * slope + intercept)) * np.hanning(frames)[:, None]
    power = np.sum(np.abs(np.fft.rfft(detrended, axis=0)) ** 2, axis=1)
    freqs = np.fft.rfftfreq(frames, d=1.0 / fps)
    valid = freqs >= min_hz
    if not np.any(valid) or not np.any(power[valid] > 0.0):
        return float("nan")
    return float(freqs[valid][np.argmax(power[valid])])


def quaternions(q: FloatArray, filt: Filter) -> FloatArray:
    """Apply ``filt`` to unit quaternions ``[F, ..., 4]`` in a continuous representation.

    The quaternions are unrolled along axis 0, filtered per component and
    renormalised; the result is ``[F, ..., 4]`` unit quaternions.
    """
    return quat.normalize(filt(quat.unroll(q, axis=0)))


def motion_frequency(clip: Clip, *, min_hz: float = 0.25) -> float:
    """Dominant frequency (Hz) of the joints' world speeds ``[F, J]`` of ``clip``.

    Speeds, not positions, as seed 000 §5.3 analyses the speed curve; ``nan``
    when the clip is too short (see :func:`dominant_frequency`).
    """
    speed = np.linalg.norm(np.gradient(fk.positions(clip), axis=0), axis=-1) * clip.fps
    return dominant_frequency(speed, clip.fps, min_hz=min_hz)


def motion(
    clip: Clip,
    method: Method,
    *,
    window_s: float = 0.2,
    polyorder: int = 3,
    cutoff_hz: float | None = None,
    cutoff_ratio: float = CUTOFF_RATIO,
    order: int = 4,
) -> tuple[Clip, float]:
    """Smooth every joint's local rotation and translation of ``clip``.

    Args:
        clip: the clip (not modified).
        method: ``"savgol"`` or ``"butterworth"``.
        window_s, polyorder: Savitzky-Golay window (seconds) and degree.
        cutoff_hz: Butterworth cutoff, Hz; ``None`` = ``cutoff_ratio`` x the
            dominant frequency (:func:`motion_frequency`).
        cutoff_ratio: multiple of the dominant frequency (seed 000 §5.3).
        order: Butterworth order.

    Returns:
        The smoothed clip and the Butterworth cutoff used in Hz (``nan`` for
        Savitzky-Golay, or when no dominant frequency could be found, in which
        case the clip is returned unchanged).
    """
    if method == "savgol":
        filt: Filter = partial(savgol, fps=clip.fps, window_s=window_s, polyorder=polyorder)
        cutoff = float("nan")
    else:
        cutoff = cutoff_hz if cutoff_hz is not None else cutoff_ratio * motion_frequency(clip)
        if not np.isfinite(cutoff):
            return clip.with_arrays(), cutoff
        filt = partial(butterworth, fps=clip.fps, cutoff_hz=cutoff, order=order)
    smoothed = clip.with_arrays(
        rotations=quaternions(clip.rotations, filt), translations=filt(clip.translations)
    )
    return smoothed, cutoff


def _odd(frames: float) -> int:
    """The nearest odd integer ``>= 1`` to ``frames``."""
    n = max(round(frames), 1)
    return n if n % 2 == 1 else n + 1

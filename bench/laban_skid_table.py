"""Foot skid of every test score's animation, by the independent contact-skid measure
(:func:`motioncore.measures.contact_skid`, on the canonical skeleton, floor y = 0).

One row per score: the worst contact (which foot and sole point, its frames and time,
its skid and the point's fastest horizontal speed), how many contacts skid more than
1 cm, and the worst skid with a 5 mm contact band beside the default 1 cm (how much of
the figure is a point skimming just above the floor). ``--over M`` also lists every
contact that skids more than ``M`` metres.

Where the skid happens, to tell the synthesis rules apart (the point's horizontal path
length, cm, in three parts): *arrive*, from the frame before it enters the band to the
first frame it is down (within :data:`DOWN_M` of the floor); *down*, between its first
and last frames down; *leave*, from then to the frame after it leaves the band; ``-``
when it is never down (it skims the floor). *turned about*: the measure's
``turned_about`` (the contact is the foot turning about a still point; not counted).

    .venv/bin/python bench/laban_skid_table.py [--over 0.01]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore import fk, measures  # noqa: E402
from motioncore.contacts import foot_points  # noqa: E402
from motioncore.laban import score  # noqa: E402
from motioncore.laban.synthesize import synthesize  # noqa: E402
from motioncore.measures.skid import Contact  # noqa: E402
from motioncore.skeleton import canonical  # noqa: E402

SCORES = REPO_ROOT / "tests" / "data" / "scores"
LIMIT_M = 0.01
"""The Labanotation issue's acceptance: skid during ground contact under 1 cm."""
NARROW_BAND_M = 0.005
DOWN_M = 0.001
HEAD = "| foot point | frames | time s | arrive/down/leave cm | skid cm | peak m/s | turned about |"
ROW = "| {} | {} | {} | {} | {:.1f} | {:.2f} | {} |"


@dataclass(frozen=True)
class Graded:
    """A clip's contacts and its feet's points ``{side: {point: [F, 3]}}`` (m)."""

    skid: measures.Skid
    narrow: measures.Skid
    tracks: dict[str, dict[str, np.ndarray]]


def grade(path: Path) -> Graded:
    """Synthesize the score at ``path`` and measure its contacts."""
    clip = synthesize(score.load(path)).clip
    roles = canonical.roles()
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    feet = foot_points.feet(clip.skeleton, roles, g_rot, g_pos)
    tracks: dict[str, dict[str, np.ndarray]] = {
        f.side: {n: foot_points.point(f, n, g_rot, g_pos) for n in f.names} for f in feet
    }
    skid = measures.contact_skid(clip, roles, floor_m=0.0, feet=feet)
    narrow = measures.contact_skid(clip, roles, floor_m=0.0, feet=feet, band_m=NARROW_BAND_M)
    return Graded(skid, narrow, tracks)


def where(contact: Contact, graded: Graded) -> str:
    """Arrive/down/leave path lengths (cm) of ``contact``."""
    track = graded.tracks[contact.side][contact.point]
    first, last = contact.first_frame, contact.last_frame
    down = first + np.flatnonzero(track[first : last + 1, 1] < DOWN_M)
    if down.size == 0:
        return "-/-/-"
    lo, hi = int(down[0]), int(down[-1])
    frames = len(track)
    before, after = max(first - 1, 0), min(last + 1, frames - 1)
    parts = [_length(track, before, lo), _length(track, lo, hi), _length(track, hi, after)]
    return "/".join(f"{p * 100:.1f}" for p in parts)


def _length(track: np.ndarray, a: int, b: int) -> float:
    steps = np.diff(track[a : b + 1][:, [0, 2]], axis=0)
    return float(np.linalg.norm(steps, axis=1).sum())


def row(contact: Contact, graded: Graded) -> str:
    """A contact's cells: foot and point, frames, time, where, skid, speed, turned about."""
    fps = graded.skid.fps
    first, last = contact.first_frame, contact.last_frame
    split = where(contact, graded)
    pivot = contact.turned_about or ""
    return ROW.format(
        f"{contact.side} {contact.point}",
        f"{first}-{last}",
        f"{first / fps:.2f}-{last / fps:.2f}",
        split,
        contact.skid_m * 100,
        contact.peak_speed_mps,
        pivot,
    )[2:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--over", type=float, default=None, help="list contacts over M metres")
    args = parser.parse_args(argv)
    print("| score | worst cm | > 1 cm | worst cm @5 mm band " + HEAD)
    print("|---" * 11 + "|")
    listed = []
    for path in sorted(SCORES.glob("*.json")):
        graded = grade(path)
        skid, worst = graded.skid, graded.skid.worst
        over = sum(c.skid_m > LIMIT_M for c in skid.skids)
        cells = row(worst, graded) if worst is not None else "- | - | - | - | - | - | |"
        print(
            f"| {path.stem} | {skid.worst_m * 100:.1f} | {over}/{len(skid.contacts)} | "
            f"{graded.narrow.worst_m * 100:.1f} | {cells}"
        )
        if args.over is not None:
            listed += [(path.stem, c, graded) for c in skid.contacts if c.skid_m > args.over]
    if listed:
        print("\n| score " + HEAD)
        print("|---" * 8 + "|")
        for stem, contact, graded in sorted(listed, key=lambda x: -x[1].skid_m):
            print(f"| {stem} | {row(contact, graded)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The HIERARCHY section of a BVH file: tokens with positions, then joints.

Tokenise the header (every token keeps its 1-based line and column), then parse
``ROOT``/``JOINT``/``End Site`` blocks recursively with a small cursor. Every
malformed input raises :class:`~motioncore.errors.BVHParseError` at the token
that is wrong.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from motioncore.bvh.limits import DEFAULT, Limits
from motioncore.errors import BVHLimitError, BVHParseError

MAX_JOINTS = 10_000
MAX_CHANNELS_PER_JOINT = 64
CHANNEL_NAMES = {
    f"{axis}{kind}": f"{axis.upper()}{kind}"
    for axis in ("x", "y", "z", "X", "Y", "Z")
    for kind in ("position", "rotation")
}
_CHANNEL_LOOKUP = {name.lower(): canonical for name, canonical in CHANNEL_NAMES.items()}


@dataclass(frozen=True)
class Token:
    """One whitespace-separated word of the header, with its 1-based position."""

    text: str
    line: int
    column: int


@dataclass(frozen=True)
class RawJoint:
    """A joint as declared: name, kind, parent index, OFFSET (file units), channel names."""

    name: str
    kind: str
    parent: int
    offset: tuple[float, float, float]
    channels: tuple[str, ...]
    line: int


_TOKEN_RE = re.compile(r"[^\s{}]+|[{}]|\n")


def tokenize(header: str, first_line: int = 1) -> list[Token]:
    """Whitespace-separated tokens of the header, with 1-based line and column."""
    tokens: list[Token] = []
    line, line_start = first_line, 0
    for match in _TOKEN_RE.finditer(header):
        text = match.group()
        if text == "\n":
            line, line_start = line + 1, match.end()
        else:
            tokens.append(Token(text, line, match.start() - line_start + 1))
    return tokens


class _Cursor:
    """A read position in the token list with located errors."""

    def __init__(self, tokens: list[Token], end_line: int, limits: Limits) -> None:
        self.tokens = tokens
        self.pos = 0
        self.end_line = end_line
        self.limits = limits

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def next(self, what: str) -> Token:
        token = self.peek()
        if token is None:
            raise BVHParseError(self.end_line, 1, f"The hierarchy ends early: expected {what}.")
        self.pos += 1
        return token

    def expect(self, word: str) -> Token:
        token = self.next(quote(word))
        if token.text.upper() != word.upper():
            raise _error(token, f"Expected {quote(word)} but found {quote(token.text)}.")
        return token

    def rest_of_line(self, line: int) -> list[Token]:
        words = []
        while (token := self.peek()) is not None and token.line == line and token.text not in "{}":
            words.append(token)
            self.pos += 1
        return words


def parse_hierarchy(
    tokens: list[Token], end_line: int, *, limits: Limits = DEFAULT
) -> tuple[tuple[RawJoint, ...], list[str]]:
    """Joints of the HIERARCHY section and warnings.

    Several ``ROOT``\\ s are allowed (one skeleton per actor). A top-level ``JOINT``
    (some Mixamo exporters write one) is read as a root and noted in the warnings.
    More joints or deeper nesting than ``limits`` allow raise
    :class:`~motioncore.errors.BVHLimitError` at the joint that is one too many.
    """
    cursor = _Cursor(tokens, end_line, limits)
    cursor.expect("HIERARCHY")
    joints: list[RawJoint] = []
    notes: list[str] = []
    while (token := cursor.peek()) is not None:
        if token.text.upper() == "JOINT":
            notes.append(f"Line {token.line}: a top-level JOINT was read as a ROOT.")
        elif token.text == "}":
            raise _error(token, "This '}' has no matching '{' (the braces are unbalanced).")
        elif token.text.upper() != "ROOT":
            raise _error(token, f"Expected ROOT but found {quote(token.text)}.")
        _parse_joint(cursor, joints, parent=-1, depth=1)
    if not joints:
        raise BVHParseError(end_line, 1, "The hierarchy declares no ROOT joint.")
    return tuple(joints), notes


def _parse_joint(cursor: _Cursor, joints: list[RawJoint], parent: int, depth: int) -> None:
    keyword = cursor.next("ROOT, JOINT or End Site")
    _check_depth(cursor.limits, keyword, depth)
    kind = keyword.text.upper()
    if kind == "END":
        _parse_end_site(cursor, keyword, joints, parent)
        return
    if kind not in ("ROOT", "JOINT"):
        raise _error(keyword, f"Expected JOINT, End Site or '}}' but found {quote(keyword.text)}.")
    name_tokens = cursor.rest_of_line(keyword.line)
    if not name_tokens:
        raise _error(keyword, f"The {kind} on this line has no name.")
    name = " ".join(t.text for t in name_tokens)
    cursor.expect("{")
    offset = _parse_offset(cursor)
    channels = _parse_channels(cursor) if _peek_is(cursor, "CHANNELS") else ()
    _check_joint_count(cursor.limits, keyword, len(joints) + 1)
    index = len(joints)
    joints.append(RawJoint(name, kind, parent, offset, channels, keyword.line))
    while not _peek_is(cursor, "}"):
        _parse_joint(cursor, joints, parent=index, depth=depth + 1)
    cursor.expect("}")


def _check_depth(limits: Limits, keyword: Token, depth: int) -> None:
    if depth > limits.max_depth:
        raise BVHLimitError(
            keyword.line,
            keyword.column,
            f"The joints are nested more than {limits.max_depth} deep.",
            limit="max_depth",
            value=depth,
            maximum=limits.max_depth,
        )


def _check_joint_count(limits: Limits, keyword: Token, count: int) -> None:
    maximum = min(limits.max_joints, MAX_JOINTS)
    if count > maximum:
        raise BVHLimitError(
            keyword.line,
            keyword.column,
            f"The hierarchy has more than {maximum} joints.",
            limit="max_joints",
            value=count,
            maximum=maximum,
        )


def _parse_end_site(cursor: _Cursor, keyword: Token, joints: list[RawJoint], parent: int) -> None:
    if parent < 0:
        raise _error(keyword, "An End Site cannot be a root.")
    words = cursor.rest_of_line(keyword.line)
    if len(words) > 1 or (words and words[0].text.upper() != "SITE"):
        raise _error(words[-1], "Expected 'End Site'.")
    cursor.expect("{")
    offset = _parse_offset(cursor)
    cursor.expect("}")
    _check_joint_count(cursor.limits, keyword, len(joints) + 1)
    name = f"{joints[parent].name}_End"
    joints.append(RawJoint(name, "End Site", parent, offset, (), keyword.line))


def _parse_offset(cursor: _Cursor) -> tuple[float, float, float]:
    keyword = cursor.expect("OFFSET")
    values: list[float] = []
    for count in range(3):
        token = cursor.next("an OFFSET value")
        if token.line != keyword.line and number(token.text) is None:
            raise _error(keyword, f"OFFSET needs three numbers but only {count} follow it.")
        values.append(_parse_float(token, "OFFSET value"))
    return (values[0], values[1], values[2])


def _parse_channels(cursor: _Cursor) -> tuple[str, ...]:
    keyword = cursor.expect("CHANNELS")
    count_token = cursor.next("the number of channels")
    try:
        count = int(count_token.text)
    except ValueError:
        raise _error(
            count_token, f"CHANNELS needs a count, not {quote(count_token.text)}."
        ) from None
    if not 0 <= count <= MAX_CHANNELS_PER_JOINT:
        raise _error(count_token, f"A joint cannot have {count} channels.")
    names = []
    for _ in range(count):
        token = cursor.next(f"{count} channel names after CHANNELS on line {keyword.line}")
        canonical = _CHANNEL_LOOKUP.get(token.text.lower())
        if canonical is None:
            raise _error(
                token, f"Unknown channel name {quote(token.text)} (expected e.g. Xrotation)."
            )
        names.append(canonical)
    if len(set(names)) != len(names):
        raise _error(keyword, "A channel is listed twice for the same joint.")
    return tuple(names)


def _peek_is(cursor: _Cursor, word: str) -> bool:
    token = cursor.peek()
    if token is None:
        raise BVHParseError(cursor.end_line, 1, "The hierarchy ends early: a '}' is missing.")
    return token.text.upper() == word.upper()


def number(text: str) -> float | None:
    """``float(text)`` for the numbers ``np.loadtxt`` reads, else ``None``.

    Python's ``float`` also takes ``1_000`` and non-ASCII digits, which the frame
    data's fast path rejects; refusing them everywhere keeps header and frame
    lines, and the fast and slow paths, in agreement.
    """
    if not text.isascii() or "_" in text:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _parse_float(token: Token, what: str) -> float:
    value = number(token.text)
    if value is None:
        raise _error(token, f"The {what} {quote(token.text)} is not a number.")
    if not math.isfinite(value):
        raise _error(token, f"The {what} {quote(token.text)} is not a finite number.")
    return value


def _error(token: Token, message: str) -> BVHParseError:
    return BVHParseError(token.line, token.column, message)


def quote(text: str, limit: int = 40) -> str:
    shown = text if len(text) <= limit else text[:limit] + "…"
    return repr(shown)

"""Split CUDA C++ source into tokens, and tell which blocks enclose each token.

The kernel parser (``_signature``) and the source rewrites (``_source``)
both need to see the code as the compiler does: a ``__global__`` in a
comment or a string is not a kernel, and an ``extern __shared__`` inside a
function body is rewritten differently from one at file scope. A full C++
parser is not needed for that, only tokens that skip comments, keep string
literals whole, and keep their character offsets into the original text, so
that a rewrite can replace exactly the characters it means.

Examples
--------
>>> [t.text for t in tokenize('f(a /* b */, "c") // d')]
['f', '(', 'a', ',', '"c"', ')']
>>> tokens = tokenize("namespace ns { void f() { x; } }")
>>> enclosing_blocks(tokens)[tokens.index(Token("name", "x", 26, 27))]
('namespace ns', '{')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Token",
    "closing_bracket",
    "enclosing_blocks",
    "is_angle_bracket",
    "is_file_scope",
    "join_tokens",
    "line_of",
    "opening_bracket",
    "source_text",
    "tokenize",
]

# One alternative per kind of lexeme, tried in this order at each position.
# The string alternatives come before `name` so that the prefixes of u8"..",
# L'..' and R"(..)" are not read as identifiers. A backslash-newline is
# joined away by the compiler before anything else, so it is just space.
_LEXEME = re.compile(
    r"""
      (?P<space>(?:[ \t\f\v\r]|\\\r?\n)+)
    | (?P<newline>\n)
    | (?P<line_comment>//(?:[^\n\\]|\\.)*)
    | (?P<block_comment>/\*.*?(?:\*/|\Z))
    | (?P<raw_string>(?:u8|[uUL])?R"(?P<delimiter>[^()\\\s"]{0,16})\(.*?\)(?P=delimiter)")
    | (?P<string>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*"?)
    | (?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'?)
    | (?P<number>\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*)
    | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
    | (?P<punct>::|->|.)
    """,
    re.VERBOSE | re.DOTALL,
)

_SKIPPED = frozenset({"space", "newline", "line_comment", "block_comment"})


@dataclass(frozen=True)
class Token:
    """One token of the source.

    Attributes
    ----------
    kind : str
        ``"name"`` (an identifier or keyword), ``"number"``, ``"string"`` (a
        string or character literal, quotes included) or ``"punct"`` (one
        punctuation character, or ``::`` or ``->``).
    text : str
        The token as written.
    start, end : int
        Its character offsets in the source: ``source[start:end] == text``.
    in_directive : bool
        Whether it belongs to a preprocessor line (``#define ...``).
    """

    kind: str
    text: str
    start: int
    end: int
    in_directive: bool = False


def tokenize(source: str, *, directives: bool = False) -> list[Token]:
    """The tokens of `source`, without comments and (unless `directives`) preprocessor lines.

    Parameters
    ----------
    source : str
        CUDA C++ source text.
    directives : bool, optional
        Also return the tokens of preprocessor lines, marked ``in_directive``.

    Returns
    -------
    list of Token
    """
    tokens = []
    at_line_start = True  # only space and comments so far on this line
    in_directive = False
    pos = 0
    while pos < len(source):
        match = _LEXEME.match(source, pos)
        kind, text = match.lastgroup, match.group()
        pos = match.end()
        if kind == "newline":
            at_line_start, in_directive = True, False
            continue
        if kind in _SKIPPED:
            continue  # a comment spanning lines does not end a directive, as in C
        if at_line_start and text == "#":
            in_directive = True
        at_line_start = False
        if in_directive and not directives:
            continue
        if kind in ("raw_string", "char"):
            kind = "string"
        tokens.append(Token(kind, text, match.start(), match.end(), in_directive))
    return tokens


def enclosing_blocks(tokens: list[Token]) -> list[tuple[str, ...]]:
    """For each token, the braces around it, outermost first.

    A block is ``"namespace NAME"`` (``"namespace"`` when anonymous),
    ``'extern "C"'`` for a linkage block, or ``"{"`` for any other block:
    a function body, a class, an initializer.

    Parameters
    ----------
    tokens : list of Token
        Tokens from :func:`tokenize` (without directives).

    Returns
    -------
    list of tuple of str
        One tuple per token, in the same order.
    """
    stack: tuple[str, ...] = ()
    result = []
    for i, token in enumerate(tokens):
        if token.text == "}" and stack:
            stack = stack[:-1]
        result.append(stack)
        if token.text == "{":
            stack = (*stack, _block_kind(tokens, i))
    return result


def _block_kind(tokens: list[Token], brace: int) -> str:
    """What the ``{`` at tokens[brace] opens."""
    before = [t.text for t in tokens[max(0, brace - 2) : brace]]
    if before == ["extern", '"C"']:
        return 'extern "C"'
    # namespace a::b { ... }: walk back over the (possibly qualified) name.
    i = brace - 1
    while i >= 0 and (tokens[i].kind == "name" or tokens[i].text == "::"):
        if tokens[i].text == "namespace":
            name = "".join(t.text for t in tokens[i + 1 : brace])
            return f"namespace {name}".rstrip()
        i -= 1
    return "{"


def is_file_scope(blocks: tuple[str, ...]) -> bool:
    """Whether a token inside these blocks is at file (namespace) scope, not in a body."""
    return all(block.startswith(("namespace", "extern")) for block in blocks)


def line_of(source: str, offset: int) -> int:
    """The 1-based line number of the character at `offset`."""
    return source.count("\n", 0, offset) + 1


def is_angle_bracket(tokens: Sequence[Token], at: int) -> bool:
    """Whether the ``<`` or ``>`` at ``tokens[at]`` is a template's bracket.

    Not when it is part of ``<<``, ``<=`` or ``>=``. (A ``>>`` closes two
    templates, as in C++11; a lone comparison can fool this, but it does not
    appear where gpuvec looks: template argument lists and declarations.)
    """
    token = tokens[at]
    before = tokens[at - 1] if at > 0 else None
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    if after is not None and after.start == token.end and after.text == "=":
        return False
    touching = (before is not None and before.end == token.start and before.text == "<") or (
        after is not None and after.start == token.end and after.text == "<"
    )
    return not (token.text == "<" and touching)


def closing_bracket(tokens: Sequence[Token], at: int, opening: str, closing: str) -> int:
    """The index of the bracket that closes the one at ``tokens[at]``; len(tokens) if none.

    Inside angle brackets, parentheses hide what they hold: ``N<(a < b)>``.
    """
    depth = 0
    k = at
    while k < len(tokens):
        text = tokens[k].text
        if opening == "<" and text == "(":
            k = closing_bracket(tokens, k, "(", ")")
        elif text in (opening, closing) and (opening != "<" or is_angle_bracket(tokens, k)):
            depth += 1 if text == opening else -1
        if depth == 0:
            return k
        k += 1
    return len(tokens)


def opening_bracket(tokens: Sequence[Token], at: int, opening: str, closing: str) -> int | None:
    """The index of the bracket that opens the one closing at ``tokens[at]``; None if none."""
    depth = 0
    k = at
    while k >= 0:
        text = tokens[k].text
        if opening == "<" and text == ")":
            found = opening_bracket(tokens, k, "(", ")")
            if found is None:
                return None
            k = found
        elif text in (opening, closing) and (opening != "<" or is_angle_bracket(tokens, k)):
            depth += 1 if text == closing else -1
        if depth == 0:
            return k
        k -= 1
    return None


def source_text(source: str, tokens: Sequence[Token]) -> str:
    """The source from the first of `tokens` to the last, its spaces each made one.

    For text shown as written (``-3``, ``(1 << 4)``), not rebuilt from tokens.
    """
    return " ".join(source[tokens[0].start : tokens[-1].end].split()) if tokens else ""


def join_tokens(tokens: Sequence[Token] | Sequence[str]) -> str:
    """Tokens as C text, spaced as people write types: ``const float*``, ``Vec<int, 3>``."""
    text = ""
    for token in tokens:
        word = token if isinstance(token, str) else token.text
        tight = word in ("*", "&", ",", ">", ")", "]", "::") or text.endswith(
            ("<", "(", "[", "::")
        )
        text += word if tight or not text else " " + word
    return text.replace(",", ", ")

"""Compile errors a student can read: the first error, on the user's own line.

A compiler's log is written for someone who knows its habits. A GCC log
opens with ``In function ...`` and an include stack, shows the line it
compiled (which, on the host backend, may be a rewritten one) and follows
with ``note:`` lines; NVRTC's ends with ``1 error detected in the
compilation of ...``. :func:`summarize` keeps what a student needs: where
the first error is in their source, what it is, their line with a caret
under the spot, and how many more errors there are. The exception keeps
the full log for anyone who wants the rest.

Examples
--------
>>> log = '''cell_3.cu(2): error: identifier "undefined_name" is undefined
...       a[0] = undefined_name;
...              ^
...
... 1 error detected in the compilation of "cell_3.cu".
... '''
>>> source = "__global__ void k(float* a) {\\n    a[0] = undefined_name;\\n}\\n"
>>> print(summarize(log, source, "cell_3.cu", "nvrtc"))
cell_3.cu, line 2: identifier "undefined_name" is undefined
        a[0] = undefined_name;
               ^
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpuvec.kernels._lexer import line_of, tokenize
from gpuvec.kernels._source import EMULATION_HEADER, GENERATED_NAME

__all__ = ["summarize"]

# GCC and Clang: FILE:LINE:COLUMN: error: MESSAGE (the column may be missing).
_GCC_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<column>\d+):)?"
    r" (?P<severity>fatal error|error|warning|note|remark): (?P<message>.*)$"
)
# GCC's instantiation trace, printed before the error it explains:
#   cell_3.cu:5:6:   required from 'void k(gpuvec_checked<T>) [with T = Big]'
_GCC_TRACE = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<column>\d+):)?\s{2,}\S")
# Clang's trace comes after the error, as notes ending in "requested here".
_CLANG_TRACE_NOTE = re.compile(r"requested here$|^in instantiation of|^required from")
# A message with no place: `c++: error: unrecognized command-line option`.
_TOOL_ERROR = re.compile(r"^(?:[\w.+-]+: )?(?P<severity>fatal error|error): (?P<message>.*)$")

# NVRTC: FILE(LINE): error: MESSAGE, or `warning #177-D: ...`.
_NVRTC_DIAGNOSTIC = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<severity>catastrophic error|error|warning|remark)"
    r"(?: #[\w-]+)?: (?P<message>.*)$"
)
# NVRTC's trace: `detected during instantiation of "..." at line 12 of cell_3.cu`
# ("of FILE" left out when it is the error's own file).
_NVRTC_TRACE = re.compile(r"at line (?P<line>\d+)(?: of \"?(?P<file>[^\"\s]+)\"?)?")
_NVRTC_CARET = re.compile(r"^\s*\^\s*$")

_ERRORS = frozenset({"error", "fatal error", "catastrophic error"})

# The keywords of inline assembly: `asm(...)`, `asm volatile(...)`, `__asm__ __volatile__(...)`.
_ASM_KEYWORDS = frozenset({"asm", "__asm", "__asm__"})
# What a host compile of PTX assembly fails with: the assembler's own messages
# (no error line that the summary reads), or GCC's complaints about the asm
# statement's PTX constraints and operands.
_ASM_FAILURE = re.compile(r"Assembler messages|'asm'|\basm\b|__asm__")


@dataclass
class _Diagnostic:
    """One message of a compiler log, with the places its trace names."""

    severity: str
    message: str
    raw: str  # the log's line, for messages that keep the compiler's words
    file: str | None = None
    line: int | None = None
    column: int | None = None
    trace: list[tuple[str, int, int | None]] = field(default_factory=list)


def summarize(log: str, source: str, source_name: str, compiler: str) -> str:
    """A compile error's message: the first error, on the user's line, with a caret.

    Parameters
    ----------
    log : str
        The compiler's whole log.
    source : str
        The user's source, as they wrote it.
    source_name : str
        The name the source was compiled under, such as ``"cell_3.cu"``.
    compiler : {"nvrtc", "host"}
        Which compiler wrote the log: NVRTC, or the host C++ compiler (GCC or Clang).

    Returns
    -------
    str
        For example::

            cell_3.cu, line 5: identifier "undefined_name" is undefined
                    x[i] = undefined_name;
                           ^
            and 1 more error

        An error inside gpuvec's emulation header or generated entries is
        shown at the user's line that led to it, where the log's trace names
        one; otherwise it is said to be in generated code, in the compiler's words.
    """
    parse = _parse_nvrtc if compiler == "nvrtc" else _parse_gcc
    errors = [d for d in parse(log) if d.severity in _ERRORS]
    if compiler == "host":
        assembly = _inline_assembly(log, errors, source, source_name)
        if assembly is not None:
            return assembly
    if not errors:
        return _without_diagnostics(log, source_name)
    text = _describe(errors[0], source, source_name)
    if len(errors) > 1:
        more = len(errors) - 1
        text += f"\nand {more} more error{'s' if more > 1 else ''}"
    return text


def _describe(error: _Diagnostic, source: str, source_name: str) -> str:
    """The message for one error."""
    if error.file is None:
        return f"{source_name} did not compile: {error.raw.strip()}"
    if error.file == source_name:
        return _at_user_line(error.message, source, source_name, error.line, error.column)
    # In a header or in generated code: show the user's line that led there.
    reached = next(((line, col) for file, line, col in error.trace if file == source_name), None)
    where = _place_name(error.file)
    if reached is not None:
        text = _at_user_line(error.message, source, source_name, *reached)
        return f"{text}\n(the error is in {where}, line {error.line}, reached from this line)"
    if error.file == GENERATED_NAME or error.file.endswith(EMULATION_HEADER):
        return f"{source_name}: error in {where}, which gpuvec adds to it:\n{error.raw.strip()}"
    return f"{error.file}, line {error.line}: {error.message}"


def _inline_assembly(
    log: str, errors: list[_Diagnostic], source: str, source_name: str
) -> str | None:
    """The message for a host compile that failed on the source's inline PTX
    assembly, or None where it failed for something else.

    The check follows a failed compile rather than refusing every ``asm``
    up front: an ``asm`` kept from the host compiler (``#ifndef
    GPUVEC_EMULATION``), or one the host understands too (a compiler
    barrier, ``asm volatile("" ::: "memory")``), compiles and runs.
    """
    place = next(
        (t.start for t in tokenize(source) if t.kind == "name" and t.text in _ASM_KEYWORDS), None
    )
    if place is None:
        return None
    first = errors[0] if errors else None
    if first is not None and first.file == source_name and not _ASM_FAILURE.search(first.raw):
        return None  # an error of the user's own code, not of the assembly
    if first is None and not _ASM_FAILURE.search(log):
        return None
    line = line_of(source, place)
    column = place - (source.rfind("\n", 0, place) + 1) + 1
    message = (
        "inline PTX assembly (asm) is not supported by the host backend's CUDA emulation: "
        "the host C++ compiler cannot assemble PTX. Run this kernel on a GPU (the cuda "
        "backend), or give the host another path: #ifdef GPUVEC_EMULATION ... #else asm(...) "
        "#endif"
    )
    return _at_user_line(message, source, source_name, line, column)


def _place_name(file: str) -> str:
    """What to call a file of the log in a message."""
    if file == GENERATED_NAME:
        return "the kernel entries gpuvec generates"
    if file.endswith(EMULATION_HEADER):
        return "gpuvec's CUDA emulation header"
    return file


def _at_user_line(
    message: str, source: str, source_name: str, line: int, column: int | None
) -> str:
    """``NAME, line N: MESSAGE``, the source line, and a caret where it can be placed."""
    text = f"{source_name}, line {line}: {message}"
    lines = source.splitlines()
    if not 1 <= line <= len(lines) or not lines[line - 1].strip():
        return text
    code = lines[line - 1].rstrip()
    text += f"\n    {code}"
    index = _column_index(code, column) if column else _quoted_name_index(message, code)
    if index is not None:
        # The caret's indent copies the line's own tabs, so both line up alike.
        indent = "".join("\t" if c == "\t" else " " for c in code[:index])
        text += f"\n    {indent}^"
    return text


def _column_index(code: str, column: int) -> int | None:
    """The index in `code` of the compiler's 1-based `column`, if it is on the line.

    Clang counts bytes, GCC display columns (tabs widened) of the line it
    read, which, with the ``#line`` in front of the user's source, is not
    always the user's line: both mean the same on lines without tabs or
    non-ASCII text, so a column is taken to count characters. One past the
    end is allowed: GCC puts "expected ';'" there.
    """
    return column - 1 if column - 1 <= len(code) else None


def _quoted_name_index(message: str, code: str) -> int | None:
    """Where in `code` the first identifier quoted in `message` occurs; NVRTC gives no column."""
    for name in re.findall(r"[\"'`]([A-Za-z_]\w*)[\"']", message):
        found = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", code)
        if found:
            return found.start()
    return None


def _without_diagnostics(log: str, source_name: str) -> str:
    """A message for a log with no error line we know, such as a linker's."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    # collect2's "ld returned 1 exit status" only says that the line before it matters.
    telling = [line for line in lines if not line.startswith("collect2")]
    culprit = next(
        (line for line in telling if re.search(r"error|undefined|cannot|not found", line, re.I)),
        telling[0] if telling else "the compiler failed without a message",
    )
    return f"{source_name} did not compile: {culprit}"


# --- reading the logs --------------------------------------------------------------------------


def _parse_gcc(log: str) -> list[_Diagnostic]:
    """The diagnostics of a GCC or Clang log, each with its instantiation trace."""
    diagnostics: list[_Diagnostic] = []
    pending_trace: list[tuple[str, int, int | None]] = []  # GCC's, waiting for its error
    for raw in log.splitlines():
        match = _GCC_DIAGNOSTIC.match(raw)
        if match:
            place = (match["file"], int(match["line"]), _int(match["column"]))
            if match["severity"] == "note":
                if diagnostics and _CLANG_TRACE_NOTE.search(match["message"]):
                    diagnostics[-1].trace.append(place)
                continue
            diagnostics.append(
                _Diagnostic(match["severity"], match["message"], raw, *place, pending_trace)
            )
            pending_trace = []
        elif match := _GCC_TRACE.match(raw):
            pending_trace.append((match["file"], int(match["line"]), _int(match["column"])))
        elif (match := _TOOL_ERROR.match(raw)) and not raw.startswith("collect2"):
            diagnostics.append(_Diagnostic(match["severity"], match["message"], raw))
    return diagnostics


def _parse_nvrtc(log: str) -> list[_Diagnostic]:
    """The diagnostics of an NVRTC log.

    Each one is a line ``FILE(LINE): error: MESSAGE``; then, up to a blank
    line, more lines of the message, the source line with a caret under it,
    and the ``detected during ...`` lines of its trace.
    """
    diagnostics: list[_Diagnostic] = []
    current: _Diagnostic | None = None
    details: list[str] = []

    def finish():
        if current is not None:
            _read_nvrtc_details(current, details)

    for raw in log.splitlines():
        match = _NVRTC_DIAGNOSTIC.match(raw)
        if match:
            finish()
            current, details = (
                _Diagnostic(
                    match["severity"], match["message"], raw, match["file"], int(match["line"])
                ),
                [],
            )
            diagnostics.append(current)
        elif not raw.strip() or re.match(
            r"^\d+ (?:catastrophic )?errors? detected in the compilation", raw
        ):
            finish()
            current, details = None, []
        elif current is not None:
            details.append(raw)
        elif match := _TOOL_ERROR.match(raw.strip()):
            diagnostics.append(_Diagnostic(match["severity"], match["message"], raw))
    finish()
    return diagnostics


def _read_nvrtc_details(diagnostic: _Diagnostic, details: list[str]) -> None:
    """Adds what follows an NVRTC error line to it: more message, and its trace."""
    caret = next((k for k, line in enumerate(details) if _NVRTC_CARET.match(line)), None)
    # Before the source line (the one above the caret): more of the message,
    # such as "operand types are: Foo * int".
    message_lines = details[: caret - 1] if caret else []
    trace_lines = details[caret + 1 :] if caret is not None else details
    extra = [line.strip() for line in message_lines if line.strip()]
    if extra:
        diagnostic.message += f" ({'; '.join(extra)})"
    for line in trace_lines:
        for match in _NVRTC_TRACE.finditer(line):
            diagnostic.trace.append((match["file"] or diagnostic.file, int(match["line"]), None))


def _int(text: str | None) -> int | None:
    return int(text) if text else None

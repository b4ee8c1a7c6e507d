"""A kernel's compiler options, as each compiler takes them.

Users give NVRTC's options, as CuPy's and PyCUDA's examples do:
``("-std=c++11", "-lineinfo", "--use_fast_math", "-DBLOCK=256")``. On a GPU
NVRTC reads them as they are. The host backend's C++ compiler would misread
most of them (``-lineinfo`` is no option of GCC's), so it gets their meaning
instead:

- the preprocessor's (``-D``, ``-U``, ``-I``, ``-include`` in any of NVRTC's
  spellings: ``--define-macro=``, ``--include-path=``, ``--pre-include=``,
  ...) as the host compiler spells them;
- ``-std=c++20`` (or newer) as it is; older standards are left to gpuvec's
  C++17, which the emulation header needs and which compiles C++11 code;
- ``-w`` (``--disable-warnings``) as it is;
- NVRTC's code-generation and diagnostics options (``-arch``, ``-lineinfo``,
  ``-G``, ``--use_fast_math``, ``--maxrregcount``, ``-Xptxas``, ``--ftz``,
  ``--diag-suppress``, ...) are dropped: they have no host meaning.

An option NVRTC does not know goes to both compilers: NVRTC rejects it on a
GPU, and NVRTC's check rejects it the same way before the host compile.

Examples
--------
>>> host_options(["-std=c++11", "-lineinfo", "--define-macro=N=4", "-I", "inc"])
['-DN=4', '-Iinc']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["host_options"]

# NVRTC's preprocessor options, long and short, and the host compiler's spelling.
_PREPROCESSOR = {
    "--define-macro": "-D",
    "-D": "-D",
    "--undefine-macro": "-U",
    "-U": "-U",
    "--include-path": "-I",
    "-I": "-I",
    "--pre-include": "-include",
    "-include": "-include",
}
# NVRTC's options that take a value after `=` or as the next argument.
_WITH_VALUE = {
    "--gpu-architecture",
    "-arch",
    "--relocatable-device-code",
    "-rdc",
    "--ptxas-options",
    "-Xptxas",
    "--maxrregcount",
    "-maxrregcount",
    "--ftz",
    "-ftz",
    "--prec-sqrt",
    "-prec-sqrt",
    "--prec-div",
    "-prec-div",
    "--fmad",
    "-fmad",
    "--modify-stack-limit",
    "-modify-stack-limit",
    "--dopt",
    "-dopt",
    "--jump-table-density",
    "--device-stack-protector",
    "--builtin-move-forward",
    "--builtin-initializer-list",
    "--optimization-info",
    "--diag-error",
    "-diag-error",
    "--diag-suppress",
    "-diag-suppress",
    "--diag-warn",
    "-diag-warn",
    "--time",
    "--split-compile",
    "--frandom-seed",
    "--std",
    "-std",
}
# NVRTC's flags without a value, which mean nothing to the host compiler.
_FLAGS = {
    "--device-c",
    "-dc",
    "--device-w",
    "-dw",
    "--extensible-whole-program",
    "-ewp",
    "--device-debug",
    "-G",
    "--generate-line-info",
    "-lineinfo",
    "--use_fast_math",
    "-use_fast_math",
    "--extra-device-vectorization",
    "-extra-device-vectorization",
    "--dlink-time-opt",
    "-dlto",
    "--gen-opt-lto",
    "--optix-ir",
    "--no-cache",
    "--fdevice-time-trace",
    "--fdevice-syntax-only",
    "--minimal",
    "--device-as-default-execution-space",
    "-default-device",
    "--device-int128",
    "--device-float128",
    "--restrict",
    "-restrict",
    "--display-error-number",
    "-err-no",
    "--no-display-error-number",
    "-no-err-no",
    "--brief-diagnostics",
    "-brief-diag",
    "--no-source-include",
    "-no-source-include",
}
_WARNINGS_OFF = {"--disable-warnings", "-w"}
_STANDARD = re.compile(r"c\+\+(\d\d)")


def _split(options: list[str], k: int) -> tuple[str, str | None, int]:
    """Option k as (name, value or None, the index after it)."""
    option = options[k]
    if "=" in option and option.startswith("-"):
        name, value = option.split("=", 1)
        return name, value, k + 1
    for short in ("-D", "-U", "-I"):
        if option.startswith(short) and len(option) > 2:
            return short, option[2:], k + 1
    if (option in _PREPROCESSOR or option in _WITH_VALUE) and k + 1 < len(options):
        return option, options[k + 1], k + 2
    return option, None, k + 1


def host_options(options: Iterable[str]) -> list[str]:
    """The host compiler's options for NVRTC's `options` (see the module's notes).

    Parameters
    ----------
    options : iterable of str
        The options a user gave, in NVRTC's spelling.

    Returns
    -------
    list of str
        What the host compiler is given for them, in order.
    """
    options = list(options)
    result: list[str] = []
    k = 0
    while k < len(options):
        name, value, k = _split(options, k)
        if name in _PREPROCESSOR and value is not None:
            spelled = _PREPROCESSOR[name]
            result += [spelled, value] if spelled == "-include" else [f"{spelled}{value}"]
        elif name in ("--std", "-std") and value is not None:
            standard = _STANDARD.fullmatch(value)
            if standard and 17 < int(standard.group(1)) < 90:  # c++20 and on; c++98 is 98
                result.append(f"-std={value}")
        elif name in _WARNINGS_OFF:
            result.append("-w")
        elif name in _WITH_VALUE or name in _FLAGS:
            continue
        else:  # not NVRTC's (one argument): both compilers get it, NVRTC's check refuses it
            result.append(options[k - 1])
    return result

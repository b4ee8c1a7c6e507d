"""Find the ``__global__`` functions of a CUDA source, and their parameters.

gpuvec converts each launch argument by the kernel's own signature: a NumPy
array given for ``const float* x`` must hold float32 data, a Python int given
for ``int n`` becomes a 32-bit int. So it reads the signatures from the
source itself, before compiling it, the same way on both backends.

This is not a C++ parser. It finds each ``__global__`` keyword outside
comments, strings and preprocessor lines, reads the declaration around it
(``template <...>``, ``extern "C"``, ``static``, ``__launch_bounds__(...)``,
the name, the parameter list) and splits the parameters at their top-level
commas. That is all a kernel signature can hold. (A kernel declared through
a macro, ``#define KERNEL __global__``, is not seen: gpuvec then says that
the source has no kernel of that name.)

Examples
--------
>>> (kernel,) = parse_kernels('''
... __global__ void doublify(float* a) { a[threadIdx.x] *= 2; }
... ''')
>>> str(kernel)
'doublify(float* a)'
>>> kernel.parameters[0].dtype
dtype('float32')
>>> (scale,) = parse_kernels(
...     "template <typename T, int N> __global__ void scale(T* x, T f) { x[0] *= f * N; }"
... )
>>> str(find_kernel([scale], "scale<double, 4>"))
'scale<double, 4>(double* x, double f)'
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gpuvec.kernels._lexer import (
    Token,
    closing_bracket,
    enclosing_blocks,
    is_angle_bracket,
    join_tokens,
    line_of,
    opening_bracket,
    source_text,
    tokenize,
)

__all__ = [
    "NAMED_DTYPES",
    "KernelSignature",
    "Parameter",
    "TemplateParameter",
    "bind",
    "example_expression",
    "find_kernel",
    "parse_kernels",
    "uses_cooperation",
]

# Qualifiers of a parameter that are not part of its type: they promise
# something to the optimizer (no aliasing; a read-only kernel parameter).
_QUALIFIERS = frozenset({"__restrict__", "__restrict", "__grid_constant__"})
_CV = frozenset({"const", "volatile"})

# Attributes written as NAME(...) around a kernel's name; skipped.
_ATTRIBUTES = frozenset(
    {"__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__attribute__", "alignas"}
)
# What may stand between `template <...>` (or `extern "C"`) and `__global__`.
_SPECIFIERS = frozenset({"static", "inline", "__inline__", "__forceinline__", "__noinline__"})

# C type names with a fixed NumPy dtype. Linux is LP64: `long` is 64 bits.
NAMED_DTYPES = {
    "float": "float32",
    "double": "float64",
    "bool": "bool",
    "int8_t": "int8",
    "int16_t": "int16",
    "int32_t": "int32",
    "int64_t": "int64",
    "uint8_t": "uint8",
    "uint16_t": "uint16",
    "uint32_t": "uint32",
    "uint64_t": "uint64",
    "ptrdiff_t": "int64",
    "ssize_t": "int64",
    "intptr_t": "int64",
    "size_t": "uint64",
    "uintptr_t": "uint64",
    # glibc's <sys/types.h>, which nvcc gives every kernel (and gpuvec gives NVRTC's)
    "uint": "uint32",
    "ushort": "uint16",
    "ulong": "uint64",
}
# Half floats only behind a pointer: a __half argument by value would need
# its bits built in the launch, which the launch does not do.
_POINTEE_ONLY_DTYPES = {"__half": "float16", "half": "float16"}
# CUDA's vector types, behind a pointer only: an array of their components, read
# `lanes` at a time (a float32 array of 2n elements, or n complex64, for a
# float2*). By value they would need their bytes built in the launch, which it
# does not do.
_VECTOR_COMPONENTS = {
    "char": "int8",
    "uchar": "uint8",
    "short": "int16",
    "ushort": "uint16",
    "int": "int32",
    "uint": "uint32",
    "long": "int64",
    "ulong": "uint64",
    "longlong": "int64",
    "ulonglong": "uint64",
    "float": "float32",
    "double": "float64",
}
VECTOR_TYPES = {
    f"{prefix}{lanes}": (component, lanes)
    for prefix, component in _VECTOR_COMPONENTS.items()
    for lanes in (1, 2, 3, 4)
} | {  # cuComplex.h's
    "cuFloatComplex": ("float32", 2),
    "cuComplex": ("float32", 2),
    "cuDoubleComplex": ("float64", 2),
}
_INTEGER_WORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long"})
# Words that are part of a type, never a parameter's name.
_TYPE_WORDS = _INTEGER_WORDS | _CV | _QUALIFIERS | {"float", "double", "bool", "void"}

# Barriers and warp intrinsics: a kernel that calls them needs its threads
# run as fibers that can wait for each other. Cooperative groups' barriers
# are `.sync()` calls that a name alone cannot tell, so the namespace's name
# counts. Any other __*_sync intrinsic (__match_any_sync, __reduce_add_sync)
# exchanges values across a warp too. So do the calls a thread may spin on,
# waiting for another thread of its block (__nanosleep, fences; atomics and
# volatile parameters: uses_cooperation): a fiber that spins lets the others
# run, where a plain loop would run the spinning thread forever.
_COOPERATIVE_NAMES = frozenset(
    {
        "__syncthreads",
        "__syncthreads_count",
        "__syncthreads_and",
        "__syncthreads_or",
        "__syncwarp",
        "__activemask",
        "cooperative_groups",
        "__nanosleep",
        "__threadfence",
        "__threadfence_block",
        "__threadfence_system",
    }
)
# The atomics: a spin when a loop's condition calls one, or in a source with
# an endless loop (`for (;;)`, `while (true)`, `while (1)`) that may leave by
# a `break`. Elsewhere (a histogram's atomicAdd) they cannot wait, and the
# kernel keeps the plain loop, many times faster than fibers.
_ATOMICS = frozenset(
    {
        "atomicAdd",
        "atomicSub",
        "atomicExch",
        "atomicMin",
        "atomicMax",
        "atomicInc",
        "atomicDec",
        "atomicCAS",
        "atomicAnd",
        "atomicOr",
        "atomicXor",
    }
)


@dataclass(frozen=True)
class TemplateParameter:
    """One parameter of a kernel template: ``typename T`` or ``int N``.

    Attributes
    ----------
    name : str
        Its name (``""`` when unnamed).
    kind : str
        ``"type"`` for ``typename T`` / ``class T``, ``"value"`` for ``int N``.
    type : str
        ``"typename"`` or ``"class"`` for a type; the value's C type (``"int"``) otherwise.
    default : str or None
        The default argument as written, if any.
    """

    name: str
    kind: str
    type: str
    default: str | None = None


@dataclass(frozen=True)
class Parameter:
    """One parameter of a kernel.

    Attributes
    ----------
    name : str
        Its name, ``""`` when the declaration leaves it out.
    c_type : str
        Its C type, qualifiers left out, spaced as ``"const float*"``.
    base_type : str
        The type pointed to (or the value's type), without ``const``:
        ``"float"``, ``"unsigned int"``, ``"T"``.
    is_pointer : bool
        Whether it is a pointer (an array, ``float a[]``, counts: it is one).
    is_const : bool
        Whether the data it points to is const (``const float*``,
        ``float const*``); for a value, whether the value is. A pointer that
        is itself const (``float* const p``) still writes its data.
    dtype : numpy.dtype or None
        The NumPy dtype of the pointed-to data or of the value; None for a
        type gpuvec cannot pass (a struct, ``float2``, a template type not
        yet bound, a pointer to a pointer).
    qualifiers : tuple of str
        ``__restrict__``, ``__grid_constant__``: written, but not part of the type.
    span : tuple of int
        The characters of the declaration in the source (default argument excluded).
    lanes : int
        The components of each element of a pointer to a CUDA vector type
        (2 for ``float2*``, whose `dtype` is float32); 1 otherwise.
    """

    name: str
    c_type: str
    base_type: str
    is_pointer: bool
    is_const: bool
    dtype: np.dtype | None
    qualifiers: tuple[str, ...] = ()
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)
    lanes: int = 1

    def __str__(self) -> str:
        return " ".join(part for part in (self.c_type, *self.qualifiers, self.name) if part)


@dataclass(frozen=True)
class KernelSignature:
    """One ``__global__`` function of a source.

    Attributes
    ----------
    name : str
        Its name, as declared.
    qualified_name : str
        With the enclosing namespaces: ``"ns::name"`` (the name when there are none).
    parameters : tuple of Parameter
        Its parameters, in order.
    template_parameters : tuple of TemplateParameter
        The parameters of ``template <...>`` before it; empty when it is no template.
    is_template : bool
        Whether it is a template (an explicit specialization, ``template <>``, is not).
    template_arguments : tuple of str or None
        The arguments of an explicit specialization or instantiation
        (``scale<float>(...)``), or those given to :func:`bind`; else None.
    is_extern_c : bool
        Declared ``extern "C"`` (or inside an ``extern "C" { }`` block), so
        its symbol is its plain name.
    is_definition : bool
        Whether a body follows (otherwise it is a declaration ending in ``;``).
    parameters_span : tuple of int
        The characters between its parentheses, so a rewrite can replace them.
    line : int
        The line of its name, counted from 1.
    """

    name: str
    qualified_name: str
    parameters: tuple[Parameter, ...]
    template_parameters: tuple[TemplateParameter, ...] = ()
    is_template: bool = False
    template_arguments: tuple[str, ...] | None = None
    is_extern_c: bool = False
    is_definition: bool = True
    parameters_span: tuple[int, int] = (0, 0)
    line: int = 1

    @property
    def expression(self) -> str:
        """Its C++ name expression: ``"ns::scale<float, 4>"``, with the namespaces.

        NVRTC's ``nvrtcAddNameExpression`` and the host backend's generated
        entries both take it, whatever the user called the kernel.
        """
        if self.template_arguments is None:
            return self.qualified_name
        return f"{self.qualified_name}<{', '.join(self.template_arguments)}>"

    def __str__(self) -> str:
        arguments = ""
        if self.template_arguments is not None:
            arguments = f"<{', '.join(self.template_arguments)}>"
        return f"{self.name}{arguments}({', '.join(map(str, self.parameters))})"


def parse_kernels(source: str) -> tuple[KernelSignature, ...]:
    """Every ``__global__`` function declared or defined in `source`, in order.

    Parameters
    ----------
    source : str
        CUDA C++ source.

    Returns
    -------
    tuple of KernelSignature
        Declarations and explicit specializations included, so that a
        rewrite can change them all alike; :func:`find_kernel` picks one.
    """
    tokens = tokenize(source)
    blocks = enclosing_blocks(tokens)
    kernels = []
    for i, token in enumerate(tokens):
        if token.text == "__global__":
            kernel = _parse_kernel(source, tokens, i, blocks[i])
            if kernel is not None:
                kernels.append(kernel)
    return tuple(kernels)


def find_kernel(kernels: Sequence[KernelSignature], name_expression: str) -> KernelSignature:
    """The kernel a name or name expression (``"scale<float, 4>"``) stands for, bound.

    Parameters
    ----------
    kernels : sequence of KernelSignature
        From :func:`parse_kernels`.
    name_expression : str
        A kernel's name (or ``namespace::name``), with template arguments for a template.

    Returns
    -------
    KernelSignature
        The definition (else the first declaration) with that name, template
        parameters replaced by the arguments given (see :func:`bind`).

    Raises
    ------
    ValueError
        No kernel has that name, or the template arguments do not fit it.
    """
    name, _ = _split_name_expression(name_expression)
    matches = [k for k in kernels if name in (k.name, k.qualified_name)]
    if not matches:
        known = ", ".join(dict.fromkeys(k.qualified_name for k in kernels)) or "none"
        raise ValueError(
            f"the source has no __global__ function named {name!r} (its kernels: {known})"
        )
    # The primary template, not its explicit specializations; a body over a declaration.
    matches = [k for k in matches if k.template_arguments is None] or matches
    kernel = next((k for k in matches if k.is_definition), matches[0])
    return bind(_with_declared_defaults(kernel, matches), name_expression)


def bind(kernel: KernelSignature, name_expression: str) -> KernelSignature:
    """`kernel` with its template parameters replaced by those of `name_expression`.

    Parameters
    ----------
    kernel : KernelSignature
        A kernel, usually a template.
    name_expression : str
        Its name with template arguments: ``"scale<float, 4>"``. Type
        arguments are C types (``float``, ``unsigned int``, ``int64_t``),
        value arguments integer literals or other constant expressions.
        For a kernel that is no template, its plain name.

    Returns
    -------
    KernelSignature
        Its parameters' types substituted (``T* x`` becomes ``float* x``,
        with its dtype) and `template_arguments` set.

    Raises
    ------
    ValueError
        The expression does not name this kernel, names a template without
        its arguments, gives arguments to a kernel that is no template, or
        gives arguments that do not fit its template parameters.
    """
    name, arguments = _split_name_expression(name_expression)
    if name not in (kernel.name, kernel.qualified_name):
        raise ValueError(f"{name_expression!r} does not name the kernel {kernel.name}")
    if not kernel.is_template:
        if arguments is not None:
            raise ValueError(
                f"{name_expression!r} gives template arguments, "
                f"but {kernel.name} is not a template kernel"
            )
        return kernel
    if arguments is None:
        raise ValueError(
            f"{kernel.name} is a template kernel: name one of its instances, "
            f"such as {example_expression(kernel)!r}"
        )
    template = kernel.template_parameters
    if len(arguments) > len(template):
        raise ValueError(
            f"{name_expression!r} gives {len(arguments)} template arguments, "
            f"but {kernel.name} takes {len(template)}"
        )
    substitutions = {}
    for k, parameter in enumerate(template):
        argument = arguments[k] if k < len(arguments) else parameter.default
        if argument is None:
            raise ValueError(
                f"{name_expression!r} gives no argument for the template parameter "
                f"{parameter.name} of {kernel.name}"
            )
        looks_like_value = bool(re.fullmatch(r"[-+]?[0-9][0-9A-Za-z'.]*|true|false", argument))
        if parameter.kind == "type" and looks_like_value:
            raise ValueError(
                f"{name_expression!r}: the template parameter {parameter.name} of "
                f"{kernel.name} is a type, not {argument}"
            )
        if parameter.kind == "value" and _is_type_name(argument):
            raise ValueError(
                f"{name_expression!r}: the template parameter {parameter.name} of "
                f"{kernel.name} takes a value of type {parameter.type}, not the type {argument}"
            )
        if parameter.kind == "type" and parameter.name:
            substitutions[parameter.name] = argument
    parameters = tuple(_substitute(p, substitutions) for p in kernel.parameters)
    return dataclasses.replace(kernel, parameters=parameters, template_arguments=arguments)


def uses_cooperation(source: str) -> bool:
    """Whether `source` calls a barrier, a warp intrinsic or what a spin waits on.

    Outside comments and strings. The host backend then runs each block's
    threads as fibers that can wait for each other at ``__syncthreads()``,
    or let each other run while one spins: on ``__nanosleep()`` or a fence,
    on an atomic in a loop's condition (or anywhere, in a source with an
    endless loop), or on a ``volatile`` pointer parameter (whose reads checked
    mode sees; other ``volatile`` reads are plain loads that nothing can
    hook). Otherwise as a plain loop, which is much faster.
    Preprocessor lines count (a ``#define SYNC __syncthreads()`` is a
    barrier), and so does the whole source, not each kernel: a kernel may
    reach a barrier through a ``__device__`` function.

    Parameters
    ----------
    source : str
        CUDA C++ source.

    Returns
    -------
    bool

    Examples
    --------
    >>> uses_cooperation("__global__ void k() { __syncthreads(); }")
    True
    >>> uses_cooperation("__global__ void k(int* n) { while (atomicAdd(n, 0) < 8) {} }")
    True
    >>> uses_cooperation("__global__ void k(int* n) { atomicAdd(n, 1); }")
    False
    >>> uses_cooperation("__global__ void k(volatile int* flag) { while (!flag[0]); }")
    True
    >>> uses_cooperation("__global__ void k() { /* no __syncthreads() */ }")
    False
    """
    tokens = tokenize(source, directives=True)
    return (
        any(
            token.kind == "name"
            and (
                token.text in _COOPERATIVE_NAMES
                or token.text.startswith("__shfl")
                or (token.text.startswith("__") and token.text.endswith("_sync"))
            )
            for token in tokens
        )
        or _spins_on_atomics(tokens)
        or any(
            "volatile" in parameter.c_type.split()
            for kernel in parse_kernels(source)
            for parameter in kernel.parameters
        )
    )


def _spins_on_atomics(tokens: list[Token]) -> bool:
    """Whether a loop's condition calls an atomic, or an endless loop may wait on one."""
    atomics = endless = False
    for k, token in enumerate(tokens):
        if token.kind != "name":
            continue
        atomics = atomics or token.text in _ATOMICS
        if token.text not in ("while", "for") or k + 1 == len(tokens) or tokens[k + 1].text != "(":
            continue
        end = closing_bracket(tokens, k + 1, "(", ")")
        header = [t.text for t in tokens[k + 2 : end]]
        if any(text in _ATOMICS for text in header):
            return True
        endless = endless or header in (["true"], ["1"], [";", ";"])
    return atomics and endless


# --- reading one kernel's declaration ------------------------------------------------------


def _parse_kernel(
    source: str, tokens: list[Token], at: int, blocks: tuple[str, ...]
) -> KernelSignature | None:
    """The kernel whose ``__global__`` keyword is tokens[at]; None if it cannot be read."""
    extern_c = 'extern "C"' in blocks
    template_parameters = None  # None: no `template` before it
    # Backwards from __global__: specifiers, attributes, extern "C", template <...>.
    i = at - 1
    while i >= 0:
        text = tokens[i].text
        if text in _SPECIFIERS or text == "extern":
            i -= 1
        elif text == '"C"' and i > 0 and tokens[i - 1].text == "extern":
            extern_c = True
            i -= 2
        elif text == ")" and (opening := opening_bracket(tokens, i, "(", ")")) is not None:
            if opening == 0 or tokens[opening - 1].text not in _ATTRIBUTES:
                break
            i = opening - 2
        elif text == ">" and (opening := opening_bracket(tokens, i, "<", ">")) is not None:
            if opening > 0 and tokens[opening - 1].text == "template":
                template_parameters = _template_parameters(source, tokens[opening + 1 : i])
            break
        elif text == "template":  # an explicit instantiation: `template __global__ ...`
            template_parameters = ()
            break
        else:
            break

    # Forwards: the return type and attributes, then NAME [<args>] (.
    i = at + 1
    while i + 1 < len(tokens):
        token, following = tokens[i], tokens[i + 1].text
        if token.text in _ATTRIBUTES and following == "(":
            i = closing_bracket(tokens, i + 1, "(", ")") + 1
            continue
        if token.text in (";", "{", "}", "(", ")", "="):
            return None  # not a declaration we can read (a typo?): left to the compiler
        if token.kind == "name" and token.text not in _TYPE_WORDS and following in ("(", "<"):
            break
        i += 1
    else:
        return None
    name_token = tokens[i]
    specialization = None
    opening = i + 1
    if tokens[opening].text == "<":
        closing = closing_bracket(tokens, opening, "<", ">")
        arguments = _split_commas(tokens[opening + 1 : closing])
        specialization = tuple(source_text(source, part) for part in arguments)
        opening = closing + 1
    if opening >= len(tokens) or tokens[opening].text != "(":
        return None
    closing = closing_bracket(tokens, opening, "(", ")")
    if closing >= len(tokens):
        return None
    body_or_end = next((t.text for t in tokens[closing + 1 :] if t.text in ("{", ";")), ";")

    parameters = tuple(
        _parse_parameter(part) for part in _split_commas(tokens[opening + 1 : closing]) if part
    )
    if len(parameters) == 1 and parameters[0].c_type == "void" and not parameters[0].name:
        parameters = ()  # f(void)
    namespaces = [b.split(" ", 1)[1] for b in blocks if b.startswith("namespace ")]
    written_scope = []  # a definition written as `ns::name(...)`
    j = i
    while j >= 2 and tokens[j - 1].text == "::" and tokens[j - 2].kind == "name":
        written_scope.insert(0, tokens[j - 2].text)
        j -= 2
    return KernelSignature(
        name=name_token.text,
        qualified_name="::".join([*namespaces, *written_scope, name_token.text]),
        parameters=parameters,
        template_parameters=template_parameters or (),
        is_template=bool(template_parameters),
        template_arguments=specialization,
        is_extern_c=extern_c,
        is_definition=body_or_end == "{",
        parameters_span=(tokens[opening].end, tokens[closing].start),
        line=line_of(source, name_token.start),
    )


def _parse_parameter(tokens: list[Token]) -> Parameter:
    """One parameter from its tokens (a default argument is dropped)."""
    tokens = _before_default(tokens)
    span = (tokens[0].start, tokens[-1].end)
    qualifiers = tuple(t.text for t in tokens if t.text in _QUALIFIERS)
    words = [t for t in tokens if t.text not in _QUALIFIERS]
    arrays = 0  # float a[]: an array parameter is a pointer
    while len(words) > 1 and words[-1].text == "]":
        words = words[: opening_bracket(words, len(words) - 1, "[", "]")]
        arrays += 1
    if any(t.text == "(" for t in words):  # a function pointer: nothing gpuvec can pass
        inner = [t.text for t in words if t.kind == "name"]
        name = inner[-1] if inner else ""
        return Parameter(name, join_tokens(words), "", False, False, None, qualifiers, span)
    name = ""
    last = words[-1] if words else None
    if (
        last is not None
        and last.kind == "name"
        and last.text not in _TYPE_WORDS
        and any(t.kind == "name" and t.text not in _CV for t in words[:-1])
    ):
        name = last.text
        words = words[:-1]
    texts = [t.text for t in words] + ["*"] * arrays
    stars = texts.count("*")
    before_star = texts[: texts.index("*")] if stars else texts
    base = [t for t in before_star if t not in _CV and t not in ("struct", "class", "typename")]
    return Parameter(
        name=name,
        c_type=join_tokens(texts),
        base_type=join_tokens(base),
        is_pointer=stars > 0,
        is_const="const" in before_star,
        dtype=_dtype(base, stars) if "&" not in texts else None,
        qualifiers=qualifiers,
        span=span,
        lanes=VECTOR_TYPES[base[0]][1]
        if stars == 1 and len(base) == 1 and (base[0] in VECTOR_TYPES)
        else 1,
    )


def _dtype(base: list[str], stars: int) -> np.dtype | None:
    """The NumPy dtype of a C type (`base` behind `stars` pointers), None if none fits."""
    if stars > 1:
        return None
    while len(base) > 1 and base[1] == "::" and base[0] in ("std", "::"):
        base = base[2:]  # std::int32_t
    if base and base[0] == "::":
        base = base[1:]
    if len(base) == 1 and base[0] in NAMED_DTYPES:
        return np.dtype(NAMED_DTYPES[base[0]])
    if len(base) == 1 and stars and base[0] in _POINTEE_ONLY_DTYPES:
        return np.dtype(_POINTEE_ONLY_DTYPES[base[0]])
    if len(base) == 1 and stars and base[0] in VECTOR_TYPES:
        return np.dtype(VECTOR_TYPES[base[0]][0])
    if not base or not set(base) <= _INTEGER_WORDS:
        return None
    # Plain `char` is int8, as on x86-64, where it is signed.
    bits = 8 if "char" in base else 16 if "short" in base else 64 if "long" in base else 32
    return np.dtype(f"{'u' if 'unsigned' in base else ''}int{bits}")


def _substitute(parameter: Parameter, substitutions: dict[str, str]) -> Parameter:
    """`parameter` with template type parameters replaced by C types."""
    if not substitutions:
        return parameter

    def replace(text: str) -> str:
        return re.sub(r"\b\w+\b", lambda m: substitutions.get(m.group(), m.group()), text)

    # Re-parse the substituted text, so that dtype and constness follow the new type.
    declaration = " ".join(part for part in (replace(parameter.c_type), parameter.name) if part)
    bound = _parse_parameter(tokenize(declaration))
    return dataclasses.replace(
        bound, qualifiers=parameter.qualifiers, span=parameter.span, name=parameter.name
    )


def _template_parameters(source: str, tokens: list[Token]) -> tuple[TemplateParameter, ...]:
    """The parameters of ``template <...>`` from the tokens between the brackets."""
    result = []
    for part in _split_commas(tokens):
        declaration = _before_default(part)
        default = source_text(source, part[len(declaration) + 1 :]) or None
        words = [t.text for t in declaration if t.text != "..."]
        if words[0] in ("typename", "class"):
            name = words[-1] if len(words) > 1 else ""
            result.append(TemplateParameter(name, "type", words[0], default))
        else:
            result.append(TemplateParameter(words[-1], "value", join_tokens(words[:-1]), default))
    return tuple(result)


def _split_name_expression(expression: str) -> tuple[str, tuple[str, ...] | None]:
    """``"ns::scale<float, 4>"`` as ``("ns::scale", ("float", "4"))``; arguments None if none."""
    tokens = tokenize(expression)
    opening = next((k for k, t in enumerate(tokens) if t.text == "<"), len(tokens))
    end = tokens[opening].start if opening < len(tokens) else len(expression)
    name = re.sub(r"\s*::\s*", "::", expression[:end].strip())
    if not re.fullmatch(r"(?:\w+::)*\w+", name) or (
        opening < len(tokens) and closing_bracket(tokens, opening, "<", ">") != len(tokens) - 1
    ):
        raise ValueError(
            f"{expression!r} is not a kernel's name or name expression, such as 'scale<float, 4>'"
        )
    if opening == len(tokens):
        return name, None
    arguments = _split_commas(tokens[opening + 1 : -1])
    return name, tuple(source_text(expression, part) for part in arguments)


def _with_declared_defaults(
    kernel: KernelSignature, declarations: Sequence[KernelSignature]
) -> KernelSignature:
    """`kernel` with the default template arguments of any of its declarations.

    C++ lets a default template argument be written once only, usually on a
    forward declaration, so the definition itself may lack it.
    """
    if not kernel.is_template:
        return kernel
    parameters = []
    for k, parameter in enumerate(kernel.template_parameters):
        defaults = (
            d.template_parameters[k].default
            for d in declarations
            if len(d.template_parameters) == len(kernel.template_parameters)
        )
        default = parameter.default or next((d for d in defaults if d), None)
        parameters.append(dataclasses.replace(parameter, default=default))
    return dataclasses.replace(kernel, template_parameters=tuple(parameters))


def _is_type_name(text: str) -> bool:
    """Whether `text` is a built-in C type's name (``"unsigned int"``, ``"float"``)."""
    known = _TYPE_WORDS | NAMED_DTYPES.keys() | _POINTEE_ONLY_DTYPES.keys() | VECTOR_TYPES.keys()
    return all(word in known for word in text.replace("*", " ").split())


def example_expression(kernel: KernelSignature) -> str:
    """A name expression for an instance of a template kernel, for messages.

    Examples
    --------
    >>> (scale,) = parse_kernels("template <typename T, int N> __global__ void scale(T* x) {}")
    >>> example_expression(scale)
    'scale<float, 1>'
    """
    arguments = ["float" if p.kind == "type" else "1" for p in kernel.template_parameters]
    return f"{kernel.name}<{', '.join(arguments)}>"


# --- token helpers ---------------------------------------------------------------------------


def _split_commas(tokens: Sequence[Token]) -> list[list[Token]]:
    """Tokens split at the commas outside brackets (a template's ``<...>`` included)."""
    parts: list[list[Token]] = [[]]
    depth = 0  # of (), [] and {}
    angles = 0  # of template brackets outside those
    for k, token in enumerate(tokens):
        text = token.text
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif text in ("<", ">") and depth == 0 and is_angle_bracket(tokens, k):
            angles += 1 if text == "<" else -1
        elif text == "," and depth == 0 and angles <= 0:
            parts.append([])
            continue
        parts[-1].append(token)
    return parts if parts != [[]] else []


def _before_default(tokens: list[Token]) -> list[Token]:
    """The tokens of a declaration before its top-level ``= default``."""
    depth = 0
    for k, token in enumerate(tokens):
        depth += {"(": 1, "[": 1, "<": 1, ")": -1, "]": -1, ">": -1}.get(token.text, 0)
        if token.text == "=" and depth == 0:
            return tokens[:k]
    return tokens

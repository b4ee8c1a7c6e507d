"""The text each backend compiles, made from the user's source.

NVRTC compiles the user's source as written: it knows every CUDA built-in,
and the program carries the user's name (``cell_3.cu``), so its messages
already point at the user's lines.

The host compiler needs more. gpuvec's emulation header comes first, to
define the CUDA built-ins; then the user's source, under a ``#line 1
"cell_3.cu"`` so that the host compiler's messages also point at the user's
lines; then one generated entry per kernel, the functions gpuvec's runtime
looks up in the shared library. Rewrites of the user's source are
needed, each explained where it is made; all keep every line on its
original line number.

Examples
--------
>>> text, entries = host_source(
...     "__global__ void twice(float* a) { a[0] *= 2; }",
...     ["twice"],
...     "cell_3.cu",
...     checked=True,
... )
>>> print(text)
#define GPUVEC_EMULATION_CHECKED 1
#include <gpuvec/cuda_emulation.h>
#line 1 "cell_3.cu"
__global__ void twice(gpuvec_checked<float> a) { a[gpuvec_emu::UpdateIndex((0))] *= 2; }
#line 1 "gpuvec-generated-entries"
GPUVEC_EMULATION_KERNEL(gpuvec_entry_0, twice)
<BLANKLINE>
>>> entries
{'twice': 'gpuvec_entry_0'}
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuvec.kernels._lexer import (
    Token,
    closing_bracket,
    enclosing_blocks,
    is_file_scope,
    join_tokens,
    line_of,
    opening_bracket,
    tokenize,
)
from gpuvec.kernels._signature import (
    NAMED_DTYPES,
    KernelSignature,
    _parse_kernel,
    find_kernel,
    parse_kernels,
)

__all__ = ["CHECKED_MACRO", "EMULATION_HEADER", "GENERATED_NAME", "host_source", "nvrtc_source"]

# The header's path under the include folder gpuvec installs.
EMULATION_HEADER = "gpuvec/cuda_emulation.h"

# Defined before the header in checked mode: the header then checks
# barriers, warp masks and shared memory (see its "Checked mode" section).
CHECKED_MACRO = "GPUVEC_EMULATION_CHECKED"

# The file name the generated entries' lines are reported under, so that a
# compile error in them is recognized as gpuvec's, not the user's.
GENERATED_NAME = "gpuvec-generated-entries"

# What may sit between `extern __shared__` and the type: alignment, which
# the emulation's dynamic shared memory already meets for every type.
_ALIGNMENT = frozenset({"__align__", "alignas", "__attribute__"})


def nvrtc_source(user_source: str) -> str:
    """The text NVRTC compiles: the user's source, unchanged.

    Parameters
    ----------
    user_source : str
        The CUDA C++ source as the user wrote it.

    Returns
    -------
    str
    """
    return user_source


def host_source(
    user_source: str, name_expressions: Sequence[str], source_name: str, checked: bool
) -> tuple[str, dict[str, str]]:
    """The text the host C++ compiler compiles, and the entry generated for each kernel.

    Parameters
    ----------
    user_source : str
        The CUDA C++ source as the user wrote it.
    name_expressions : sequence of str
        The kernels to generate entries for: names (``"doublify"``) and name
        expressions of template instances (``"scale<float, 4>"``).
    source_name : str
        The source's name in messages, such as ``"cell_3.cu"``.
    checked : bool
        Compile in checked mode: the kernels' pointer parameters become
        bounds-checked ones, and ``__shared__`` arrays checked ones, which
        look for races and reads of memory never written.

    Returns
    -------
    text : str
        The host compiler's source.
    entries : dict of str to str
        Each name expression's entry symbol in the shared library, such as
        ``"gpuvec_entry_0"``.

    Raises
    ------
    ValueError
        A name expression that names no kernel of the source.
    """
    kernels = parse_kernels(user_source)
    edits = _shared_memory_edits(user_source, source_name, checked)
    if checked:
        names: set[str] = set()
        edits += _checked_pointer_edits(user_source, kernels, names=names)
        edits += _checked_pointer_edits(
            user_source, _device_functions(user_source), dtypes_only=True, names=names
        )
        edits += _checked_local_pointer_edits(user_source, names)
        edits += _checked_shared_array_edits(user_source)
        edits += _checked_access_edits(user_source, names, edits)
        edits += _reinterpret_cast_edits(user_source)
    entries: dict[str, str] = {}
    lines = []
    for expression in name_expressions:
        if expression in entries:
            continue
        entries[expression] = symbol = f"gpuvec_entry_{len(entries)}"
        target = find_kernel(kernels, expression).expression
        # The preprocessor splits a macro's arguments at every comma outside
        # parentheses, angle brackets included: scale<float, 4> needs parentheses.
        if "," in target:
            target = f"({target})"
        lines.append(f"GPUVEC_EMULATION_KERNEL({symbol}, {target})")
    text = "\n".join(
        [
            *([f"#define {CHECKED_MACRO} 1"] if checked else []),
            f"#include <{EMULATION_HEADER}>",
            f"#line 1 {_c_string(source_name)}",
            _apply(user_source, edits),
            f"#line 1 {_c_string(GENERATED_NAME)}",
            *lines,
        ]
    )
    return text + "\n", entries


# --- rewrite (a): dynamic shared memory --------------------------------------------------------
#
# `extern __shared__ float s[];` declares the block's dynamic shared memory,
# whose size the launch gives. A C++ compiler cannot give an array a size
# known only at launch, and on the host each block's storage belongs to the
# host thread running it. So the array becomes a pointer to that storage,
# which the emulation header's gpuvec_dynamic_shared() returns. Indexing,
# `s[i]`, reads the same either way.
#
# - In a function body, a local constant pointer:
#       float* const s = static_cast<float*>(gpuvec_dynamic_shared());
# - At file scope a pointer variable would be set once, when the library
#   loads, not for each block: a macro asks for the storage at every use.
#       #define s (static_cast<float*>(gpuvec_dynamic_shared()))
#   (It is a macro: it renames `s` everywhere below it, as CUDA's own
#   file-scope shared array would be seen everywhere below it.)


def _shared_memory_edits(
    source: str, source_name: str, checked: bool = False
) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for each ``extern __shared__`` array of `source`.

    In checked mode the array becomes the header's gpuvec_shared_dynamic<T>,
    which checks each index against ``shared_mem`` and each access for races.
    """
    tokens = tokenize(source)
    blocks = enclosing_blocks(tokens)
    edits = []
    for i, token in enumerate(tokens):
        if token.text != "extern" or i + 1 >= len(tokens) or tokens[i + 1].text != "__shared__":
            continue
        end = next((k for k in range(i, len(tokens)) if tokens[k].text == ";"), None)
        declaration = _shared_array(tokens[i + 2 : end]) if end is not None else None
        if declaration is None:
            continue  # not one array of unknown size: the compiler will say what is wrong
        c_type, name = declaration
        start, stop = token.start, tokens[end].end
        storage = f"static_cast<{c_type}*>(gpuvec_dynamic_shared())"
        if checked:
            storage = f'gpuvec_shared_dynamic<{c_type}>("{name}")'
        if not is_file_scope(blocks[i]):
            replacement = f"{c_type}* const {name} = {storage};"
            if checked:
                replacement = f'const gpuvec_shared_dynamic<{c_type}> {name}{{"{name}"}};'
        elif _alone_on_its_lines(source, tokens, i, end):
            replacement = f"#define {name} ({storage})"
        else:
            # A directive needs lines of its own: break the line around it,
            # then say which line the text after it was on.
            resume = f"#line {line_of(source, stop)} {_c_string(source_name)}"
            edits.append((start, stop, f"\n#define {name} ({storage})\n{resume}\n"))
            continue
        edits.append((start, stop, replacement + "\n" * source.count("\n", start, stop)))
    return edits


def _shared_array(tokens: list[Token]) -> tuple[str, str] | None:
    """(element type, name) of the declaration after ``extern __shared__``, or None.

    The alignment attributes (``__align__(16)``, ``alignas(16)``) are left
    out: the storage is aligned for any type already.
    """
    words: list[Token] = []
    k = 0
    while k < len(tokens):
        if tokens[k].text in _ALIGNMENT and k + 1 < len(tokens) and tokens[k + 1].text == "(":
            k = closing_bracket(tokens, k + 1, "(", ")") + 1
            continue
        words.append(tokens[k])
        k += 1
    texts = [t.text for t in words]
    if len(words) < 4 or texts[-2:] != ["[", "]"] or words[-3].kind != "name":
        return None
    if any(text in ("[", "]", ",", "=") for text in texts[:-3]):
        return None  # several arrays, or one of fixed size: not what this rewrite knows
    return join_tokens(words[:-3]), words[-3].text


def _alone_on_its_lines(source: str, tokens: list[Token], first: int, last: int) -> bool:
    """Whether no other token shares a line with tokens[first] to tokens[last].

    Comments may: the compiler removes them before it reads directives.
    """
    before = tokens[first - 1].end if first > 0 else 0
    after = tokens[last + 1].start if last + 1 < len(tokens) else len(source)
    return (first == 0 or "\n" in source[before : tokens[first].start]) and (
        last + 1 == len(tokens) or "\n" in source[tokens[last].end : after]
    )


# --- rewrite (b): bounds-checked pointers (checked mode) ----------------------------------------
#
# In checked mode each pointer parameter of a kernel becomes the emulation
# header's gpuvec_checked<T>, which knows the length of the array the launch
# passed and raises on an index outside it. Indexing, `out[i] = in[i]`,
# reads the same, so the body stays as written. The parameter's name, the
# constness of its data and of the pointer itself are kept; __restrict__
# is dropped, since it applies to pointers only.
#
# Only pointers to a type gpuvec can pass are rewritten (a dtype's C type,
# or a template's type parameter): a pointer to a struct or to void gets no
# argument from a launch anyway, and gpuvec_checked<void> could not exist.
# Every declaration of a kernel is rewritten alike, so that a forward
# declaration still declares the same function as its definition.


#
# Pointers derived from a kernel's parameters are rewritten too, so that they
# stay checked (the header's gpuvec_checked also holds a raw pointer, a
# __shared__ array's or nullptr, and then checks nothing):
#
# - the pointer parameters of __device__ functions, of a dtype's C type only:
#   `__device__ float sum(const float* x, int n)` takes
#   `gpuvec_checked<const float> x`, which a checked pointer converts to as
#   it is, and a raw one unchecked. A template's type parameter (`const T*
#   x`) is left as written: its type is deduced from the argument, which a
#   rewritten parameter would no longer allow;
# - local pointer variables declared in a function body, of a dtype's C
#   type or a template's type parameter: `const float* row = A + r * cols;`
#   becomes `gpuvec_checked<const float> row = A + r * cols;`, whatever the
#   initializer (or none). Members of structs keep their type (a struct's
#   layout must not change), and so do pointers to volatile data (a raw
#   volatile access is what a spin-wait needs), and declarations this
#   rewrite cannot read (several declarators that are not all pointers).


def _checked_pointer_edits(
    source: str,
    kernels: Sequence[KernelSignature],
    dtypes_only: bool = False,
    names: set[str] | None = None,
) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for each pointer parameter of each kernel.

    With `dtypes_only`, the pointers to a template's type parameter are left
    as written (for __device__ functions, whose types are deduced). The
    names of the parameters rewritten are added to `names`.
    """
    edits = []
    for kernel in kernels:
        type_parameters = {t.name for t in kernel.template_parameters if t.kind == "type"}
        if dtypes_only:
            type_parameters = set()
        for parameter in kernel.parameters:
            if parameter.c_type.count("*") != 1 or "&" in parameter.c_type:
                continue
            if parameter.dtype is None and parameter.base_type not in type_parameters:
                continue
            pointee, _, pointer_const = parameter.c_type.partition("*")
            replacement = f"gpuvec_checked<{pointee.strip()}>{pointer_const}"
            if parameter.name:
                replacement += f" {parameter.name}"
                if names is not None:
                    names.add(parameter.name)
            start, stop = parameter.span
            edits.append((start, stop, replacement + "\n" * source.count("\n", start, stop)))
    return edits


def _device_functions(source: str) -> list[KernelSignature]:
    """Every ``__device__`` function declared or defined in `source`, read as a kernel is."""
    tokens = tokenize(source)
    blocks = enclosing_blocks(tokens)
    functions = []
    for i, token in enumerate(tokens):
        if token.text == "__device__":
            function = _parse_kernel(source, tokens, i, blocks[i])
            if function is not None:  # None: a __device__ variable, a lambda
                functions.append(function)
    return functions


# Words of a dtype's C type spelled in several words (`unsigned int`).
_INTEGER_WORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long"})
# What may stand between `*` and the variable's name.
_POINTER_QUALIFIERS = frozenset({"const", "__restrict__", "__restrict"})


def _checked_local_pointer_edits(
    source: str, names: set[str] | None = None
) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for each local pointer declaration rewritten (see above).

    The names of the variables rewritten are added to `names`.
    """
    tokens = tokenize(source)
    in_code = _in_function_body(tokens)
    type_parameters = _template_type_parameters(tokens)
    edits = []
    for i in range(len(tokens)):
        if in_code[i] and _starts_statement(tokens, i):
            edits += _local_pointer_edits(source, tokens, i, type_parameters, names)
    return edits


def _local_pointer_edits(
    source: str,
    tokens: list[Token],
    i: int,
    type_parameters: set[str],
    names: set[str] | None = None,
) -> list[tuple[int, int, str]]:
    """The edits of a declaration ``[const] TYPE [const] * [const] NAME ...;`` at tokens[i].

    None (an empty list) where tokens[i] starts no such declaration.
    """
    k = i
    qualifiers: list[str] = []
    while tokens[k].text == "const":
        qualifiers.append("const")
        k += 1
    first_word = k
    while k < len(tokens) and tokens[k].text in _INTEGER_WORDS | {"float", "double", "bool"}:
        k += 1
    if k == first_word:
        if [t.text for t in tokens[k : k + 2]] == ["std", "::"]:
            k += 2  # std::int32_t
        if k >= len(tokens) or (
            tokens[k].text not in NAMED_DTYPES and tokens[k].text not in type_parameters
        ):
            return []
        k += 1
    pointee = join_tokens(tokens[first_word:k])
    while k < len(tokens) and tokens[k].text == "const":
        qualifiers.append("const")
        k += 1
    if k >= len(tokens) or tokens[k].text != "*":
        return []
    k += 1
    pointer_const = False
    while k < len(tokens) and tokens[k].text in _POINTER_QUALIFIERS:
        pointer_const |= tokens[k].text == "const"
        k += 1
    if (
        k + 1 >= len(tokens)
        or tokens[k].kind != "name"
        or tokens[k + 1].text not in ("=", ";", ",")
    ):
        return []
    name = k
    end = next((j for j in range(name, len(tokens)) if tokens[j].text in (";", "{", "}")), None)
    if end is None or tokens[end].text != ";":
        return []
    # Any later declarator must be `* NAME` (its star goes): a comma inside a
    # template's arguments (`f<int, 3>(a)`) is not told from one between
    # declarators, so a declaration with both is left as written.
    stars = []
    depth = 0
    declared = [tokens[name].text]
    for j in range(name + 1, end):
        text = tokens[j].text
        depth += text in ("(", "[", "{")
        depth -= text in (")", "]", "}")
        if text == "," and depth == 0:
            if tokens[j + 1].text != "*" or tokens[j + 2].kind != "name":
                return []
            stars.append(tokens[j + 1])
            declared.append(tokens[j + 2].text)
    if stars and (pointer_const or any(t.text in ("<", ">") for t in tokens[name:end])):
        return []
    qualifier = " const" if pointer_const else ""
    replacement = (
        f"gpuvec_checked<{' '.join([*qualifiers, pointee])}>{qualifier} {tokens[name].text}"
    )
    start, stop = tokens[i].start, tokens[name].end
    edits = [(start, stop, replacement + "\n" * source.count("\n", start, stop))]
    if names is not None:
        names.update(declared)
    return edits + [(star.start, star.end, "") for star in stars]


def _in_function_body(tokens: list[Token]) -> list[bool]:
    """For each token, whether it is in a function's body (not a class's, not an initializer).

    A ``{`` opens code where it follows a ``)`` (a function, ``if``, ``for``,
    a lambda), ``else``, ``do``, ``try`` or a member function's qualifier,
    or where it is a block inside code.
    """
    stack: list[bool] = []
    result = []
    for i, token in enumerate(tokens):
        if token.text == "}" and stack:
            stack.pop()
        result.append(bool(stack) and stack[-1])
        if token.text == "{":
            before = tokens[i - 1].text if i > 0 else ""
            opens_code = before in (")", "else", "do", "try", "const", "noexcept", "mutable") or (
                before in ("{", "}", ";", ":") and bool(stack) and stack[-1]
            )
            stack.append(opens_code)
    return result


def _starts_statement(tokens: list[Token], i: int) -> bool:
    """Whether tokens[i] may begin a declaration statement (or a ``for``'s)."""
    if i == 0:
        return False
    before = tokens[i - 1].text
    return before in ("{", "}", ";") or (before == "(" and i > 1 and tokens[i - 2].text == "for")


def _template_type_parameters(tokens: list[Token]) -> set[str]:
    """The names of the type parameters of every template of the source."""
    names = set()
    for i, token in enumerate(tokens):
        if token.text == "template" and i + 1 < len(tokens) and tokens[i + 1].text == "<":
            closing = closing_bracket(tokens, i + 1, "<", ">")
            for k in range(i + 2, min(closing, len(tokens)) - 1):
                if tokens[k].text in ("typename", "class") and tokens[k + 1].kind == "name":
                    names.add(tokens[k + 1].text)
    return names


# --- rewrite (c): checked shared arrays (checked mode) -----------------------------------------
#
# In checked mode each fixed-size ``__shared__`` array becomes the emulation
# header's gpuvec_shared<T[N]...>, which checks each index against the
# array's bounds and records who reads and writes each element, to find
# races and reads of elements never written:
#     __shared__ float tile[16][17];
#     __shared__ gpuvec_shared<float[16][17]> tile{"tile"};
# Indexing reads as before. Several arrays of one declaration become one
# declaration each, on the same line. Scalars (``__shared__ int n;``) and
# declarations this rewrite does not know are left as they are (unchecked).
# ``volatile`` is dropped: every access goes through the header's calls.


def _checked_shared_array_edits(source: str) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for each fixed-size ``__shared__`` array declaration."""
    tokens = tokenize(source)
    edits = []
    for i, token in enumerate(tokens):
        if token.text != "__shared__" or (i > 0 and tokens[i - 1].text == "extern"):
            continue
        end = next((k for k in range(i, len(tokens)) if tokens[k].text in (";", "{", "}")), None)
        if end is None or tokens[end].text != ";":
            continue
        first = i
        while first > 0 and tokens[first - 1].text in ("volatile", "static"):
            first -= 1
        prefix = [t.text for t in tokens[first:i] if t.text != "volatile"]
        declarators = _shared_declarators(tokens[i + 1 : end])
        if declarators is None:
            continue
        c_type, arrays = declarators
        if not any(dims for _, dims in arrays):
            continue  # only scalars
        pieces = []
        for name, dims in arrays:
            head = " ".join([*prefix, "__shared__"])
            if dims:
                pieces.append(f'{head} gpuvec_shared<{c_type}{dims}> {name}{{"{name}"}};')
            else:
                pieces.append(f"{head} {c_type} {name};")
        start, stop = tokens[first].start, tokens[end].end
        edits.append((start, stop, " ".join(pieces) + "\n" * source.count("\n", start, stop)))
    return edits


def _shared_declarators(tokens: list[Token]) -> tuple[str, list[tuple[str, str]]] | None:
    """(element type, [(name, dimensions such as "[16][17]")]) of a declaration's
    tokens after ``__shared__``, or None where it is not one this rewrite knows."""
    words: list[Token] = []
    k = 0
    while k < len(tokens):
        if tokens[k].text in _ALIGNMENT and k + 1 < len(tokens) and tokens[k + 1].text == "(":
            k = closing_bracket(tokens, k + 1, "(", ")") + 1
            continue
        if tokens[k].text != "volatile":
            words.append(tokens[k])
        k += 1
    segments: list[list[Token]] = [[]]
    depth = 0
    for t in words:
        depth += t.text == "["
        depth -= t.text == "]"
        if depth == 0 and t.text in ("=", "*", "&", "(", "<", "::"):
            return None  # initializers, pointers, functions, templates: left as written
        if t.text == "," and depth == 0:
            segments.append([])
        else:
            segments[-1].append(t)
    first = segments[0]
    name_at = next((k for k, t in enumerate(first) if t.text == "["), len(first)) - 1
    if name_at < 1 or first[name_at].kind != "name":
        return None
    c_type = join_tokens(first[:name_at])
    arrays = []
    for k, segment in enumerate(segments):
        declarator = segment[name_at:] if k == 0 else segment
        if not declarator or declarator[0].kind != "name":
            return None
        dims = declarator[1:]
        if dims and (dims[0].text != "[" or dims[-1].text != "]"):
            return None
        if any(
            t.text == "[" and n + 1 < len(dims) and dims[n + 1].text == "]"
            for n, t in enumerate(dims)
        ):
            return None  # an array of unknown size
        arrays.append((declarator[0].text, join_tokens(dims)))
    return c_type, arrays


# --- rewrite (d): what the source writes through a checked pointer (checked mode) --------------
#
# Indexing a checked pointer gives a plain reference, as a raw pointer does,
# so that every use of an element compiles as on a GPU (`float& r = a[i]`,
# `swap(a[i], a[j])`, `max(a[i], x)`); it is recorded as a read. Which
# accesses write, the source says: the target of an assignment, an
# increment or a decrement. Its index is marked, so that the checked
# pointer records a write (an update, which reads the element first, a read
# and a write):
#     a[i] = v;   ++a[i];   *p += v;
#     a[gpuvec_emu::WriteIndex((i))] = v;   ++a[gpuvec_emu::UpdateIndex((i))];
#     p[gpuvec_emu::UpdateIndex(0)] += v;
# And the address of an element, which is no access (`atomicAdd(&a[i], v)`,
# `float* row = &A[r * cols]`), becomes the checked pointer to it, whose
# atomics are checked, and from which derived pointers stay checked:
#     &a[i]   ->   (a + (i))
# Only the names of checked pointers (rewritten parameters and locals, and
# no __shared__ array's) are looked at, wherever they appear in a function
# body: a raw pointer or array of the same name in another function gives
# the same meaning to the marked index (it converts to an integer) and to
# `(a + (i))`. A write this rewrite does not see (through a reference, a
# raw pointer, a macro) is recorded as a read: a race it takes part in may
# be missed, none is invented.

# The tokens after which `&` and `*` are binary (an operand ends there).
_OPERAND_END = frozenset({")", "]"})
# Names after which `&x` and `*x` are unary all the same.
_KEYWORDS_BEFORE_OPERAND = frozenset({"return", "case", "else", "do", "throw", "co_return"})
# The statements whose condition a `)` may close, after which a unary
# operator begins the statement: `if (c) *p = v;`.
_CONDITIONS = frozenset({"if", "while", "for", "switch"})


def _checked_access_edits(
    source: str, names: set[str], taken: Sequence[tuple[int, int, str]] = ()
) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for each write and address of an element of a checked pointer.

    Where another rewrite already edits (`taken`), nothing is: the ``*q`` of
    ``float *p = a, *q = b;`` declares a pointer, whose star goes.
    """
    tokens = tokenize(source)
    in_code = _in_function_body(tokens)
    names = names - _shared_array_names(tokens)
    edits: list[tuple[int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.kind != "name" or token.text not in names or not in_code[i] or i == 0:
            continue
        if tokens[i - 1].text in (".", "->", "::"):
            continue  # a member of the same name
        if i + 1 < len(tokens) and tokens[i + 1].text == "[":
            close = closing_bracket(tokens, i + 1, "[", "]")
            if close + 1 >= len(tokens) or tokens[close + 1].text in ("[", ".", "->", "("):
                continue  # not an element of this pointer
            if _is_unary(tokens, i - 1, "&"):
                edits.append((tokens[i - 1].start, tokens[i + 1].end, f"({token.text} + ("))
                edits.append((tokens[close].start, tokens[close].end, "))"))
            elif tokens[i - 1].kind != "name" or tokens[i - 1].text in _KEYWORDS_BEFORE_OPERAND:
                # (after a type's name, `float a[4]` declares an array)
                marked = _marked_index(tokens, close + 1) or (
                    "UpdateIndex" if _increments(tokens, i - 2) else None
                )
                if marked is not None:
                    at = tokens[i + 1].end
                    edits.append((at, at, f"gpuvec_emu::{marked}(("))
                    edits.append((tokens[close].start, tokens[close].start, "))"))
        elif _is_unary(tokens, i - 1, "*"):
            marked = _marked_index(tokens, i + 1)
            if marked is not None and not any(
                start < token.end and tokens[i - 1].start < stop for start, stop, _ in taken
            ):
                replacement = f"{token.text}[gpuvec_emu::{marked}(0)]"
                edits.append((tokens[i - 1].start, token.end, replacement))
    return edits


def _marked_index(tokens: list[Token], k: int) -> str | None:
    """The index type that marks the element before tokens[k]: "WriteIndex" if an
    assignment begins there, "UpdateIndex" if a compound one, ``++`` or ``--``; else None."""
    if not _assigns(tokens, k):
        return None
    return "WriteIndex" if tokens[k].text == "=" else "UpdateIndex"


def _adjacent(tokens: list[Token], k: int, text: str) -> bool:
    """Whether tokens[k] is `text` and follows tokens[k - 1] with no space (one operator)."""
    return 0 < k < len(tokens) and tokens[k].text == text and tokens[k - 1].end == tokens[k].start


def _assigns(tokens: list[Token], k: int) -> bool:
    """Whether tokens[k] begins an assignment (``=``, ``+=``, ``<<=``, ...) or ``++``/``--``."""
    if k >= len(tokens):
        return False
    text = tokens[k].text
    if text == "=":
        return not _adjacent(tokens, k + 1, "=")  # not ==
    if text in ("+", "-") and _adjacent(tokens, k + 1, text):
        return True  # a[i]++
    if text in ("<", ">"):
        return _adjacent(tokens, k + 1, text) and _adjacent(tokens, k + 2, "=")
    return text in ("+", "-", "*", "/", "%", "&", "|", "^") and _adjacent(tokens, k + 1, "=")


def _increments(tokens: list[Token], k: int) -> bool:
    """Whether tokens[k] and tokens[k + 1] are a prefix ``++`` or ``--``."""
    if k < 0 or tokens[k].text not in ("+", "-") or not _adjacent(tokens, k + 1, tokens[k].text):
        return False
    return not _adjacent(tokens, k, tokens[k].text)  # x+++a[i] is x++ + a[i]


def _is_unary(tokens: list[Token], k: int, operator: str) -> bool:
    """Whether tokens[k] is `operator` as a unary one (``&a[i]``, ``*p``), not binary."""
    if k < 1 or tokens[k].text != operator:
        return False
    before = tokens[k - 1]
    if before.text == operator and before.end == tokens[k].start:
        return False  # the second half of && (or of **, a pointer's pointer)
    if before.text == ")":
        opening = opening_bracket(tokens, k - 1, "(", ")")
        # `if (c) *p = v;`: a statement begins. A cast, `(float*)&a[i]`, or
        # a product, `(a) * p`, is left as written.
        return opening is not None and opening > 0 and tokens[opening - 1].text in _CONDITIONS
    if before.kind in ("name", "number", "string"):
        return before.text in _KEYWORDS_BEFORE_OPERAND
    return before.text not in _OPERAND_END


def _shared_array_names(tokens: list[Token]) -> set[str]:
    """The names declared as ``__shared__`` arrays (their accesses are checked their own way)."""
    names = set()
    for i, token in enumerate(tokens):
        if token.text != "__shared__":
            continue
        for k in range(i + 1, len(tokens) - 1):
            if tokens[k].text in (";", "{", "}"):
                break
            if tokens[k].kind == "name" and tokens[k + 1].text == "[":
                names.add(tokens[k].text)
    return names


# --- rewrite (e): reinterpret_cast (checked mode) -----------------------------------------------
#
# `reinterpret_cast<const float4*>(x)` of a checked pointer does not compile:
# the built-in cast takes no class. Each one becomes the emulation header's
# gpuvec_reinterpret_cast, which converts a checked pointer as a C-style
# cast does, and leaves anything else to reinterpret_cast:
#     reinterpret_cast<float4*>(&a[i])   ->   gpuvec_reinterpret_cast<float4*>((a + (i)))


def _reinterpret_cast_edits(source: str) -> list[tuple[int, int, str]]:
    """(start, end, replacement) for each ``reinterpret_cast<``."""
    tokens = tokenize(source)
    return [
        (token.start, token.end, "gpuvec_reinterpret_cast")
        for i, token in enumerate(tokens[:-1])
        if token.text == "reinterpret_cast" and tokens[i + 1].text == "<"
    ]


# --- helpers ----------------------------------------------------------------------------------


def _apply(source: str, edits: list[tuple[int, int, str]]) -> str:
    """`source` with each (start, end, replacement) made; the edits must not overlap."""
    pieces = []
    position = 0
    for start, stop, replacement in sorted(edits):
        pieces += [source[position:start], replacement]
        position = stop
    pieces.append(source[position:])
    return "".join(pieces)


def _c_string(text: str) -> str:
    """`text` as a C string literal, for a ``#line`` directive."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'"{escaped}"'

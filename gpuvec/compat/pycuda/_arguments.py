"""PyCUDA's kernel arguments: ``In``, ``Out``, ``InOut``, allocations and GPUArrays.

gpuvec's kernels check each argument against the kernel's signature and take
NumPy arrays of any dtype for pointer parameters, copying them to the device
and, unless the pointer is ``const``, back after the launch. So ``InOut``
and ``Out`` hand gpuvec the array itself, and ``In`` a copy where the kernel
may write (its writes must not reach the caller's array); on the host
backend, where nothing is copied, the semantics are the same.
"""

from __future__ import annotations

import numbers

import numpy as np

from gpuvec.compat.pycuda._memory import DeviceAllocation, allocation_at

__all__ = ["ArgumentHandler", "In", "InOut", "Out", "launch_arguments"]


class ArgumentHandler:
    """A NumPy array passed to a kernel, with how it travels (see :class:`In`).

    Attributes
    ----------
    array : numpy.ndarray
        The array.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as drv
    >>> drv.In(np.zeros(2)).array
    array([0., 0.])
    """

    def __init__(self, array):
        self.array = array

    def argument(self, parameter) -> np.ndarray:
        """What the kernel's ``parameter`` gets: the array itself, here."""
        return self.array

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.array!r})"


class In(ArgumentHandler):
    """A NumPy array the kernel reads: copied to the device before the launch.

    What the kernel writes into it does not come back.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as drv
    >>> from gpuvec.compat.pycuda.compiler import SourceModule
    >>> mod = SourceModule('''
    ... __global__ void add_to(float *dest, float *a, int n) {
    ...     int i = threadIdx.x;
    ...     if (i < n) { dest[i] += a[i]; a[i] = 0; }
    ... }''')
    >>> a = np.arange(4, dtype=np.float32); dest = np.ones(4, np.float32)
    >>> mod.get_function("add_to")(drv.InOut(dest), drv.In(a), np.int32(4), block=(4, 1, 1))
    >>> dest, a  # a's zeros stayed on the device
    (array([1., 2., 3., 4.], dtype=float32), array([0., 1., 2., 3.], dtype=float32))
    """

    def __init__(self, array):
        super().__init__(np.asarray(array))

    def argument(self, parameter) -> np.ndarray:
        if parameter.is_pointer and not parameter.is_const:
            return np.array(self.array, order="C")  # the writes land in the copy
        return np.ascontiguousarray(self.array)  # a copy only where it is a strided view


class Out(ArgumentHandler):
    """A NumPy array the kernel writes: copied back after the launch.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as drv
    >>> from gpuvec.compat.pycuda.compiler import SourceModule
    >>> fill = SourceModule('''
    ... __global__ void fill(double *out, double value) { out[threadIdx.x] = value; }
    ... ''').get_function("fill")
    >>> out = np.zeros(3)
    >>> fill(drv.Out(out), np.float64(2.5), block=(3, 1, 1))
    >>> out
    array([2.5, 2.5, 2.5])
    """

    def __init__(self, array):
        if not isinstance(array, np.ndarray):
            raise TypeError(
                f"{type(self).__name__} takes a NumPy array, which the kernel's results are "
                f"copied into; got {type(array).__name__}"
            )
        super().__init__(array)


class InOut(Out):
    """A NumPy array the kernel reads and writes: copied over before the launch and
    back after it.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as drv
    >>> from gpuvec.compat.pycuda.compiler import SourceModule
    >>> source = "__global__ void square(float *x) { x[threadIdx.x] *= x[threadIdx.x]; }"
    >>> square = SourceModule(source).get_function("square")
    >>> x = np.array([1.0, 2.0, 3.0], np.float32)
    >>> square(drv.InOut(x), block=(3, 1, 1))
    >>> x
    array([1., 4., 9.], dtype=float32)
    """


def _pointer(value, parameter, what: str):
    """A DeviceAllocation, a GPUArray or an address in a live allocation, as the
    array that the pointer ``parameter`` takes."""
    allocation, offset = allocation_at(value, what)
    return allocation.kernel_view(parameter.dtype, offset, not parameter.is_const, what)


def launch_arguments(kernel, args: tuple) -> tuple:
    """PyCUDA's arguments for ``kernel`` (a :class:`gpuvec.Kernel`) as gpuvec takes them.

    ``In``/``Out``/``InOut`` become NumPy arrays; DeviceAllocations, GPUArrays
    and int addresses (for a pointer parameter) the arrays of the parameter's
    type over their memory. Anything else goes as it is, and gpuvec's own
    checks name what does not fit. Surplus arguments go too, for gpuvec's
    message about their number.

    Examples
    --------
    >>> import numpy as np
    >>> import gpuvec.compat.pycuda.driver as drv
    >>> from gpuvec.compat.pycuda.compiler import SourceModule
    >>> f = SourceModule("__global__ void f(float *x, int n) {}").get_function("f")
    >>> x = np.zeros(3, np.float32)
    >>> launch_arguments(f.kernel, (drv.InOut(x), 3))[0] is x
    True
    """
    converted = []
    for k, value in enumerate(args):
        if k >= len(kernel.parameters):
            converted.append(value)
            continue
        parameter = kernel.parameters[k]
        what = f"{kernel.name}'s parameter '{parameter.name}' ({parameter.c_type})"
        if isinstance(value, ArgumentHandler):
            if not parameter.is_pointer:
                raise TypeError(f"{what} takes a number, got {type(value).__name__}")
            value = value.argument(parameter)
        elif isinstance(value, DeviceAllocation) or hasattr(value, "gpudata"):
            if not parameter.is_pointer:
                raise TypeError(f"{what} takes a number, got {type(value).__name__}")
            value = _pointer(value, parameter, what)
        elif (
            parameter.is_pointer
            and isinstance(value, numbers.Integral)
            and not isinstance(value, (bool, np.bool_))
        ):
            value = _pointer(value, parameter, what)
        converted.append(value)
    return tuple(converted)

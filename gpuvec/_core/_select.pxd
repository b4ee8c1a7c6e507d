# gpuvec._core._select's interface: none at the C level. Its callers are in
# the Python layer (count_true, compress, expand: see _select.pyx); this
# file marks it as a module of the package.

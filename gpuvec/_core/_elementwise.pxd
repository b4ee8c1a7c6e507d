# gpuvec._core._elementwise's interface: none at the C level. Its one
# caller is the Python layer (elementwise(), elementwise_ops(): see
# _elementwise.pyx); this file marks it as a module of the package.

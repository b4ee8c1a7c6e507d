# gpuvec._core._scan's interface: none at the C level. Its callers are in
# the Python layer (scan, sort, histogram, searchsorted, sorted_runs: see
# _scan.pyx); this file marks it as a module of the package.

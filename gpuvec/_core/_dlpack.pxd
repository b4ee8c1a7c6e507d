# gpuvec._core._dlpack's interface: DLPack's codes (dlpack.h's names), for
# the modules that tell a device or a dtype by them (see _dlpack.pyx).

cdef enum:
    kDLCPU = 1  # DLDeviceType
    kDLCUDA = 2
    kDLInt = 0  # DLDataTypeCode
    kDLUInt = 1
    kDLFloat = 2
    kDLBool = 6
    kDLComplex = 5

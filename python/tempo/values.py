"""Encoding and decoding of attribute and parameter values by their FOM type (doc/api.md,
"Value encoding"; doc/fom.md §3): little-endian IEEE 754 and two's complement, strings as
UTF-8 without NUL, float64 arrays as 8 bytes per element without a count. Pure Python
(struct), so that a value costs no call into the library. Read federate.py next.
"""

import struct

_F64 = struct.Struct("<d")
_I64 = struct.Struct("<q")
_I32 = struct.Struct("<i")


# struct formats of the fixed-size types (the fast path of Federate.update).
FIXED = {"float64": "d", "int64": "q", "int32": "i", "boolean": "?"}


def array_length(ftype):
    """For "float64[N]" N, for "float64[]" 0, else None."""
    if ftype.startswith("float64[") and ftype.endswith("]"):
        n = ftype[8:-1]
        return int(n) if n else 0
    return None


def encode(ftype, value):
    """The bytes of value for FOM type ftype. Raises TypeError or ValueError naming the type
    when the value does not fit it."""
    if ftype == "float64":
        return _F64.pack(float(value))
    if ftype == "int64":
        return _I64.pack(int(value))
    if ftype == "int32":
        return _I32.pack(int(value))
    if ftype == "boolean":
        return b"\x01" if value else b"\x00"
    if ftype == "string":
        if isinstance(value, bytes):
            return value
        return str(value).encode("utf-8")
    if ftype == "bytes":
        return bytes(value)
    n = array_length(ftype)
    if n is not None:
        vals = [float(x) for x in value]
        if n and len(vals) != n:
            raise ValueError("%s takes %d numbers, got %d" % (ftype, n, len(vals)))
        return struct.pack("<%dd" % len(vals), *vals)
    raise ValueError("unknown FOM type %r" % ftype)


def decode(ftype, data):
    """The Python value of bytes data of FOM type ftype: float, int, bool, str, bytes, or a
    list of floats. Bytes that do not fit the type are returned as they are."""
    try:
        if ftype == "float64":
            return _F64.unpack(data)[0]
        if ftype == "int64":
            return _I64.unpack(data)[0]
        if ftype == "int32":
            return _I32.unpack(data)[0]
        if ftype == "boolean":
            if data in (b"\x00", b"\x01"):
                return data == b"\x01"
            return data
        if ftype == "string":
            return data.decode("utf-8")
        if array_length(ftype) is not None and len(data) % 8 == 0:
            return list(struct.unpack("<%dd" % (len(data) // 8), data))
    except (struct.error, UnicodeDecodeError):
        pass
    return bytes(data)

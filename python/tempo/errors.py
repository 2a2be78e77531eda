"""Status codes of libtempo as Python: every call that returns a negative TP_E* code raises
TempoError carrying the code, its name and the library's detailed message (tp_last_error).

doc/python.md, "Errors"; the codes are those of federate/libtempo/tempo.h (doc/api.md).
"""

# name -> value, as in tempo.h
CODES = {
    "TP_OK": 0,
    "TP_TIMEOUT": 1,
    "TP_EINVAL": -1,
    "TP_ESTATE": -2,
    "TP_EHANDLE": -3,
    "TP_ENOTPUB": -4,
    "TP_ESIZE": -5,
    "TP_EFOM": -10,
    "TP_ENAME": -11,
    "TP_ETIME": -20,
    "TP_EPENDING": -21,
    "TP_EBOUND": -22,
    "TP_EENABLED": -23,
    "TP_ENOTENABLED": -24,
    "TP_EREFUSED": -30,
    "TP_EEXISTS": -31,
    "TP_ENOTFOUND": -32,
    "TP_EFOMDIFF": -33,
    "TP_EAUTH": -34,
    "TP_ECKPT": -35,
    "TP_EPROTO": -40,
    "TP_ECLOSED": -41,
    "TP_ESYS": -50,
    "TP_ENOMEM": -51,
}
NAMES = {v: k for k, v in CODES.items()}
globals().update(CODES)


class TempoError(Exception):
    """A libtempo call failed.

    code     the TP_E* status (negative int), e.g. TP_EBOUND == -22
    name     its name, "TP_EBOUND"
    message  the library's detailed message (tp_last_error, or the join's error buffer):
             it names the handle, name, time or system call at fault
    call     the Python method that failed ("update", "join", ...)
    """

    def __init__(self, code, message, call=""):
        self.code = code
        self.name = NAMES.get(code, "code %d" % code)
        self.message = message or ""
        self.call = call
        text = "%s: %s" % (call, self.name) if call else self.name
        if self.message:
            text += ": " + self.message
        super().__init__(text)

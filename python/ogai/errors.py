"""The exceptions ogai raises: one class per ogai::ErrorCode, all under ogai.Error.

Each carries the C++ message unchanged (``str(e)`` reads "where: what was expected"), plus
``e.code`` (the code's name, e.g. "invalid_argument") and ``e.where`` (the value's name or the
file, possibly "").  Classes that match a built-in category also derive from it, so
``except ValueError`` catches an InvalidArgumentError and ``except FileNotFoundError`` a
NotFoundError.
"""


class Error(Exception):
    """Base class of every ogai error."""

    code = "internal_error"
    where = ""


class InvalidArgumentError(Error, ValueError):
    """A value the caller passed is out of range or malformed (it is named in the message)."""


class NotFoundError(Error, FileNotFoundError):
    """A file, tensor or name does not exist (e.g. the package path)."""


class ParseError(Error):
    """A document (YAML, JSON, template) cannot be read."""


class InvalidPackageError(Error):
    """The package breaks its contract (metadata rules, ONNX admission)."""


class UnsupportedError(Error, NotImplementedError):
    """Valid input that ogai does not implement (the message says what is missing)."""


class ExecutionError(Error):
    """ONNX Runtime or the operating system failed while running."""


class CancelledError(Error):
    """The work was cancelled."""


class InternalError(Error):
    """A bug in ogai."""


_BY_CODE = {
    "invalid_argument": InvalidArgumentError,
    "not_found": NotFoundError,
    "parse_error": ParseError,
    "invalid_package": InvalidPackageError,
    "unsupported": UnsupportedError,
    "runtime_error": ExecutionError,
    "cancelled": CancelledError,
    "internal_error": InternalError,
}


def _make(code, where, message):
    """The exception for an ogai::Error (called by the compiled module)."""
    error = _BY_CODE.get(code, InternalError)(message)
    error.code = code
    error.where = where
    return error

"""ogai: run onnx-genai model packages (inference_metadata.yaml) on ONNX Runtime from Python.

    import ogai
    model = ogai.Model("path/to/package")            # ep="cuda" for the GPU
    result = model.generate("Once upon a time", max_new_tokens=40, temperature=0)
    print(result.text, result.finish_reason)
    for piece in model.stream("Once upon a time", max_new_tokens=40):
        print(piece, end="", flush=True)

docs/python.md describes every class, keyword and exception.
"""
from ._ogai import (  # noqa: F401  (re-exported)
    ChatStream,
    Context,
    Engine,
    GenerationResult,
    Model,
    Request,
    RequestStream,
    SAMPLING_FIELDS,
    TextStream,
    Tokenizer,
    ValidationProblem,
    ValidationResult,
    Workflow,
    __version__,
    validate,
)
from .errors import (  # noqa: F401
    CancelledError,
    Error,
    ExecutionError,
    InternalError,
    InvalidArgumentError,
    InvalidPackageError,
    NotFoundError,
    ParseError,
    UnsupportedError,
)

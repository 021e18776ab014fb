"""Python client of the svc decision API v1.

``Client`` (sync) and ``AsyncClient`` call the API with retries by the spec's rules and raise
``SvcError`` subclasses by error ``type``; the shapes of requests and answers are in ``svc_decide.types``.
``client.batches`` holds the batch routes; ``svc_decide.webhooks.verify`` checks a webhook call's signature.
"""

from . import webhooks
from ._http import ApiResponse, ResponseMeta
from ._version import __version__
from .async_client import AsyncClient
from .batches import AsyncBatches, Batches
from .reviews import AsyncReviews, Reviews
from .client import Client
from .error_catalogue import KNOWN_CODES, TYPE_STATUS, is_known_code
from .errors import (
    ERROR_CLASSES,
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    InsufficientBalanceError,
    InternalServerError,
    InvalidRequestError,
    InvalidResponseError,
    MethodNotAllowedError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    SvcError,
    TooLargeError,
    ValidationError,
)
from .operations import NAMESPACED_METHODS, OPERATIONS
from .retry import RetryPolicy
from .timeouts import TimeoutPolicy
from .webhooks import WebhookVerificationError

__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "ApiResponse",
    "AsyncBatches",
    "AsyncClient",
    "AsyncReviews",
    "AuthenticationError",
    "Batches",
    "Client",
    "ConflictError",
    "ERROR_CLASSES",
    "InsufficientBalanceError",
    "InternalServerError",
    "InvalidRequestError",
    "InvalidResponseError",
    "KNOWN_CODES",
    "MethodNotAllowedError",
    "NAMESPACED_METHODS",
    "NotFoundError",
    "OPERATIONS",
    "PermissionDeniedError",
    "RateLimitError",
    "ResponseMeta",
    "RetryPolicy",
    "Reviews",
    "ServiceUnavailableError",
    "SvcError",
    "TYPE_STATUS",
    "TimeoutPolicy",
    "TooLargeError",
    "ValidationError",
    "WebhookVerificationError",
    "__version__",
    "is_known_code",
    "webhooks",
]

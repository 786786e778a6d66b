"""Model backends behind one interface, chosen by a model spec.

`agent:oracle|random|human` (built in), `openai:MODEL` (any OpenAI-compatible
server), `hf:PATH_OR_NAME` (extra `hf`), `vllm:NAME` (extra `vllm`).
"""

from steer.backends._agents import AGENTS, HumanAgent, OracleAgent, RandomAgent
from steer.backends._base import Answer, Backend, BackendError, BudgetExhaustedError
from steer.backends._chat import ChatBackend, Meter, cache_key
from steer.backends._pricing import Price, load_pricing, price_for
from steer.backends._registry import BACKENDS, resolve_backend

__all__ = [
    "AGENTS",
    "BACKENDS",
    "Answer",
    "Backend",
    "BackendError",
    "BudgetExhaustedError",
    "ChatBackend",
    "HumanAgent",
    "Meter",
    "OracleAgent",
    "Price",
    "RandomAgent",
    "cache_key",
    "load_pricing",
    "price_for",
    "resolve_backend",
]

"""LLM-assisted generation: a model writes questions from a template's
instructions and a gold example; steer parses, verifies and records them."""

from steer.generate.llm._options import LLMOptions
from steer.generate.llm._run import LLMSummary, generate_llm_bank

__all__ = ["LLMOptions", "LLMSummary", "generate_llm_bank"]

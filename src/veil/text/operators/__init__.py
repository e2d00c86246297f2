"""Operators: what replaces a detected span, and the keys and vault behind them.

Placeholder, redact, mask, keyed hash, FF3-1 token, encryption, surrogate and vault
operators (``_operators``), key loading and derivation (``_keys``), the token vault
(``_vault``) and realistic surrogate values (``_surrogate``). Imports
:mod:`veil.text.recognizers` (to shape a surrogate like the value it replaces) and
:mod:`veil.text.vocab`; never detection.
"""

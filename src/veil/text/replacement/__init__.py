"""Replacement: the operators that replace a detected span, and the keys and vault behind
them. (Not named ``operators``: ``veil.text.operators`` is the public operator registry.)

Placeholder, redact, mask, keyed hash, FF3-1 token, encryption, surrogate and vault
operators (``_operators``), key loading and derivation (``_keys``), the token vault
(``_vault``) and realistic surrogate values (``_surrogate``). Imports
:mod:`veil.text.recognition` (to shape a surrogate like the value it replaces) and
:mod:`veil.text.vocab`; never detection.
"""

"""Recognition: the recognizers that find each kind of personal data without NER.

(Named ``recognition``, not ``recognizers``: ``veil.text.recognizers`` is the public
registry of recognizers, and a sub-package of that name would be shadowed by it.)

The base classes and registry (``_recognizer``), the :class:`Finding` they return
(``_finding``), checksum validators (``_checksums``) and one module per family: contact
details, network identifiers, financial and government numbers, national IDs, dates,
street addresses and postcodes, names and organisations, places, secrets, values announced
by a label, identifier shapes without one, nationalities/religions/political groups, and
the adapter for Presidio's own recognizers. A family registers itself when imported (:mod:`veil.text.detection` imports
them all). Imports only :mod:`veil.text.vocab`.
"""

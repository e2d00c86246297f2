"""Words that name a kind of document, a department or an identifier, never a party or a
place: "send the PAN and the PDF to HR", "my Aadhaar card". spaCy's small English models
read such capitalised acronyms as organisations or places, and a redaction then hides the
label that says what a value is, not the value.

Masked values ("XXXX-XXXX-XXXX-9876", "****", "###") are no name of anything either.
"""

from __future__ import annotations

from veil._lazy import lazy_compile

__all__ = ["LABEL_WORDS", "names_nothing"]

_LABEL_WORDS_TEXT = (
    # document and file formats
    "pdf csv tsv doc docx xls xlsx ppt pptx txt rtf odt ods jpg jpeg png gif tif tiff heic "
    "zip rar xml json html htm eml msg "
    # departments and functions
    "hr it qa r&d rnd l&d ops devops it/hr hris payroll "
    # identifier labels and the numbers they stand for
    "id ids uid pan acc acct a/c ssn ssns sin nin nino tin ein itin dob d.o.b mrn nric fin "
    "upi ifsc iban bic swift pin otp cvv cvc kyc uan epf gstin gst vat aba rtn ach eft "
    "aadhar aadhaar adhaar dl ppsn pps tfn abn npi mbi"
)
#: case-folded words that are labels, formats or departments (see the module docstring);
#: they count written in capitals ("PAN", not "Pan" in "Peter Pan"; "SWIFT", not "Swift"),
#: except the words below, which are nobody's name in any case
LABEL_WORDS = frozenset(_LABEL_WORDS_TEXT.split())
_ANY_CASE = frozenset(("aadhar", "aadhaar", "adhaar", "payroll", "devops", "hris"))
_NAMED = frozenset(("ORGANIZATION", "LOCATION", "PERSON", "NRP"))
# every word of the span a mask: X, *, #, • or ● repeated, with separators between
_MASK = lazy_compile(r"[\s./-]*(?:[Xx*#•●]+[\s./-]*)+")


def names_nothing(entity: str, span: str) -> bool:
    """Whether a span found as an organisation, place, person or group is only label words
    or a mask, which name none of them.

    Examples
    --------
    >>> names_nothing("ORGANIZATION", "PDF"), names_nothing("LOCATION", "Aadhar")
    (True, True)
    >>> names_nothing("ORGANIZATION", "XXXX-XXXX"), names_nothing("ORGANIZATION", "Acme")
    (True, False)
    >>> names_nothing("PERSON", "Swift"), names_nothing("ORGANIZATION", "SWIFT")
    (False, True)
    """
    if entity not in _NAMED:
        return False
    words = [w.strip(".,:;()'’\"").removesuffix("'s") for w in span.split()]
    words = [w for w in words if w]
    if words and all(
        (f := w.casefold()) in LABEL_WORDS and (w.isupper() or f in _ANY_CASE) for w in words
    ):
        return True
    return bool(_MASK.fullmatch(span)) and any(c in span for c in "Xx*#•●")

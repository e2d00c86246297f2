"""Words of organisations' names: legal forms (ISO 20275's abbreviations in common use),
the short forms that are also other things, institution words that close a name and
words that open one. Read by the name recognizer and the place gazetteer."""

from __future__ import annotations

import re

# Legal forms of companies as they are written after the name, by country (the
# abbreviations of ISO 20275's entity legal forms list in common use), matched as written:
# "AS" (Norway) is a form, "as" is not; spaces inside a form match any run of spaces.
_LEGAL_FORMS: tuple[str, ...] = (
    # English-speaking countries, and Asia
    "Inc.", "Inc", "Incorporated", "Corp.", "Corp", "Corporation", "Co.", "Co", "Company",
    "Ltd.", "Ltd", "Limited", "LLC", "L.L.C.", "PLC", "plc", "LLP", "L.L.P.", "LP", "L.P.",
    "PLLC", "Pty Ltd", "Pty. Ltd.", "Pvt. Ltd.", "Pte. Ltd.", "Sdn. Bhd.", "Bhd", "K.K.",
    # German-speaking countries
    "GmbH", "gGmbH", "mbH", "AG", "KG", "KGaA", "OHG", "GbR", "e.V.", "eG",
    # French, Spanish, Portuguese, Italian
    "S.A.", "SA", "S/A", "S.A.S.", "SAS", "SARL", "S.A.R.L.", "S.à r.l.", "SNC", "SCA", "SCS",
    "S.L.", "SL", "S.L.U.", "S.L.L.", "S.L.N.E.", "S.A.U.", "S.A.D.", "S.C.P.", "S.Com.",
    "S.Coop.", "S.A.T.", "S.C.", "Ltda.", "Ltda", "Lda.", "Cia.", "EIRELI",
    "S.p.A.", "SpA", "SPA", "S.r.l.", "Srl", "s.r.l.", "S.a.s.", "S.n.c.",
    # Benelux, Nordic countries
    "B.V.", "BV", "N.V.", "NV", "V.O.F.", "VOF", "C.V.", "SPRL", "BVBA", "VZW", "ASBL",
    "A/S", "ApS", "I/S", "K/S", "P/S", "AB", "HB", "KB", "AS", "ANS", "As Oy", "Oy", "Oyj",
    "Ky", "Ay", "Osk", "ry", "Tmi",
    # Central and Eastern Europe, Turkey
    "a.s.", "s.r.o.", "v.o.s.", "k.s.", "z.s.", "o.p.s.", "Sp. z o.o.", "sp. z o.o.", "Sp.k.",
    "Sp.j.", "s.c.",
    "SRL", "S.R.L.", "PFA", "Kft.", "Zrt.", "Nyrt.", "Bt.", "d.o.o.", "d.d.", "A.Ş.", "Şti.",
)  # fmt: skip
# abbreviations of three or more letters, each with its dot ("S.L.N.E.", "S.A.R.L."), are
# also written without the last one ("Logística Malo S.L.N.E and ...")
_LEGAL_FORMS += tuple(f[:-1] for f in _LEGAL_FORMS if re.fullmatch(r"(?:[A-Z][a-z]*\.){3,}", f))
# short capital forms that are also other things: state and province codes ("Reno NV",
# "Calgary AB", "Adelaide SA"), blood groups ("Type AB"), clinical abbreviations ("Plavix,
# ASA", "Nitro SL", "severe AS", "AG 14"): never in a clinical note, and elsewhere not a
# company when the name is a place, everyday words or drug and charting words
_WEAK_FORMS = frozenset(
    {"SA", "AB", "NV", "AS", "SL", "LP", "AG", "KG", "BV", "SAS", "SCA", "SCS", "SNC", "ANS",
     "PFA", "HB", "KB", "SPA"}
)  # fmt: skip
# (Norway's "ASA" is left out: it is aspirin in every clinical note, and NER knows the few
# public companies that carry it)
# institution words that close an organisation's name
_ORG_WORDS = (
    "Group", "Groep", "Gruppe", "Holdings", "Holding", "Partners", "Associates", "Hospital",
    "Medical Center", "Clinic", "Health", "Healthcare", "University", "College", "Institute",
    "Foundation", "Bank", "Trust", "Agency", "Laboratories", "Labs", "Pharmaceuticals",
    "Systems", "Technologies", "Solutions", "Services",
)  # fmt: skip
# words that open an organisation's name: foundations, groups, banks; Polish trade prefixes
_ORG_OPENERS = (
    "Stichting", "Fundacja", "Fundación", "Fundação", "Fondazione", "Stiftung", "Grupo",
    "Gruppo", "Banco", "Associação", "Asociación", "Associazione", "Spółdzielnia",
    "FPUH", "PPUH", "PHU", "FHU", "PPH",
)  # fmt: skip

"""Word lists that let NER findings be checked: clinical vocabulary and personal names.

A statistical NER model trained on news and web text (spaCy's English pipelines are trained
on OntoNotes) reads clinical shorthand as names: upper-case abbreviations ("NSR", "MICU"),
section words ("Neuro:", "Resp:"), drug and device names ("Lasix", "Foley") and capitalised
charting verbs ("Cont", "Tolerating") become PERSON, ORG or GPE. Two word lists let veil
check what the model proposes:

* :data:`CLINICAL_TERMS`: clinical abbreviations, section words, units, devices, common
  drug names (generic and brand) and charting words, written for veil from standard
  nursing and medical abbreviation usage. :func:`clinical_register` uses the unambiguous
  ones to tell that a text is a clinical note.
* :func:`name_lexicon`: first and last names from Faker's person providers for every
  locale it ships (drawn from national name statistics), read from the installed package
  at first use, never fetched.

Both are used only to *accept or refuse* what NER or a name pattern proposes; no span is
reported because a word is on a list alone.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re

from veil._lazy import lazy_compile
from veil.text.vocab._street_words import _STATE_NAMES, _STATES

__all__ = [
    "CALENDAR_WORDS",
    "CLINICAL_MARKERS",
    "CLINICAL_TERMS",
    "INSTITUTION_WORDS",
    "LOWER_LATIN",
    "NOTE_WORDS",
    "NOT_NAMES",
    "NRP_WORDS",
    "RELATION_WORDS",
    "UPPER_LATIN",
    "clinical_register",
    "first_last_name",
    "has_dictionary",
    "mostly_upper",
    "name_lexicon",
    "relation_pattern",
    "state_or_country",
    "truecase",
    "word_classes",
    "word_set",
]


# Latin letters with case, as regex class bodies: ASCII, Latin-1, Latin Extended-A and -B
# and Latin Extended Additional ("José", "Łukasz", "Müller", "Žinkovská", Romanian "Ioniță",
# "Nemeș", Vietnamese "Đặng", "Nguyễn", "Dương")
_EXT_A = [chr(c) for r in ((0x100, 0x250), (0x1E00, 0x1F00)) for c in range(*r)]
UPPER_LATIN = "A-ZÀ-ÖØ-Þ" + "".join(c for c in _EXT_A if c.isupper())
LOWER_LATIN = "a-zß-öø-ÿ" + "".join(c for c in _EXT_A if c.islower())


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``: word lists are written as text blocks."""
    return frozenset(text.split())


# months and weekdays, which are given names too ("April", "June") and towns' last words
# in no gazetteer ("born in March", "moved to Friday", "Could April work?")
CALENDAR_WORDS = word_set(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday"
)


# Abbreviations and words that are clinical shorthand and (almost) never an English word or
# a name: one in a text marks it as a clinical note.
_MARKERS_TEXT = """
    abd abg abx afeb afib aline amio aox3 a&ox3 a+ox3 ards asa bipap bmp bnp brbpr bun cabg
    cbc ccu cmo copd cpap csru ctab cvicu cvl cvp cvvh cvvhd crrt cxr dbp dilaudid dni dnr
    doe dvt ecg ecf egd ekg eomi ercp esrd etco2 ett fio2 fsbs gerd gtt gtts hco3 hct heent
    hgb hpi htn icu iddm inr ivf ivp ivpb jvd kcl kub lasix lfts lgib lle lue micu mrsa
    nad ngt niddm nicu npo nrb nsr nstemi ogt pacu peep perrl perrla picc picu pmh prbc
    prbcs prn psv ptt pvc pvcs qhs qid qod rle rrr rsbi rue sbp sicu simv snf spo2 sao2
    stemi svo2 tid tmax tpn tsicu tte tee ugib uop vanco vbg wbc zosyn levophed propofol
    versed precedex heparin lovenox coumadin protonix neuro pulm heme
    pcwp dobutamine dopamine milrinone amiodarone metoprolol lopressor furosemide
    vancomycin cefepime ceftriaxone levofloxacin levaquin flagyl metronidazole bactrim
    meropenem fentanyl midazolam lorazepam haldol hydromorphone oxycodone acetaminophen
    albuterol atrovent solumedrol keppra kayexalate lactulose zofran reglan colace dulcolax
    pantoprazole famotidine ondansetron extubated intubated afebrile tachycardic
    bradycardic hypotensive diaphoretic ectopy tele atropine diflucan fluconazole
    aggrastat integrilin eptifibatide ceftaz tobra tobramycin oob
    """
CLINICAL_MARKERS = frozenset(_MARKERS_TEXT.split())
# markers that are also names or words count only where a note's form cannot be the other
# one: a name's ("Asa", "Gerd", "John Doe") not as a capitalised word, an English or French
# word's ("Rue de la Paix", a golf tee, a bun) only in capitals; "INR" in capitals is a
# currency's code too ("INR 5,000"), and "well versed" is English
_NAME_MARKERS = word_set("asa doe gerd aline nicu lue kub")
_WORD_MARKERS = word_set("rue tee bun")
_WELL = lazy_compile(r"well[ \t]+$", re.IGNORECASE)

# The wider vocabulary: everything above, plus words that are clinical in a note but may
# also be English ("Plan", "Code", "Lines") or short ("CV", "GI", "PT").
_TERMS_TEXT = """
    cv cardiac cardiovascular respiratory pulmonary gi gu renal id endo skin integ integument
    ext extremities lungs lung heart chest social dispo disposition plan assessment a/p
    impression ros pe meds medications allergies labs imaging micro vitals exam events
    nutrition fen ppx prophylaxis access lines drains activity code pain safety comfort
    mental status psychosocial family communication wound wounds mobility ambulation
    elimination diet i/o ins outs intake output neurologic neurological hem onc
    micu sicu ccu csru nicu picu icu ed er or pacu floor rehab snf ltac vna ecf cvicu tsicu
    unit hr bp sbp dbp map rr temp tmax tc spo2 sao2 o2 sat sats cvp pap pcwp ci co svr svo2
    etco2 icp cpp uop u/o i&o gcs rass bmi wt ht ra nc nrb fm fio2 peep psv ps cpap bipap
    simv ac prvc vt tv rsbi abg vbg ett trach ogt ngt ng og peg pej dobhoff vent mv ls bs
    cta ctab rales rhonchi wheezes crackles sx suction suctioned neb nebs mdi cpt
    cbc bmp cmp lfts lft wbc rbc hct hgb plt plts inr pt ptt bun cr creat na cl co2 hco3 glu
    gluc fs fsbs bg mg phos ca ica lactate lac trop tropn ck ckmb bnp alb tbili alt ast alk
    amylase lipase ua ucx bcx cx mrsa vre cdiff c.diff esbl abx tsh a1c ldh fibrinogen
    ddimer esr crp procalcitonin cortisol ammonia tox etoh lytes
    cxr kub ct cta mri mra us echo tte tee ekg ecg eeg emg egd ercp cath pci cabg stent ir lp
    bronch thoracentesis paracentesis hd cvvh cvvhd crrt pd dialysis picc cvl tlc aline
    a-line swan iabp pacer ppm aicd icd hickman port mediport foley condom flexiseal jp
    nsr sr st sb afib af aflutter svt vf pvc pvcs pac pacs lbbb rbbb chb stemi nstemi mi acs
    chf cad htn dm iddm niddm copd ards pna uti uri dvt gerd gib ugib lgib esrd ckd arf aki
    atn cva tia sah sdh ich sz dts ams sob doe cp n/v bm bms brbpr ileus sbo hiv hcv hbv tb
    osa cirrhosis sepsis septic afebrile febrile edema
    nad rrr perrl perrla eomi mae aox3 a&ox3 nt nd hsm le ue lle rle lue rue dp pp jvd gtt
    gtts lasix furosemide vanc vanco vancomycin zosyn cefepime ceftriaxone ctx levofloxacin
    levaquin cipro flagyl metronidazole bactrim clinda clindamycin meropenem imipenem
    linezolid daptomycin gentamicin gent tobramycin fluconazole micafungin acyclovir
    heparin lovenox enoxaparin coumadin warfarin plavix clopidogrel asa aspirin integrilin
    nitro ntg nitroglycerin lopressor metoprolol atenolol labetalol hydralazine captopril
    lisinopril amlodipine norvasc diltiazem dilt digoxin amiodarone amio lidocaine dopamine
    dobutamine levophed levo norepinephrine neo neosynephrine phenylephrine vasopressin
    vaso epinephrine epi milrinone nipride propofol diprivan fentanyl versed midazolam
    ativan lorazepam haldol haloperidol precedex dexmedetomidine morphine mso4 dilaudid
    hydromorphone oxycodone percocet vicodin tylenol acetaminophen apap motrin ibuprofen
    toradol ketorolac insulin lantus glargine humalog novolog nph ssi kcl kphos mgso4
    calcium bicarb nahco3 albumin ffp prbc prbcs cryo ivf ns lr d5w tpn ppn tf tfs
    promote nepro replete ensure protonix pantoprazole pepcid famotidine nexium zofran
    ondansetron reglan metoclopramide colace senna dulcolax bisacodyl lactulose miralax
    kayexalate mucomyst albuterol atrovent ipratropium combivent xopenex solumedrol
    methylprednisolone prednisone decadron dexamethasone hydrocortisone keppra
    levetiracetam dilantin phenytoin depakote seroquel zyprexa ambien benadryl narcan
    zocor lipitor statin synthroid levothyroxine neurontin gabapentin ultram tramadol
    ceftaz unasyn nafcillin oxacillin ampicillin azithro azithromycin doxy rifampin
    mannitol nimodipine tpa alteplase cellcept tacrolimus prograf cyclosporine
    po pr iv ivp ivpb im sq sc sl bid qid qd qod qhs qam qpm prn q1h q2h q4h q6h q8h q12h
    stat npo hs drip bolus mcg meq ml cc kg mmhg lpm
    pts rn rns md mds np pa ho sw cm ot slp rt rrt pcp hcp dnr dni cmo fc poa
    cont continue continued monitor monitoring awaiting remains received given tolerating
    denies alert oriented stable noted per update updated report nursing progress
    addendum overnight npn ccu/micu poc diurese diuresis diuresed duoderm mepilex tegaderm
    xeroform aquacel allevyn rd psych resp speech swallow eval consult consulted lab
    """
_NOT_NAMES_EXTRA = """
    will see note resident attending fellow intern team patient family
    """
CLINICAL_TERMS = frozenset(_TERMS_TEXT.split()) | CLINICAL_MARKERS
#: words that are charting vocabulary when they stand alone ("Will cont to monitor")
NOTE_WORDS = CLINICAL_TERMS | frozenset(_NOT_NAMES_EXTRA.split())

# Words that statistical NER mistakes for names in clinical and technical text. Matched
# case-insensitively against the whole span; extend per deployment with ``allow_list``.
_NOT_NAMES_TEXT = """
    CV Neuro Foley Resp Pulm GI GU Renal ID Heme Endo Psych Skin Ext HEENT Abd Lungs Heart
    CXR ECG EKG MRI CT ICU CCU MICU SICU NICU ED ER OR PACU NPO PRN BID TID QID QD QHS PO IV IM
    SQ SC NS LR KCl Lasix Vanc Zosyn Tylenol Coumadin Heparin Insulin Albuterol Atrovent Pt
    Pts PMH HPI ROS PE Plan Assessment Dispo FEN PPx DVT GERD COPD CHF CAD HTN DM CKD ESRD
    AFib NSR SOB CP BM UOP ABG VBG CBC BMP LFTs Trop BNP INR PTT WBC Hct Hgb Plt HCO3 BUN
    Cr Glu Mg Phos Lactate SpO2 RA NC BiPAP CPAP ETT OGT NGT PICC CVL Swan MAP CVP PEEP FiO2
    RR HR BP Tmax Afebrile NAD RRR CTAB PERRL EOMI Echo TTE TEE Cath PCI CABG Stent Levo
    Vaso Propofol Fentanyl Versed Precedex Neo Dilaudid Morphine Ativan Haldol Flagyl Cipro
    Levaquin Bactrim Keppra Protonix Pepcid Colace Senna Dulcolax Metoprolol Lopressor
    Amiodarone Digoxin Diltiazem Captopril Lisinopril Aspirin ASA Plavix Lovenox Nitro
    Narcan Zofran Reglan Ambien Seroquel Zyprexa Wound Access Lines Drains Activity Code
    Full Code DNR DNI Neuro/Psych Cardiac Vascular Mental Status Social Dispo Nutrition
    Events Allergies Meds Labs Imaging Micro Vent Vitals Exam Impression Diet Pain
    MAE Driver Drivers Licence License Passport Customer Patient Client Tenant Applicant
    SSN DOB MRN DL ID EIN TIN ITIN IBAN URL IP MAC Email Phone Tel Fax Cell Mobile Zip
    Python Java Linux Windows Docker Kubernetes API SDK JSON YAML SQL HTTP HTTPS TLS
    """
NOT_NAMES = frozenset(w.lower() for w in _NOT_NAMES_TEXT.split())

# Nationalities, religions and ethnic groups (spaCy's NORP, veil's NRP): a closed class,
# so inside a clinical note only these words are taken as NRP ("Diflucan" is not)
_NRP_TEXT = """
    american americans canadian mexican cuban haitian dominican puerto rican jamaican
    brazilian argentine argentinian colombian peruvian chilean venezuelan ecuadorian
    guatemalan salvadoran honduran nicaraguan british english scottish welsh irish french
    german dutch belgian swiss austrian italian spanish portuguese greek polish czech
    slovak hungarian romanian bulgarian serbian croatian bosnian albanian ukrainian
    russian belarusian lithuanian latvian estonian finnish swedish norwegian danish
    icelandic turkish armenian georgian azerbaijani iranian persian iraqi syrian
    lebanese jordanian israeli palestinian saudi yemeni egyptian moroccan algerian
    tunisian libyan ethiopian eritrean somali sudanese kenyan ugandan tanzanian nigerian
    ghanaian senegalese cameroonian congolese angolan south african zimbabwean indian
    pakistani afghan bangladeshi nepali sri lankan chinese japanese korean vietnamese
    cambodian laotian thai burmese filipino indonesian malaysian singaporean taiwanese
    mongolian tibetan australian cape verdean asian african european hispanic latino
    latina latinx arab arabic caucasian native indigenous creole christian christians
    catholic catholics protestant baptist methodist lutheran presbyterian episcopalian
    pentecostal evangelical orthodox mormon jehovah's jehovah witness witnesses jewish jew
    jews muslim muslims islamic hindu hindus buddhist buddhists sikh sikhs atheist
    agnostic democrat democrats republican republicans democratic communist socialist
    speaking
    omani emirati qatari kuwaiti bahraini kazakh kazakhstani uzbek kyrgyz tajik turkmen
    maltese cypriot slovenian slovene macedonian montenegrin moldovan kosovar
    luxembourgish monegasque andorran liechtensteiner fijian samoan tongan papuan
    rwandan burundian malawian zambian mozambican namibian botswanan motswana basotho
    swazi malagasy mauritian seychellois comorian djiboutian chadian nigerien malian
    burkinabe ivorian guinean liberian gambian togolese beninese gabonese mauritanian
    bruneian timorese bhutanese maldivian paraguayan uruguayan bolivian panamanian
    belizean guyanese surinamese trinidadian barbadian bahamian grenadian bermudian
    kurd kurdish yazidi druze pashtun tamil punjabi gujarati bengali sinhalese hmong
    uyghur berber bedouin maori aboriginal inuit navajo cherokee sioux romani
    shia shiite sunni zoroastrian bahai baha'i quaker quakers amish mennonite
    anglican adventist rastafarian taoist shinto wiccan pagan
    """
NRP_WORDS = frozenset(_NRP_TEXT.split())

# a word, split at "/" ("DNR/DNI", "PT/OT") and never started inside another ("20mg")
# Words that name a kind of care institution ("Mercy Hospital", "Briarwood Rehab")
INSTITUTION_WORDS = word_set(
    "hospital hosp medical center centre clinic health healthcare rehab rehabilitation "
    "nursing home manor house institute university college hospice infirmary"
)

# Verbs and greetings that open a sentence before a name ("Contact Avery Inc for details",
# "Email Brown LLC", "Thanks Foster Ltd"): at the start of a sentence they are not part of
# the name that follows, though a capitalised-word run takes them in
OPENING_WORDS = word_set(
    "contact call ask email e-mail mail visit join thank thanks tell please meet dear hi "
    "hello hey see try check write text message notify inform cc forward send welcome pay "
    "phone ring invite hire fax reach congratulations congrats"
)


# Family relations that name a person when a name follows ("wife Mary", "son Tom")
RELATION_WORDS = word_set(
    "wife husband daughter son mother father sister brother niece nephew aunt uncle grandson "
    "granddaughter grandmother grandfather fiance fiancé fiancee fiancée boyfriend girlfriend"
)


def relation_pattern(*extra: str) -> str:
    """A regex alternation of :data:`RELATION_WORDS` and ``extra`` words, longest first."""
    words = sorted({*RELATION_WORDS, *extra}, key=lambda w: (-len(w), w))
    return "|".join(re.escape(w) for w in words)


_WORD = lazy_compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9&+]*")
# a dosing interval: "Q4H", "q12hrs"
_INTERVAL = lazy_compile(r"q\d{1,2}h(?:rs?)?")


def _other_sense(text: str, start: int, word: str, w: str) -> bool:
    """Whether a marker ``word`` (``w`` lower-cased) at ``start`` is written as the name or
    the word it also is (see :data:`_NAME_MARKERS`)."""
    if w in _NAME_MARKERS:
        return word[0].isupper() and not word.isupper()
    if w in _WORD_MARKERS:
        return not word.isupper()
    if w == "inr":
        return word.isupper()
    if w == "versed":
        return _WELL.search(text, max(0, start - 8), start) is not None
    return False


def clinical_register(text: str, *, needed: int = 1) -> bool:
    """Whether ``text`` reads as a clinical note: ``needed`` distinct unambiguous clinical
    abbreviations, drug names (:data:`CLINICAL_MARKERS`) or dosing intervals ("Q4H") occur
    in it as whole words. One is enough by default: the markers ("NPO", "PRN", "SpO2", "Lasix") do not occur in other
    text, and what the register changes (a PERSON must carry a known name, an upper-case
    abbreviation is not an organisation) costs little where it is wrong.

    Examples
    --------
    >>> clinical_register("Neuro: A&Ox3. CV: NSR 80s, SBP 110s. Plan: cont lasix.")
    True
    >>> clinical_register("Send the invoice to Acme Ltd in Boston by Friday.")
    False
    >>> clinical_register("Ask John Doe at 14 Rue de la Paix"), clinical_register("DOE, RUE edema")
    (False, True)
    """
    global _LAST_CLINICAL
    last = _LAST_CLINICAL
    if last[0] is text and last[1] == needed:
        return last[2]
    result = _clinical_register(text, needed)
    _LAST_CLINICAL = (text, needed, result)
    return result


# the last text asked about and its answer: NER, the place, name, organisation and street
# recognizers ask about the same string object in turn (one tuple, swapped whole)
_LAST_CLINICAL: tuple[str, int, bool] = ("", 1, False)


def _clinical_register(text: str, needed: int) -> bool:
    seen: set[str] = set()
    for m in _WORD.finditer(text):
        word = m.group()
        w = word.lower()
        if w in CLINICAL_MARKERS:
            if _other_sense(text, m.start(), word, w):
                continue
        elif w[0] != "q" or not _INTERVAL.fullmatch(w):  # an interval starts with "q"
            continue
        seen.add(w)
        if len(seen) >= needed:
            return True
    return False


def _provider_names(provider: type, attr: str) -> list[str]:
    for klass in provider.__mro__:
        value = klass.__dict__.get(attr)
        if isinstance(value, dict):
            return [k for k in value if isinstance(k, str)]
        if isinstance(value, (list, tuple)):
            return [k for k in value if isinstance(k, str)]
    return []


# what people call countries besides their names in Faker's and GeoNames' lists ("the
# U.S.", "Britain"); the place gazetteer and the hipaa profile's state-or-country test share it
COUNTRY_ALIASES = (
    "US", "U.S.", "USA", "U.S.A.", "United States", "United States of America", "America",
    "UK", "U.K.", "United Kingdom", "Britain", "Great Britain", "England", "Scotland", "Wales",
    "Northern Ireland", "UAE", "Holland", "Czechia", "South Korea", "North Korea", "Russia",
    "Vietnam", "Ivory Coast",
)  # fmt: skip


# English function words: some locales' name lists hold them ("The", "An", "Were"), and a
# name lexicon that did would turn "The" into evidence of a person
_FUNCTION_TEXT = """
    a an the and or but nor so yet for of in on at by to from with without within into onto
    upon about above below under over after before since until while during between among
    through across against around behind beyond near off out up down than then there here
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    theirs this that these those who whom whose which what when where why how all any both
    each few more most other some such no not only own same too very can cannot could may
    might must shall should will would am is are was were be been being have has had do
    does did done get got go goes went one two three ten per via also just even ever never
    always often again once still else
    """
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())


@functools.cache
def common_words() -> frozenset[str]:
    """Common English words (function words and Faker's English word list): a name that is
    also one ("Will", "May", "Young", "Price") is not evidence of a person on its own.

    Faker's list is kept on disk (:mod:`veil.text.vocab._datacache`): importing Faker to read it
    costs a tenth of a second or more of every process that detects text."""
    from veil.text.vocab._datacache import cached_json

    lorem: list[str] = cached_json(
        "lorem_words", _lorem_words, sources=("vocab/_lexicon.py",), packages=("faker",)
    )
    return _FUNCTION_WORDS | frozenset(lorem)


def _lorem_words() -> list[str]:
    """Faker's English word list, case-folded and sorted (JSON-ready)."""
    from faker.providers.lorem.en_US import Provider as Lorem

    return sorted({w.casefold() for w in Lorem.word_list})


_WORD_CLASSES = ("noun", "verb", "adj", "adv")


@functools.cache
def _word_index() -> tuple[dict[str, frozenset[str]], dict[str, dict[str, str]], dict[str, list]]:
    """(lemmas, irregular forms -> lemma, suffix rules) per word class, from the lemmatizer
    tables (WordNet's English lemmas) that the best installed English spaCy pipeline ships;
    empty where none is installed."""
    try:
        from veil.text.vocab._spacy_load import best_english_model, import_spacy

        spacy = import_spacy()
        from spacy.lookups import Lookups
        from spacy.strings import get_string_id

        name = best_english_model()
        if name is None:
            return {}, {}, {}
        found = next(spacy.util.get_package_path(name).glob("**/lemmatizer/lookups"), None)
        if found is None:
            return {}, {}, {}
        tables = Lookups().from_disk(found)
        index, exc, rules = (
            tables.get_table(t) for t in ("lemma_index", "lemma_exc", "lemma_rules")
        )
    except (ImportError, OSError, KeyError, ValueError):  # no spaCy, no model, other tables
        return {}, {}, {}
    lemmas, forms, suffixes = {}, {}, {}
    for c in _WORD_CLASSES:
        key = get_string_id(c)
        lemmas[c] = frozenset(index.get(key, ()))
        forms[c] = {f: ls[0] for f, ls in exc.get(key, {}).items() if ls}
        suffixes[c] = [tuple(r) for r in rules.get(key, ())]
    return lemmas, forms, suffixes


def has_dictionary() -> bool:
    """Whether :func:`word_classes` has a dictionary to read (an English spaCy pipeline)."""
    return bool(_word_index()[0])


@functools.lru_cache(maxsize=65536)  # a note asks about the same words again and again
def word_classes(word: str) -> frozenset[str]:
    """The classes ("noun", "verb", "adj", "adv") an English dictionary gives ``word`` or
    its inflections (WordNet's lemmas, as spaCy's English lemmatizer ships them; empty
    without an installed English pipeline). WordNet holds some proper nouns too ("john",
    "boston"), so "noun" alone says little of a name.

    Examples
    --------
    >>> sorted(word_classes("notified")), sorted(word_classes("Garcia"))
    (['verb'], [])
    """
    lemmas, forms, suffixes = _word_index()
    w = word.casefold()
    out = set()
    for c, known in lemmas.items():
        if w in known or w in forms[c]:
            out.add(c)
            continue
        for old, new in suffixes[c]:
            if w.endswith(old) and len(w) > len(old) and w[: len(w) - len(old)] + new in known:
                out.add(c)
                break
    return frozenset(out)


@functools.cache
def name_lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), case-folded, from Faker's person providers of every
    locale it ships, less :func:`common_words`; names written in a script without letter
    case are left out, since NER findings are checked by their capitalised words.

    Built once per Faker and veil version and kept on disk (:mod:`veil.text.vocab._datacache`)."""
    from veil.text.vocab._datacache import cached_json

    first, last = cached_json(
        "name_lexicon",
        lambda: [sorted(names) for names in _build_name_lexicon()],
        sources=("vocab/_lexicon.py",),
        packages=("faker",),
    )
    return frozenset(first), frozenset(last)


def _build_name_lexicon() -> tuple[frozenset[str], frozenset[str]]:
    import faker.providers.person as person

    first: set[str] = set()
    last: set[str] = set()
    for mod in pkgutil.iter_modules(person.__path__):
        try:
            provider = importlib.import_module(f"{person.__name__}.{mod.name}").Provider
        except (ImportError, AttributeError):  # pragma: no cover - a broken locale module
            continue
        # every list a locale keeps its names in: "first_names_female", "last_names_rus",
        # "male_last_names" (pl_PL), "last_names_without_suffix" ...
        kinds = {
            attr: m.group(1)
            for klass in provider.__mro__
            for attr in vars(klass)
            if (m := _NAME_ATTR.fullmatch(attr))
        }
        for attr, kind in sorted(kinds.items()):
            (first if kind == "first" else last).update(_cased(_provider_names(provider, attr)))
    common = common_words()
    return frozenset(first - common), frozenset(last - common)


_NAME_ATTR = lazy_compile(r"(?:[a-z]+_)?(first|last)_names(?:_[a-z]+)*")


def _cased(names: list[str]) -> list[str]:
    """The capitalised words of each name, and a hyphenated name whole as well
    ("Marja-Leena" gives "marja", "leena" and "marja-leena")."""
    out: list[str] = []
    for n in names:
        for word in n.split():
            parts = word.split("-")
            cased = [p for p in parts if len(p) > 1 and p[:1].isupper() and p[1:2].islower()]
            out.extend(p.casefold() for p in cased)
            if len(parts) > 1 and len(cased) == len(parts):
                out.append(word.casefold())
    return out


@functools.cache
def _states_and_countries() -> frozenset[str]:
    """US states (names and USPS codes) and countries, case-folded. Kept on disk
    (:mod:`veil.text.vocab._datacache`): importing Faker for its country list cost a tenth
    of a second of every process that detects text."""
    from veil.text.vocab._datacache import cached_json

    names: list[str] = cached_json(
        "states_and_countries",
        _build_states_and_countries,
        sources=("vocab/_lexicon.py", "vocab/_street_words.py"),
        packages=("faker",),
    )
    return frozenset(names)


def _build_states_and_countries() -> list[str]:
    from faker.providers.address.en_US import Provider as Address

    names = {s.casefold() for s in _STATE_NAMES.split("|")}
    names.update(s.casefold() for s in _STATES)
    names.update(c.casefold() for c in Address.countries)
    names.update(a.casefold() for a in COUNTRY_ALIASES)
    return sorted(names)


def state_or_country(span: str) -> bool:
    """Whether ``span`` names a US state (or its USPS code) or a country, in any case and
    with or without a leading "the".

    Examples
    --------
    >>> state_or_country("the United States"), state_or_country("Sierra Leone")
    (True, True)
    >>> state_or_country("Revere")
    False
    """
    name = re.sub(r"^the\s+", "", span.strip().casefold())
    names = _states_and_countries()
    return name in names or name.rstrip(".,") in names


# words that make a capitalised pair a place, whatever names it holds ("Baker Street", "Lake
# Ruth", "North John", "Port Tyler")
_PLACE_WORDS = word_set(
    "street st road rd avenue ave lane ln drive dr boulevard blvd court ct place square way "
    "hill hills park lake lakes river mount mountain port bay beach island islands city town "
    "village county falls valley springs heights harbor harbour creek ridge point north "
    "south east west new san santa saint fort cape glen grove station bridge hospital clinic "
    "center centre house hall church school college university"
)


def first_last_name(words: list[str]) -> bool:
    """Whether 2-3 case-folded words read as a first name ... last name: the first word a
    known first name, the last a known last name, none of them charting vocabulary or a word
    that makes the run a place ("Baker Street", "North John"), and the whole not the name of
    a country or US state ("Sierra Leone").

    Examples
    --------
    >>> first_last_name(["jane", "smith"]), first_last_name(["baker", "street"])
    (True, False)
    """
    if not 2 <= len(words) <= 3:
        return False
    if any(w in NOTE_WORDS or w in _PLACE_WORDS for w in words):
        return False
    first, last = name_lexicon()
    if not (words[0] in first and words[-1] in last):
        return False
    return not state_or_country(" ".join(words))  # "Sierra Leone", "El Salvador"


_LOWER = lazy_compile(f"[{LOWER_LATIN}]")
_UPPER = lazy_compile(f"[{UPPER_LATIN}]")


def mostly_upper(text: str) -> bool:
    """Whether ``text`` is written in capitals (at least 8 capitals, over two thirds of its
    letters, judged on its first 600 characters), as some notes and legacy systems are.

    Examples
    --------
    >>> mostly_upper("PT SEEN BY DR. SMITH, WIFE MARY AWARE."), mostly_upper("Pt seen by Dr. Smith")
    (True, False)
    """
    global _LAST_UPPER
    last = _LAST_UPPER
    if last[0] is text:
        return last[1]
    head = text[:600]
    upper = len(_UPPER.findall(head))
    result = upper >= 8 and upper > 2 * len(_LOWER.findall(head))
    _LAST_UPPER = (text, result)
    return result


# the last text asked about and its answer: the analyzer, the place and the name
# recognizers ask about the same string object in turn (one tuple, swapped whole)
_LAST_UPPER: tuple[str, bool] = ("", False)


_WORD_START = lazy_compile(r"(?<![^\W\d_])[^\W\d_]")


def mostly_lower(text: str) -> bool:
    """Whether ``text`` is written without capitals, as chat messages and quick notes often
    are: at least 4 words, of which at most one in twenty starts with a capital (judged on
    its first 600 characters). Names there are written in lower case too.

    Examples
    --------
    >>> mostly_lower("hi, pls call alison ramos tmrw"), mostly_lower("Please call Alison Ramos.")
    (True, False)
    """
    head = text[:600]
    if not head.islower() and 20 * len(_UPPER.findall(head)) > head.count(" ") + 1:
        return False  # more capitals than the words could hold: most texts stop here
    starts = _WORD_START.findall(head)
    return len(starts) >= 4 and 20 * sum(c.isupper() for c in starts) <= len(starts)


_TOKEN = lazy_compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_SENTENCE_END = frozenset(".!?:;\n")  # a word after one of these starts a sentence


def truecase(text: str) -> str:
    """``text`` in capitals rewritten in ordinary case, same length and offsets, so that
    case-sensitive detection (NER, name patterns) can read it: charting abbreviations of up
    to five letters stay in capitals ("NSR", "ICU"), known names that are not common words
    and the first word of a sentence or line get a capital, everything else is lower case.

    Examples
    --------
    >>> truecase("NEURO: MAE. WIFE MARY AWARE OF PLAN, CALLED DR. SMITH")
    'NEURO: MAE. Wife Mary aware of plan, called Dr. Smith'
    """
    first, last = name_lexicon()
    common = common_words()
    # an ASCII letter lowers to one letter: the whole text at once (the same list)
    chars = (
        list(text.lower())
        if text.isascii()
        else [c.lower() if len(c.lower()) == 1 else c for c in text]
    )
    prev_end = 0
    prev_capital = False
    for m in _TOKEN.finditer(text):
        word = m.group()
        folded = word.casefold()
        s, e = m.start(), m.end()
        between = text[prev_end:s]
        starts = prev_end == 0 or any(c in _SENTENCE_END for c in between)
        follows_name = prev_capital and between.strip(" ") in ("", "&", "-", "'s")
        prev_end = e
        prev_capital = False
        if folded in NOTE_WORDS and folded not in common and len(word) <= 5 and word.isupper():
            chars[s:e] = list(word)
        elif (
            folded in first
            or folded in last
            or folded in _TITLE_WORDS
            or starts
            or (follows_name and folded in _NAME_PART_WORDS)
        ):
            chars[s] = word[0].upper() if len(word[0].upper()) == 1 else word[0]
            prev_capital = True
    return "".join(chars)


_TITLE_WORDS = word_set("dr mr mrs ms mx miss prof")
# words that continue a capitalised name into an institution's ("Williams Clinic", "Hughes
# General Hospital", "Smith & Sons Ltd")
_NAME_PART_WORDS = INSTITUTION_WORDS | word_set(
    "hospitals clinics memorial general foundation inc llc ltd plc corp corporation company "
    "co group bank sons associates partners"
)

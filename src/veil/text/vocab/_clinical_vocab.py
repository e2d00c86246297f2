"""What a clinical note may say without identifying anyone: the allow-list's vocabulary.

The recall-first clinical mode (:mod:`veil.text.detection._clinical_allow`) reports every word that
is not known to be safe. A word is safe when it is:

* an English word of any class: WordNet's lemmas and their inflections, as the installed
  English spaCy pipeline ships them (:func:`veil.text.vocab._lexicon.word_classes`), Faker's
  English word list and English function words (:func:`veil.text.vocab._lexicon.common_words`);
* clinical vocabulary: veil's clinical terms (:data:`veil.text.vocab._lexicon.NOTE_WORDS`) and
  the abbreviations, units, drug names and charting words below, written for veil from
  standard nursing and medical abbreviation usage (never read off a labelled corpus);
* a one-letter-away misspelling of one of those (a dropped, doubled, swapped or wrong
  letter: "pateint", "monitered"), when it is five letters or longer and not a name.

A word that is also a first or last name stays safe unless its context makes it a name
(see the allow pass); a word that is neither English nor clinical is reported whatever its
case. The names (:func:`is_first_name`, :func:`is_last_name`, :func:`is_name_word`) are
Faker's of every locale (:func:`veil.text.vocab._lexicon.name_lexicon`) and the US
Census lists (:func:`veil.text.vocab._census.census_names`), which reach rare American
surnames ("Weltmer", "Torsiello"). A Census name adds to Faker's only where no English
dictionary holds it: never a common, clinical, calendar, function or dictionary word
("Will", "See", "Rounds": Faker's lists keep the frequent surnames that are English
words, "Hall", "Baker"), nor one shorter than four letters (a note's three-letter words
are abbreviations first; beside a cue three letters count); one letter off an English
word only among the :data:`SPELLING_SURNAME_RANK` most frequent (a rarer one is read as
the misspelling it more likely is in a note). :func:`is_bare_name` says which names count
with no context at all: a Census name only from five letters and among the
:data:`BARE_SURNAME_RANK` most frequent (a rarer or shorter unknown word in a note is an
abbreviation or a device's name first: "Zoll", "Ganz"). :func:`is_cued_name` says which
count where a cue says a name (a title, a role, a relation, "called"): every Census name
of three letters or more that is no common, clinical, calendar, function or dictionary
word, the rare ones one letter off an English word too ("called Weltmer", "son Swabb").
"""

from __future__ import annotations

import functools
import string

from veil.text.vocab._census import census_names
from veil.text.vocab._lexicon import (
    CALENDAR_WORDS,
    NOTE_WORDS,
    _word_index,
    common_words,
    name_lexicon,
    word_classes,
    word_set,
)

__all__ = [
    "BARE_SURNAME_RANK",
    "CLINICAL_EXTRA",
    "FREQUENT_NAME_RANK",
    "SPELLING_SURNAME_RANK",
    "is_bare_name",
    "is_cued_name",
    "is_derived_word",
    "is_first_name",
    "is_frequent_name",
    "is_last_name",
    "is_name_word",
    "is_safe_word",
    "known_words",
]

# Clinical abbreviations, units, drugs and charting words beyond _lexicon.CLINICAL_TERMS:
# standard nursing and physician shorthand (Joint Commission and ISMP abbreviation lists,
# common generic and brand drug names), grouped loosely by use.
CLINICAL_EXTRA = word_set(
    """
    pt pts ptn pt's s/p w/ w/o c/o h/o r/o f/u y/o yo yr yrs hrs hr min mins sec secs
    wk wks mo mos am pm noc eve qam qpm qshift qd qday daily bid tid qid qod ac pc hs
    prn stat asap abt approx appr apprx approx. assoc ant post lat med meds sm lg mod
    min max mult neg pos sl slt sli sl. cont'd cont contd cx d/c dc'd d/c'd dcd dc
    rx tx hx dx sx fx px bx ex hpi pmh psh fh sh ros ap pa lat
    mg mcg ug gm g kg lb lbs oz ml cc l dl mmol meq mm cm mmhg hg in ft u units iu
    mg/kg mcg/kg/min mg/hr ml/hr cc/hr l/min lpm bpm cmh2o cmh20 h2o o2 co2
    temp t tmax tc hr bp rr spo2 sp02 sao2 map cvp pad pas pcwp ci co svr svri
    neuro resp cv gi gu id heme endo skin msk psych soc psychosoc fam ext extrem
    abd abdo abdom lungs ls bs bss bowel snds sounds clr cl clear dim diminished
    coarse crackles rales rhonchi wheeze wheezes wheezing exp insp
    a&o a&ox3 aox aox1 aox2 aox3 aaox3 ox3 ox2 ox1 x1 x2 x3 x4
    perrl perrla eomi mae mae's ftc nad nka nkda nkfa wnl wdwn ncat nt nd ttp cta ctab
    rrr s1 s2 s3 s4 mrg m/r/g jvp jvd le ue bue ble bil bilat lle rle lue rue
    bld bm bms brbpr ob ogt ngt ng og peg j-tube g-tube jp hemovac foley texas
    ivf ivp ivpb iv po pr sq sc im sl ng ngt pr top inh neb nebs mdi
    ns lr d5w d51/2ns d5ns 1/2ns nacl kcl kphos naphos mgso4 caco3 cagluc ca++ k+ na+
    cbc chem chem7 chem10 lytes bmp cmp lfts coags pt/inr ptt inr abg vbg lactate ua
    ucx bcx scx cx c&s gram gs bal afb rpr hiv hcv hbv hbsag cmv ebv rsv flu
    cxr kub ct cta mri mra us u/s echo tte tee ekg ecg eeg cath ir egd ercp
    ett trach vent bipap cpap peep psv ps simv ac imv prvc aprv fio2 tv vt mv rsbi
    sbt nrb nc fm ftn shovel mask venti venturi ambu pcv vc prvc cmv hfov
    picc cvl tlc swan sgc a-line aline art piv piv's iv's hickman mediport portacath
    afib a-fib aflutter nsr sr st sb svt vt vf pvc pvcs pac pacs pea asystole
    ekg's chb lbbb rbbb ivcd wct nsvt sinus brady tachy bradycardic tachycardic
    cabg avr mvr tvr pci ptca stent stents cath'd ptx hctz
    chf cad htn hld dm dm2 iddm niddm copd asthma ards pna cap hap vap uti uri dvt pe
    gerd pud gib ugib lgib esrd ckd arf aki atn cva tia sah sdh ich sz ams sob doe cp
    n/v nausea vomiting emesis diarrhea constipation bm melena guaiac hemoccult heme+
    mrsa vre esbl cdiff c.diff cdif pseudomonas klebsiella e.coli ecoli staph strep
    enterococcus candida
    tylenol motrin advil aleve asa ecasa plavix coumadin heparin hep lovenox fragmin
    integrilin reopro aggrastat tpa nitro ntg nitropaste nitroglycerin nitroprusside
    nipride lopressor toprol metoprolol atenolol carvedilol coreg labetalol esmolol
    hydralazine captopril enalapril lisinopril ramipril losartan valsartan diovan
    amlodipine norvasc nifedipine procardia diltiazem cardizem verapamil digoxin
    lanoxin amiodarone cordarone lidocaine procainamide adenosine atropine
    dopamine dobutamine levophed neo neosynephrine vasopressin epinephrine milrinone
    lasix bumex bumetanide torsemide diamox acetazolamide aldactone spironolactone
    zaroxolyn metolazone hctz kcl k-dur kdur
    vanco vancomycin zosyn pip/tazo cefazolin ancef kefzol ceftriaxone rocephin
    cefepime maxipime ceftazidime fortaz cefuroxime cefoxitin ceftaroline
    levofloxacin levaquin ciprofloxacin cipro moxifloxacin avelox flagyl
    metronidazole bactrim septra tmp/smx clindamycin clinda meropenem merrem
    imipenem primaxin ertapenem invanz aztreonam azactam linezolid zyvox daptomycin
    cubicin gentamicin gent tobramycin tobra amikacin fluconazole diflucan
    micafungin caspofungin voriconazole ambisome amphotericin acyclovir ganciclovir
    valganciclovir oseltamivir tamiflu doxycycline azithromycin zithromax
    erythromycin penicillin pcn amoxicillin augmentin ampicillin unasyn nafcillin
    oxacillin rifampin isoniazid
    propofol diprivan fentanyl versed midazolam ativan lorazepam valium diazepam
    haldol haloperidol precedex dexmedetomidine morphine mso4 ms04 dilaudid
    hydromorphone oxycodone oxycontin percocet vicodin codeine demerol methadone
    tramadol ultram ketamine etomidate succinylcholine vecuronium rocuronium
    cisatracurium nimbex narcan naloxone flumazenil romazicon
    insulin lantus glargine humalog lispro novolog aspart nph regular riss ssi
    metformin glucophage glipizide glyburide
    protonix pantoprazole prilosec omeprazole nexium esomeprazole pepcid famotidine
    zantac ranitidine carafate sucralfate reglan metoclopramide zofran ondansetron
    compazine phenergan promethazine colace docusate senna senokot dulcolax
    bisacodyl lactulose miralax golytely kayexalate fleet
    albuterol ventolin atrovent ipratropium combivent duoneb xopenex levalbuterol
    advair flovent spiriva mucomyst acetylcysteine guaifenesin robitussin
    solumedrol methylprednisolone prednisone decadron dexamethasone hydrocortisone
    florinef keppra levetiracetam dilantin phenytoin fosphenytoin depakote
    tegretol phenobarb phenobarbital seroquel quetiapine zyprexa olanzapine
    risperdal risperidone ambien zolpidem benadryl diphenhydramine trazodone
    zoloft sertraline prozac celexa lexapro paxil wellbutrin effexor remeron
    zocor simvastatin lipitor atorvastatin pravachol pravastatin crestor
    synthroid levothyroxine neurontin gabapentin lyrica flomax tamsulosin proscar
    allopurinol colchicine calcitriol sevelamer renagel phoslo tums epo epogen
    procrit aranesp iron ferrous feso4 folate folic thiamine mvi multivitamin
    vitamin vit b12 calcium mag magnesium phos potassium bicarb nahco3 albumin
    ffp prbc prbcs plt plts cryo cryoprecipitate ivig
    ensure boost promote nepro replete impact jevity osmolite peptamen novasource
    glucerna pulmocare vivonex tf tfs tpn ppn
    duoderm mepilex tegaderm xeroform aquacel allevyn vac wound-vac telfa kerlix
    betadine chlorhexidine silvadene bacitracin nystatin miconazole
    rn rns lpn cna md mds np pa do ho sw cm pt ot slp rt rrt pcp hcp rd resp
    attending resident intern fellow team staff nursing nsg pharm pharmacy
    micu sicu ccu csru nicu picu icu ed er or pacu rehab snf ltac vna ecf tsicu cvicu
    osh ew floor unit bay bed rm room
    dnr dni dnr/dni cmo fc poa hcp
    con't cont'd rec'd req'd sx'd tx'd dx'd d/c'd dr drs mr mrs ms
    aureus coli difficile pneumoniae epidermidis faecalis faecium aeruginosa influenzae
    amb ambul ambulat tol tol'd tolerat prev previously req reqs reqd req'd requir occ occas
    freq approx apprx grav gravity bldy bld bloody sxn sxnd sxn'd suct suctn suctioned
    lis lcs lws lics lts rij lij rsc lsc rfv lfv rfa lfa rsc rsv ej nbp abp nibp cuff
    td thermodil fick lvef ef rvsp tr mr ar as ms ps pr mvp lvh rvh lad lcx rca om pda diag
    recd rec'ing rec'g recv'd recieved rcvd rcv'd givn gvn wnl nl abnl sl slt sli
    incont incontinent cath cath'd cathed d/t 2/2 sec secondary c/w r/t w/u wu hx'd
    bilat bilaterally pt's pts' eval evals re-eval reeval assess assmt asmt
    cont'd conts contin continues cntd rx'd txfr tx'd trx xfer xfr xferred trnsf transf
    sedated sedate sed resp'd resps vss vsss afeb afebrile nad hob oob ooc ob ab
    """
)

# letters that a one-letter misspelling may put in
_LETTERS = string.ascii_lowercase


@functools.cache
def known_words() -> frozenset[str]:
    """Every safe word as a set (lemmas, their irregular forms, common and clinical words),
    case-folded: what a misspelling is compared with."""
    lemmas, forms, _ = _word_index()
    out: set[str] = set(common_words()) | NOTE_WORDS | CLINICAL_EXTRA | CALENDAR_WORDS
    for c in lemmas:
        out.update(lemmas[c])
        out.update(forms[c])
    return frozenset(w for w in out if "_" not in w)


def _edits(w: str) -> set[str]:
    splits = [(w[:i], w[i:]) for i in range(len(w) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    if len(w) >= 7:  # a wrong or missing letter in a shorter word makes a name as often
        out.update(a + c + b[1:] for a, b in splits if b for c in _LETTERS)
        out.update(a + c + b for a, b in splits for c in _LETTERS)
    return out


@functools.lru_cache(maxsize=65536)
def _misspelt(w: str) -> bool:
    return not known_words().isdisjoint(_edits(w))  # one set test, not one per edit


#: the Census names one letter off an English word that count as names: the more frequent
#: ones; the rarer read as the misspelling they more likely are in a note
SPELLING_SURNAME_RANK = 20_000
#: the Census names that count with no context (:func:`is_bare_name`): the more frequent
BARE_SURNAME_RANK = 20_000
_FUNCTION_NAMES = word_set(
    "a an the and or but of in on at by to from with for as is was be this that these "
    "those his her their its our my your he she they we it who which not no yes any all "
    "some per into onto via"
)


def _census_word(w: str, rank: int | None) -> bool:
    """Whether a Census name ``w`` (case-folded) of frequency ``rank`` can be a name at
    all: three letters or more, no common, clinical, calendar, function or dictionary word."""
    if rank is None or len(w) < 3 or not w.isalpha():
        return False
    if w in CLINICAL_EXTRA or w in NOTE_WORDS or w in CALENDAR_WORDS or w in _FUNCTION_NAMES:
        return False
    return w not in common_words() and not word_classes(w)


def _census_counts(w: str, rank: int | None) -> bool:
    """Whether a Census name ``w`` (case-folded) of frequency ``rank`` counts as a name
    (see the module doc)."""
    if rank is None or not _census_word(w, rank) or len(w) < 4:
        return False  # three letters: a note's abbreviation first ("YEE", "ROE" are cued)
    # one letter off an English word, or a known stem with an affix: frequent names only
    return rank <= SPELLING_SURNAME_RANK or len(w) < 5 or not (_derived(w) or _misspelt(w))


@functools.lru_cache(maxsize=65536)
def is_first_name(word: str) -> bool:
    """Whether ``word`` is a first name in Faker's lists or the Census lists (any case).

    Examples
    --------
    >>> is_first_name("Theresa"), is_first_name("lasix")
    (True, False)
    """
    w = word.casefold()
    return w in name_lexicon()[0] or _census_counts(w, census_names()[0].get(w))


@functools.lru_cache(maxsize=65536)
def is_last_name(word: str) -> bool:
    """Whether ``word`` is a surname in Faker's lists or the Census lists (any case).

    Examples
    --------
    >>> is_last_name("Baker"), is_last_name("heparin")
    (True, False)
    """
    w = word.casefold()
    return w in name_lexicon()[1] or _census_counts(w, census_names()[1].get(w))


@functools.lru_cache(maxsize=65536)
def is_name_word(word: str) -> bool:
    """Whether ``word`` is a first or last name in Faker's or the Census lists (any case)."""
    return is_first_name(word) or is_last_name(word)


@functools.lru_cache(maxsize=65536)
def is_cued_name(word: str) -> bool:
    """Whether ``word`` can be a name where a cue says one (see the module doc): a name of
    :func:`is_name_word`, or any Census name that is no common, clinical or dictionary
    word, however rare and however close to an English word.

    Examples
    --------
    >>> is_cued_name("Baker"), is_cued_name("swallow"), is_cued_name("lasix")
    (True, False, False)
    """
    if is_name_word(word):
        return True
    w = word.casefold()
    first, last = census_names()
    return _census_word(w, first.get(w, last.get(w)))


@functools.lru_cache(maxsize=65536)
def is_bare_name(word: str) -> bool:
    """Whether ``word`` is a name worth reporting with nothing around it that says so: one
    of Faker's, or a Census name (:func:`is_name_word`) of five letters or more among the
    :data:`BARE_SURNAME_RANK` most frequent (see the module doc)."""
    w = word.casefold()
    first, last = name_lexicon()
    if w in first or w in last:
        return True
    if len(w) < 5 or not is_name_word(w):
        return False
    ranks = [r for r in (census_names()[0].get(w), census_names()[1].get(w)) if r is not None]
    return min(ranks, default=BARE_SURNAME_RANK + 1) <= BARE_SURNAME_RANK


#: the Census names frequent enough to read as a name, English word or not, where a name's
#: shape says one (:func:`is_frequent_name`)
FREQUENT_NAME_RANK = 5_000


@functools.lru_cache(maxsize=65536)
def is_frequent_name(word: str) -> bool:
    """Whether ``word`` is a name of :func:`is_name_word`, or one of the
    :data:`FREQUENT_NAME_RANK` most frequent Census surnames or first names even where it
    is an English word ("Price", "White", "Hope", "Long"): what a name's shape (an
    initial before it, a first name before it, a pair before "aware") makes a name. No
    clinical, charting, calendar or function word, nor one of under three letters.

    Examples
    --------
    >>> is_frequent_name("Price"), is_frequent_name("heparin"), is_frequent_name("pain")
    (True, False, False)
    """
    w = word.casefold()
    if len(w) < 3 or not w.isalpha():
        return False
    if w in CLINICAL_EXTRA or w in NOTE_WORDS or w in CALENDAR_WORDS or w in _FUNCTION_NAMES:
        return False
    if is_name_word(w):
        return True
    first, last = census_names()
    ranks = [r for r in (first.get(w), last.get(w)) if r is not None]
    return min(ranks, default=FREQUENT_NAME_RANK + 1) <= FREQUENT_NAME_RANK


@functools.lru_cache(maxsize=65536)
def is_safe_word(word: str) -> bool:
    """Whether ``word`` (letters, possibly with an apostrophe or a slash) is English or
    clinical vocabulary, or a misspelling of one (see the module doc).

    Examples
    --------
    >>> is_safe_word("NOTIFIED"), is_safe_word("lasix"), is_safe_word("Swackhamer")
    (True, True, False)
    """
    return _safe(word.casefold().replace("’", "'"))


#: the longest word whose misspellings and affixes are looked up (English's longest
#: dictionary words have 30 letters or so; each letter more costs memory, quadratically)
_LONGEST = 40


@functools.lru_cache(maxsize=65536)
def _safe(w: str) -> bool:
    if w in CLINICAL_EXTRA or w in NOTE_WORDS or w in common_words():
        return True
    if word_classes(w):
        return True
    if w.endswith("'s") and _safe(w[:-2]):
        return True
    if not w.isalpha() or len(w) < 5 or is_name_word(w):
        return False
    if len(w) > _LONGEST:
        # no dictionary word is this long: a run of letters with no space (a pasted blob,
        # a 10 MB note without one) is no misspelling, and its edits would fill memory
        return False
    return _derived(w) or _misspelt(w)


# English and medical affixes: a word made of a known stem and one of them is safe
# ("extubated", "hypokalemic", "nonproductive", "diuresing", "cholecystectomy")
_PREFIXES = (
    "non", "un", "re", "de", "dis", "ex", "pre", "post", "anti", "hyper", "hypo", "intra",
    "inter", "sub", "supra", "trans", "peri", "para", "multi", "semi", "over", "under",
    "bi", "tri", "endo", "extra", "micro", "macro", "poly", "pseudo", "auto", "co",
)  # fmt: skip
_SUFFIXES = (
    "s", "es", "ed", "d", "ing", "ly", "er", "ers", "ness", "ment", "able", "ably", "ally",
    "ic", "al", "ous", "ity", "ism", "ist", "ize", "ized", "ization", "ation", "ative",
    "emia", "emic", "itis", "osis", "otic", "ectomy", "otomy", "ostomy", "plasty", "scopy",
    "graphy", "gram", "pathy", "algia", "uria", "pnea", "megaly", "penia", "lysis", "ase",
)  # fmt: skip
# how drug names end, by the USAN stem of their class ("-olol", "-pril", "-statin")
_DRUG_ENDINGS = (
    "olol", "pril", "sartan", "statin", "azole", "cillin", "mycin", "micin", "floxacin",
    "cycline", "oxacin", "prazole", "tidine", "setron", "dipine", "parin", "xaban",
    "gatran", "mab", "nib", "vir", "azepam", "azolam", "triptan", "afil", "lukast",
    "tropium", "terol", "sone", "olone", "asone", "profen", "coxib", "etine", "oxetine",
    "peridol", "apine", "idone", "curium", "curonium", "caine", "barbital", "amide",
    "thiazide", "semide", "actone", "glitazone", "gliptin", "glinide", "formin", "ide",
)  # fmt: skip


def is_derived_word(word: str) -> bool:
    """Whether ``word`` is a known stem with an English or medical affix, or ends as a
    drug class does ("introducer", "extubated", "metoprolol"), whatever its case.

    Examples
    --------
    >>> is_derived_word("introducer"), is_derived_word("kondouli")
    (True, False)
    """
    w = word.casefold()
    return w.isalpha() and 5 <= len(w) <= _LONGEST and _derived(w)


def _derived(w: str) -> bool:
    if w.endswith(_DRUG_ENDINGS):
        return True
    known = known_words()
    stems = [w[len(p) :] for p in _PREFIXES if w.startswith(p) and len(w) - len(p) >= 4]
    stems.append(w)
    for stem in stems:
        if stem is not w and (stem in known or word_classes(stem)):
            return True
        for suf in _SUFFIXES:
            if stem.endswith(suf) and len(stem) - len(suf) >= 3:
                root = stem[: -len(suf)]
                if (
                    root in known
                    or root + "e" in known
                    or (root[-1:] == root[-2:-1] and root[:-1] in known)
                ):
                    return True
    return False

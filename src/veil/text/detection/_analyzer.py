"""The detection engine: recognizers, NER, allow/deny lists and the overlap rule.

Overlap rule
------------
Findings below ``score_threshold`` are dropped first. Then:

1. Overlapping findings of the **same** entity type merge into one span covering both,
   with the higher score and the better (lower) tier.
2. Among findings of **different** types that overlap, the winner is chosen by, in order:
   the lower tier (0 = validated by a checksum or parser: cards, IBANs, e-mails, phones,
   IPs, URLs, deny-list terms; 1 = structural patterns: addresses, dates, ages, custom
   patterns; 2 = statistical NER), then the longer span, then the higher score, then the
   earlier start. The loser is dropped entirely (a span is never split).

So a date inside a card number or an address loses to them, an NER ``LOCATION`` inside a
street address loses to the address, and a validated e-mail beats an NER ``PERSON``.

Texts longer than ``max_chunk_chars`` are analyzed in pieces cut at whitespace, with
``chunk_overlap`` characters shared by neighbours; findings are mapped back to the whole
text and merged by the rule above.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from veil._errors import PolicyError
from veil.policy import DETECT_SCORE_THRESHOLD
from veil.text.detection._clinical_allow import allow_pass_applies, clinical_findings
from veil.text.detection._clinical_filter import NOT_IN_NOTES, clinical_keeps, ner_lines
from veil.text.detection._house_numbers import with_house_numbers
from veil.text.detection._profiles import check_profile, profile_keeps
from veil.text.ner._coordination import coordinated_names
from veil.text.ner._wrapped import join_hyphenated_names, join_wrapped_names
from veil.text.recognition import (  # noqa: F401 - modules register their recognizers
    _ages,
    _announced,
    _business_ids,
    _contact,
    _dates,
    _financial,
    _government,
    _names,
    _national_ids,
    _network,
    _nrp,
    _organizations,
    _password_shape,
    _places,
    _postcodes,
    _secrets,
    _street_address,
    _street_names,
    _usernames,
    _weak_shapes,
    _world_ids,
)
from veil.text.recognition._finding import ENTITIES, Explanation, Finding
from veil.text.recognition._recognizer import (
    Gate,
    Needs,
    Pattern,
    PatternRecognizer,
    Recognizer,
    TextFeatures,
    recognizers,
    text_features,
)
from veil.text.recognition._redos import catastrophic_regex
from veil.text.vocab._label_words import names_nothing
from veil.text.vocab._lexicon import mostly_upper, truecase

if TYPE_CHECKING:
    from veil.policy import TextConfig
    from veil.text.ner._ner import SpacyNerRecognizer

__all__ = ["DENY_LIST", "TextAnalyzer", "build_pattern_recognizer", "resolve_overlaps"]

DENY_LIST = "DENY_LIST"
_PATTERN_KEYS = {
    "name",
    "entity",
    "regex",
    "score",
    "context",
    "context_required",
    "group",
    "ignore_case",
}


def resolve_overlaps(findings: Iterable[Finding]) -> list[Finding]:
    """Apply the overlap rule of this module to one text's findings; sorted by start.

    Examples
    --------
    >>> a = Finding(0, 10, "STREET_ADDRESS", 0.75, "street_address", 1)
    >>> b = Finding(4, 10, "LOCATION", 0.85, "spacy_ner", 2)
    >>> [f.entity_type for f in resolve_overlaps([a, b])]
    ['STREET_ADDRESS']
    """
    by_type: dict[str, list[Finding]] = {}
    for f in findings:
        if f.start < f.end:  # an empty span marks no text (a plugged-in recognizer's)
            by_type.setdefault(f.entity_type, []).append(f)
    merged: list[Finding] = []
    for group in by_type.values():
        group.sort(key=lambda f: (f.start, -f.end))
        cur = group[0]
        for f in group[1:]:
            if f.start < cur.end:
                best = cur if (cur.tier, -cur.score) <= (f.tier, -f.score) else f
                cur = Finding(
                    cur.start,
                    max(cur.end, f.end),
                    cur.entity_type,
                    max(cur.score, f.score),
                    best.recognizer,
                    min(cur.tier, f.tier),
                    best.explanation,
                )
            else:
                merged.append(cur)
                cur = f
        merged.append(cur)
    merged.sort(key=lambda f: (f.tier, -f.length, -f.score, f.start))
    # a finding is kept when none of its characters is taken by a finding kept before it: a
    # map of taken characters makes that check cost the finding's length, not the number of
    # findings kept so far (a 10 MB document holds hundreds of thousands of findings)
    taken = bytearray(max((f.end for f in merged), default=0))
    kept: list[Finding] = []
    for f in merged:
        if taken.find(1, f.start, f.end) < 0:
            taken[f.start : f.end] = b"\x01" * (f.end - f.start)
            kept.append(f)
    kept.sort(key=lambda f: f.start)
    return kept


def _as_wanted(f: Finding, entities: frozenset[str]) -> Finding:
    """``f`` under the first of its types in ``entities``: its own, else the first of its
    :attr:`~veil.text.recognition._finding.Explanation.alternatives` asked for (the
    others kept as its alternatives); ``f`` itself when none is.

    Examples
    --------
    >>> ex = Explanation("weak_shapes", "shape", 0.45, 0.45, (), None, ("US_BANK_NUMBER",))
    >>> f = Finding(0, 12, "US_DRIVER_LICENSE", 0.45, "weak_shapes", 2, ex)
    >>> _as_wanted(f, frozenset({"US_BANK_NUMBER"})).entity_type
    'US_BANK_NUMBER'
    >>> _as_wanted(f, frozenset({"US_DRIVER_LICENSE"})) is f, _as_wanted(f, frozenset()) is f
    (True, True)
    """
    ex = f.explanation
    if f.entity_type in entities or ex is None or not ex.alternatives:
        return f
    for i, alt in enumerate(ex.alternatives):
        if alt in entities:
            rest = (f.entity_type, *ex.alternatives[:i], *ex.alternatives[i + 1 :])
            return Finding(
                f.start,
                f.end,
                alt,
                f.score,
                f.recognizer,
                f.tier,
                dataclasses.replace(ex, alternatives=rest),
            )
    return f


def _by_start(f: Finding) -> tuple[int, int]:
    return (f.start, f.end)


def build_pattern_recognizer(
    spec: Mapping[str, Any], index: int = 0, *, where: str | None = None
) -> PatternRecognizer:
    """A recognizer from a policy entry ``{name, entity, regex, score, context, ...}``.

    Raises :class:`~veil.PolicyError` naming the pattern (never the text) when the entry is
    incomplete, its regex does not compile or may backtrack for exponential time
    (:mod:`veil.text.recognition._redos`). ``where`` names the entry in messages (default: its place in
    the policy, ``text.patterns[index]``; the CLI passes its option).
    """
    where = where or f"text.patterns[{index}]"
    unknown = sorted(set(spec) - _PATTERN_KEYS)
    if unknown:
        raise PolicyError(
            f"{where}: unknown key(s) {', '.join(unknown)}",
            hint=f"a pattern takes: {', '.join(sorted(_PATTERN_KEYS))}",
        )
    for key in ("name", "entity", "regex"):
        if not isinstance(spec.get(key), str) or not spec[key]:
            raise PolicyError(f"{where}: '{key}' is required and must be a string")
    name = str(spec["name"])
    flags = re.IGNORECASE if spec.get("ignore_case") else 0
    try:
        compiled = re.compile(spec["regex"], flags)
    except re.error as exc:
        raise PolicyError(
            f"{where} ({name!r}): invalid regular expression: {exc.msg} at position {exc.pos}",
            hint="check the pattern's escaping (YAML single quotes keep backslashes; on a "
            "command line, quote the whole NAME=REGEX)",
        ) from None
    shape = catastrophic_regex(spec["regex"], flags)
    if shape is not None:
        raise PolicyError(
            f"{where} ({name!r}): the regular expression has {shape}, which can make matching "
            "take exponential time on some texts (ReDoS)",
            hint="repeat a group only when something in it ends each round (r'(?:\\d+\\.)+' "
            "not r'(\\d+)+'), and give alternatives that start differently (r'(?:ab|cd)*' "
            "not r'(a|a)*')",
        )
    group = int(spec.get("group", 1 if compiled.groups else 0))
    if group > compiled.groups:
        raise PolicyError(f"{where} ({name!r}): group {group} but the regex has {compiled.groups}")
    score = float(spec.get("score", 0.85))
    if not 0 <= score <= 1:
        raise PolicyError(f"{where} ({name!r}): score must be in [0, 1]")
    entity = str(spec["entity"]).upper()
    if not re.fullmatch(r"[A-Z][A-Z0-9_]*", entity):
        raise PolicyError(f"{where} ({name!r}): entity must be an upper-case name like EMPLOYEE_ID")
    return PatternRecognizer(
        entity=entity,
        patterns=[Pattern(name, spec["regex"], score, group=group, flags=flags)],
        context=tuple(spec.get("context", ()) or ()),
        context_required=bool(spec.get("context_required", False)),
        name=f"pattern:{name}",
    )


class _DenyListRecognizer(Recognizer):
    name = "deny_list"
    entities = (DENY_LIST,)
    tier = 0

    def __init__(self, terms: Sequence[str]) -> None:
        words = sorted({t.strip() for t in terms if t.strip()}, key=len, reverse=True)
        self._re = re.compile(
            r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.IGNORECASE
        )

    def analyze(self, text: str) -> list[Finding]:
        return [
            Finding(
                m.start(),
                m.end(),
                DENY_LIST,
                1.0,
                self.name,
                0,
                Explanation(self.name, "deny_list", 1.0, 1.0),
            )
            for m in self._re.finditer(text)
        ]


def _chunks(text: str, size: int, overlap: int) -> list[tuple[int, str]]:
    if len(text) <= size:
        return [(0, text)]
    out = []
    start = 0
    n = len(text)
    while start < n:
        end = min(n, start + size)
        if end < n:
            cut = max(
                text.rfind(" ", start + size // 2, end), text.rfind("\n", start + size // 2, end)
            )
            if cut > start:
                end = cut
        out.append((start, text[start:end]))
        if end >= n:
            break
        start = max(start + 1, end - overlap)
    return out


def _readable(text: str) -> str:
    """``text`` in ordinary case when it is written in capitals (same length and offsets)."""
    return truecase(text) if mostly_upper(text) else text


# one recognizer of a text's plan: the string the text must hold and the needs of which it
# must meet one (``TextAnalyzer._plan``)
_Step = tuple[Recognizer, str | None, tuple[Needs, ...] | None]

_WORKER: TextAnalyzer | None = None
_NONE: Mapping[str, int | None] = MappingProxyType({})
# the smallest part a worker is sent, in texts: each part pays a fixed cost (its spaCy
# memory zone), and a call of fewer than two parts runs in the calling process
_MIN_PART = 32


def _worker_run(task: tuple[list[str | None], int]) -> list[list[Finding]]:
    # the batch size travels with each task: a pool outlives the call that forked it
    texts, batch_size = task
    assert _WORKER is not None
    return list(_WORKER._analyze_serial(texts, batch_size=batch_size))


class TextAnalyzer:
    """Finds personal data in text.

    Parameters
    ----------
    recognizers
        Pattern, validated and plugged-in (:class:`PresidioRecognizer`) recognizers. Use
        :meth:`from_config` for the built-in set.
    ner
        A :class:`SpacyNerRecognizer`, or ``None`` for regex-only detection. Nothing is
        loaded unless you pass one: a bare ``TextAnalyzer()`` is cheap.
    entities
        Entity types to report (``None``: every type a recognizer supports). Unknown
        names raise :class:`~veil.PolicyError` listing the valid ones.
    score_threshold
        Findings scoring below this are dropped (default
        :data:`~veil.policy.DETECT_SCORE_THRESHOLD`, precision first; :meth:`from_config`
        takes the config's, :data:`~veil.policy.REDACT_SCORE_THRESHOLD` unless it says
        otherwise: a policy's text config redacts).
    allow_list, deny_list
        Values never reported (case-insensitive, whole span), and values always reported
        (as entity type ``DENY_LIST``, case-insensitive, whole words).
    profile
        ``"default"`` reports every finding; ``"hipaa"`` only what HIPAA's Safe Harbor
        method lists (ages over 89, dates with a month or day, places smaller than a
        state; :mod:`veil.text.detection._profiles`), and in a clinical note adds the precise
        allow-list pass; ``"clinical"`` reports every finding and adds the thorough
        allow-list pass in any text (:mod:`veil.text.detection._clinical_allow`).

    Examples
    --------
    >>> analyzer = TextAnalyzer.from_config(ner=False)
    >>> [(f.entity_type, f.start, f.end) for f in analyzer.analyze("Mail jo@example.com")]
    [('EMAIL_ADDRESS', 5, 19)]
    """

    def __init__(
        self,
        recognizers: Sequence[Recognizer] = (),
        *,
        ner: SpacyNerRecognizer | None = None,
        entities: Iterable[str] | None = None,
        score_threshold: float = DETECT_SCORE_THRESHOLD,
        allow_list: Iterable[str] = (),
        deny_list: Iterable[str] = (),
        max_chunk_chars: int = 100_000,
        chunk_overlap: int = 200,
        profile: str = "default",
    ) -> None:
        self.ner = ner
        self.profile = check_profile(profile)
        self.score_threshold = score_threshold
        self.max_chunk_chars = max_chunk_chars
        self.chunk_overlap = chunk_overlap
        recs = list(recognizers)
        deny = [t for t in deny_list if t.strip()]
        if deny:
            recs.append(_DenyListRecognizer(deny))
        supported = set(ENTITIES)
        for r in recs:
            supported.update(r.entities)
        self.supported_entities = tuple(sorted(supported))
        if entities is None:
            wanted = set(supported)
        else:
            wanted = {e.strip().upper() for e in entities if e.strip()}
            unknown = sorted(wanted - supported)
            if unknown:
                raise PolicyError(
                    f"unknown entity type(s): {', '.join(unknown)}",
                    hint=f"valid entity types: {', '.join(self.supported_entities)}",
                )
            if deny:
                wanted.add(DENY_LIST)
        self.entities = frozenset(wanted)
        # asked for some types only: a finding that also fits an asked-for type is reported
        # under it (``Explanation.alternatives``)
        self._some_types = not self.entities.issuperset(supported)
        if self.ner is not None and not self.ner.wants(self.entities):
            self.ner = None
        # a recognizer that stands in for NER (``replaces_ner``) runs only without it
        self.recognizers = [
            r
            for r in recs
            if r.wants(self.entities) and not (self.ner is not None and r.replaces_ner)
        ]
        self.allow = frozenset(a.strip().casefold() for a in allow_list if a.strip())
        self._pool: Any = None
        self._pool_size = 0
        # recognizers sorted out by a text's digits (``_plan``), made for the list
        # ``self.recognizers`` is (made again when it is replaced or grows)
        self._plans: dict[tuple[int, int], list[_Step]] = {}
        self._plans_for: list[Recognizer] | None = None
        self._plans_len = 0
        self._gates: list[Gate | None] = []
        self._caps = (0, 0)

    # construction -----------------------------------------------------------------------
    @classmethod
    def from_config(
        cls,
        config: TextConfig | None = None,
        *,
        ner: bool | None = None,
        model: str | None = None,
        entities: Iterable[str] | None = None,
        phone_regions: str | Sequence[str] | None = None,
        mrn_patterns: Sequence[str] | None = None,
        extra: Sequence[Recognizer] = (),
        profile: str | None = None,
    ) -> TextAnalyzer:
        """The built-in recognizers configured from a policy's :class:`TextConfig`.

        Keyword arguments override the config (``phone_regions="GB"`` or ``["US", "GB"]``:
        the regions whose national phone notation is searched). NER loads the config's
        model, or the best installed English model; ``analyzer.model_name`` says which.
        """
        from veil.policy import TextConfig

        cfg = config or TextConfig.model_validate({})
        use_ner = cfg.ner if ner is None else ner
        ents = entities if entities is not None else cfg.entities
        recs: list[Recognizer] = []
        for name in recognizers.names():
            rec_cls = recognizers.get(name)
            if name == "phone":
                regions = cfg.phone_regions if phone_regions is None else phone_regions
                recs.append(rec_cls(regions=regions))  # type: ignore[call-arg]
            elif name == "medical_record":
                recs.append(rec_cls(patterns=mrn_patterns))  # type: ignore[call-arg]
            else:
                recs.append(rec_cls())
        for i, spec in enumerate(cfg.patterns):
            recs.append(build_pattern_recognizer(spec, i))
        recs.extend(extra)
        ner_rec = None
        if use_ner:
            from veil.text.ner._ner import SpacyNerRecognizer

            ner_rec = SpacyNerRecognizer(model or cfg.model, language=cfg.language)
        return cls(
            recs,
            ner=ner_rec,
            entities=ents,
            score_threshold=cfg.score_threshold,
            allow_list=cfg.allow_list,
            deny_list=cfg.deny_list,
            profile=cfg.profile if profile is None else profile,
        )

    @property
    def model_name(self) -> str | None:
        """The spaCy model in use, or ``None`` when NER is off."""
        return self.ner.model_name if self.ner is not None else None

    # analysis -----------------------------------------------------------------------------
    def _keeps(self, text: str, f: Finding) -> bool:
        """Whether a finding passes the threshold, the entity filter, the allow list and the
        detection profile."""
        if f.score < self.score_threshold or f.entity_type not in self.entities:
            return False
        if self.allow and text[f.start : f.end].strip().casefold() in self.allow:
            return False
        if names_nothing(f.entity_type, text[f.start : f.end]):
            return False  # "PDF", "HR", "Aadhaar", "XXXX": a label or a mask, not a name
        return self.profile == "default" or profile_keeps(self.profile, text, f)

    def _finish(
        self, text: str, raw: list[Finding], allow_pass: bool | None = None
    ) -> list[Finding]:
        if self.profile != "default":
            # the text's features read once more (the pattern stage read the batch's last
            # text since): the rule modules' scans of it are gated on them
            text_features(text)
        if allow_pass is None:
            allow_pass = allow_pass_applies(self.profile, text)
        if allow_pass and self.profile == "hipaa":
            # the precise pass in a clinical note: drop what the note's own shorthand made
            # the general recognizers see (the thorough pass keeps it: recall first)
            raw = [f for f in raw if clinical_keeps(text, f)]
        if self._some_types:
            raw = [_as_wanted(f, self.entities) for f in raw]
        found = resolve_overlaps([f for f in raw if self._keeps(text, f)])
        if "STREET_ADDRESS" in self.entities:
            found = with_house_numbers(text, found)
        if "PERSON" in self.entities:
            extra = [f for f in coordinated_names(text, found) if self._keeps(text, f)]
            if extra:
                found = sorted([*found, *extra], key=lambda f: (f.start, f.end))
            found = join_wrapped_names(text, found)
        if allow_pass:
            thorough = self.profile == "clinical"
            extra = clinical_findings(text, found, thorough=thorough)
            found = sorted([*found, *(f for f in extra if self._keeps(text, f))], key=_by_start)
        if "PERSON" in self.entities:
            found = join_hyphenated_names(text, found)
        return found

    def _plan(self, digits: int, run: int) -> list[_Step]:
        """The recognizers that can find something in a text with ``digits`` digits and a
        longest digit run of ``run``, in their order, each with what is left to check on
        the text: a string it must hold (``None``: none) and the patterns' needs of which
        it must meet one (``None``: none left to check, call the recognizer).

        Most recognizers find nothing in most texts, and calling one to learn that cost a
        good part of the pattern stage. A recognizer's :class:`Gate` says what a text must
        hold for it to find anything; the digit counts sort out at once those that need
        more digits (one list for each distinct pair, capped at what any gate asks, made
        on first use), and the rest of the gate is checked on the text's features.
        """
        if self._plans_for is not self.recognizers or self._plans_len != len(self.recognizers):
            self._gates = [r.gate() for r in self.recognizers]
            self._caps = (
                max((n.digits for g in self._gates if g is not None for n in g.needs), default=0),
                max((n.run for g in self._gates if g is not None for n in g.needs), default=0),
            )
            self._plans = {}
            self._plans_for = self.recognizers
            self._plans_len = len(self.recognizers)
        key = (min(digits, self._caps[0]), min(run, self._caps[1]))
        plan = self._plans.get(key)
        if plan is None:
            plan = []
            for r, g in zip(self.recognizers, self._gates, strict=True):
                if g is None:
                    plan.append((r, None, None))
                    continue
                needs = tuple(n for n in g.needs if n.digits <= key[0] and n.run <= key[1])
                if not needs:
                    continue  # too few digits for every pattern
                if any(not n.strings and not n.anyof and not n.upper_run for n in needs):
                    plan.append((r, g.requires, None))  # the digits are all it needs
                else:
                    plan.append((r, g.requires, needs))
            self._plans[key] = plan
        return plan

    def _pattern_findings(
        self, text: str, readable: str | None = None, skip: Mapping[str, int | None] = _NONE
    ) -> list[Finding]:
        """Every recognizer's findings; ``readable`` is ``text`` in ordinary case (see
        :attr:`Recognizer.reads_case`), made here when not given. A recognizer is not
        called on a text that cannot open its :class:`Gate` (it would find nothing), nor
        when ``skip`` names it and the text has no run of as many digits as it gives
        (``None``: none is enough; its findings would all be dropped)."""
        out: list[Finding] = []
        feats = text_features(text)
        read_feats: TextFeatures | None = None
        for r, requires, needs in self._plan(feats.digits, feats.run):
            if skip and r.name in skip:
                least = skip[r.name]
                if least is None or feats.run < least:
                    continue
            src, src_feats = text, feats
            if r.reads_case:
                if readable is None:
                    readable = _readable(text)
                if read_feats is None:
                    # the same digits (letter case aside, the same text)
                    read_feats = feats if readable is text else text_features(readable)
                src, src_feats = readable, read_feats
            if requires is not None and requires not in src:
                continue
            if needs is not None:
                for need in needs:
                    if need.met_by(src_feats):
                        break
                else:
                    continue
            out.extend(r.analyze(src))
        return out

    def analyze(self, text: str | None) -> list[Finding]:
        """Findings in one text (``None`` and ``""`` give none), sorted by start."""
        return next(iter(self._analyze_serial([text], batch_size=1)))

    def explain(self, text: str) -> list[dict[str, Any]]:
        """Findings with their explanations, as dicts (no text content)."""
        return [f.to_dict(explain=True) for f in self.analyze(text)]

    def _analyze_serial(
        self, texts: Sequence[str | None], batch_size: int
    ) -> Iterator[list[Finding]]:
        # (text index, offset, piece, the piece in ordinary case: made once, for NER and the
        # name recognizers alike)
        pieces: list[tuple[int, int, str, str | None]] = []
        for i, t in enumerate(texts):
            if t:
                for off, piece in _chunks(t, self.max_chunk_chars, self.chunk_overlap):
                    pieces.append(
                        (i, off, piece, _readable(piece) if self.ner is not None else None)
                    )
        raw: list[list[Finding]] = [[] for _ in texts]
        # under hipaa, the texts that read as clinical notes: the precise pass's filter
        # (``clinical_keeps``) drops some findings there, which need not be looked for
        note = (
            {i: allow_pass_applies("hipaa", t) for i, t in enumerate(texts) if t}
            if self.profile == "hipaa"
            else {}
        )
        ner_iter: Iterator[list[Finding]] | None = None
        if self.ner is not None and pieces:
            read = [r if self.ner.reads_case and r is not None else p for _, _, p, r in pieces]
            lines: list[list[tuple[int, int]] | None] | None = None
            if any(note.values()):
                # in a note the model reads only the lines where one of its findings can
                # outlast the note's vocabulary
                lines = [
                    ner_lines(text) if note[i] else None
                    for (i, _, _, _), text in zip(pieces, read, strict=True)
                ]
            ner_iter = (
                self.ner.analyze_many(read, batch_size=batch_size)
                if lines is None  # the call as it was before ``lines``, for other NER objects
                else self.ner.analyze_many(read, batch_size=batch_size, lines=lines)
            )
        for i, off, piece, readable in pieces:
            found = self._pattern_findings(piece, readable, NOT_IN_NOTES if note.get(i) else _NONE)
            if ner_iter is not None:
                found.extend(next(ner_iter))
            if off:
                found = [f.shifted(off) for f in found]
            raw[i].extend(found)
        for i, t in enumerate(texts):
            yield self._finish(t, raw[i], note.get(i)) if t else []

    def analyze_batch(
        self,
        texts: Sequence[str | None],
        *,
        batch_size: int = 256,
        n_process: int = 1,
    ) -> list[list[Finding]]:
        """Findings for many texts: NER batched with ``nlp.pipe``, at most ``batch_size``
        texts (and 100,000 characters) a batch, shortest first; ``n_process`` > 1 splits the
        texts over worker processes (forked, sharing the loaded model)."""
        texts = list(texts)
        if n_process <= 1 or len(texts) < 2 * _MIN_PART:
            return list(self._analyze_serial(texts, batch_size))
        pool = self._get_pool(n_process)
        # two parts per worker, so that the workers finish together (parts of a whole
        # batch each split 800 texts on 2 workers as 512 + 288, and a call of fewer than
        # two batches ran on one process) while each part is long enough to pay for its
        # fixed cost (a spaCy memory zone: smaller parts were slower); no part above four
        # batches, so that results come back, and memory is freed, as the work goes on
        size = min(4 * batch_size, max(_MIN_PART, -(-len(texts) // (n_process * 2))))
        parts = [texts[i : i + size] for i in range(0, len(texts), size)]
        out: list[list[Finding]] = []
        for res in pool.imap(_worker_run, [(part, batch_size) for part in parts]):
            out.extend(res)
        return out

    def _get_pool(self, n_process: int) -> Any:
        global _WORKER
        if self._pool is not None and self._pool_size == n_process:
            return self._pool
        self.close()
        if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover
            raise PolicyError("several processes need the 'fork' start method (Linux, macOS)")
        _WORKER = self
        self._pool = multiprocessing.get_context("fork").Pool(n_process)
        self._pool_size = n_process
        return self._pool

    def close(self) -> None:
        """Stop worker processes started by :meth:`analyze_batch`."""
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> TextAnalyzer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_pool"] = None
        state["_plans"], state["_plans_for"] = {}, None  # made again where it is used
        return state

"""Run philter-lite over texts, inside philter-lite's own environment (a subprocess of
``text_clinical.py``; philter-lite pins its own dependencies).

Reads ``{"texts": [...], "tagger_site": PATH | null}`` as JSON on stdin and writes
``{"spans": [[[start, end], ...], ...], "seconds": S, "tagger": ...}`` on stdout: a span is
a run of characters philter-lite's asterisk output masks (what it would redact), and
``seconds`` (wall) and ``cpu_seconds`` (this process) count the texts only, not loading
the filters or the tagger; ``tagger_cpu_seconds`` is the part of ``cpu_seconds`` spent in
``pos_tag`` (one call per text), so a reader can see what the substitute tagger costs.

philter-lite tags parts of speech with NLTK's averaged-perceptron tagger, whose data NLTK
downloads at first use; where it cannot be downloaded (no network), ``tagger_site`` names
a site-packages folder holding spaCy and an English pipeline, and NLTK's ``pos_tag`` is
replaced by spaCy's tagger (the same Penn Treebank tag set) on philter-lite's own tokens.

philter-lite compiles its configuration's patterns with Python's ``re``. Two of them
(``salutations6`` and ``salutations7``: a name before a degree, ``[A-Z]'?[A-Z]?[-aA-zZ]+``
repeated) backtrack exponentially in the number of words in a run of capitals, and deid's
notes are often written in capitals: profiled on five notes (every 24th), those two took
over 99 % of 40 CPU seconds, 8 s a note, where the issue's filer saw about 6 notes a
second. With ``"engine": "regex"`` (the default) the same pattern strings, with the same
flags, are compiled with the ``regex`` package (mrab-regex, in its ``re``-compatible
VERSION0; NLTK installs it with philter-lite), which matches them in milliseconds;
philter-lite's code runs unchanged. The catch-all pattern ``.`` stays ``re``'s (philter
compares it by identity). ``"check_engine": true`` compares the two engines' matches on
every text for every pattern except ``check_skip`` (titles: those ``re`` cannot finish)
and reports the differences; ``"engine": "re"`` runs philter-lite as shipped.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path


def _spacy_pos_tag(site: str):  # type: ignore[no-untyped-def]
    sys.path.append(site)  # after philter-lite's own packages
    import spacy
    from spacy.tokens import Doc

    names = [p.name for p in Path(site).glob("en_core_web_*") if p.is_dir()]
    nlp = spacy.load(sorted(names)[0], exclude=["ner", "parser", "lemmatizer"])

    def pos_tag(tokens: list[str]) -> list[tuple[str, str]]:
        words = [t if t else " " for t in tokens]
        doc = Doc(nlp.vocab, words=words, spaces=[False] * len(words))
        for _, proc in nlp.pipeline:
            doc = proc(doc)
        return [(t, tok.tag_ or "NN") for t, tok in zip(tokens, doc, strict=True)]

    return pos_tag, f"spaCy {spacy.__version__} {sorted(names)[0]} tagger (PTB tags)"


def _with_engine(filters: list, engine: str) -> tuple[list, str]:  # type: ignore[type-arg]
    """``filters`` with their patterns compiled by ``engine`` (see the module doc)."""
    import dataclasses

    from philter_lite import philter as ph

    if engine == "re":
        return filters, f"re (Python {sys.version.split()[0]})"
    import regex

    out = []
    for f in filters:
        data = getattr(f, "data", None)
        if isinstance(data, re.Pattern) and data is not ph.REGEX_ALL:
            f = dataclasses.replace(f, data=regex.compile(data.pattern, data.flags))
        out.append(f)
    return out, f"regex {regex.__version__} (VERSION0, re-compatible), same pattern strings"


def _engine_check(filters: list, texts: list[str], skip: list[str]) -> dict:  # type: ignore[type-arg]
    """Patterns whose matches differ between ``re`` and ``regex`` on ``texts``."""
    import regex

    compared, differ = 0, []
    for f in filters:
        data = getattr(f, "data", None)
        if not isinstance(data, re.Pattern) or f.title in skip:
            continue
        other = regex.compile(data.pattern, data.flags)
        for t in texts:
            compared += 1
            if [m.span() for m in data.finditer(t)] != [m.span() for m in other.finditer(t)]:
                differ.append(f.title)
                break
    return {"pattern_text_pairs": compared, "patterns_that_differ": differ, "skipped": skip}


def main() -> None:
    import nltk
    import philter_lite
    from philter_lite import philter as ph

    req = json.load(sys.stdin)
    tagger = "nltk averaged_perceptron_tagger"
    try:
        nltk.pos_tag(["test"])
    except LookupError:
        if not req.get("tagger_site"):
            raise
        pos_tag, tagger = _spacy_pos_tag(req["tagger_site"])
    else:
        pos_tag = nltk.pos_tag
    tag_cpu = [0.0]

    def timed_pos_tag(tokens: list[str]) -> list[tuple[str, str]]:
        c0 = time.process_time()
        try:
            return pos_tag(tokens)  # type: ignore[no-any-return]
        finally:
            tag_cpu[0] += time.process_time() - c0

    ph.nltk.pos_tag = timed_pos_tag  # type: ignore[attr-defined]
    config = Path(philter_lite.__file__).parent / "configs" / "philter_delta.toml"
    shipped = philter_lite.load_filters(str(config))
    filters, engine = _with_engine(shipped, req.get("engine", "regex"))
    check = None
    if req.get("check_engine"):
        check = _engine_check(shipped, req["texts"], list(req.get("check_skip", [])))
    out = []
    t0, c0 = time.perf_counter(), time.process_time()
    for text in req["texts"]:
        include_map, _, _ = philter_lite.detect_phi(text, patterns=filters)
        masked = philter_lite.transform_text_asterisk(text, include_map)
        spans, start = [], None
        for i, (a, b) in enumerate(zip(text, masked, strict=True)):
            hit = b == "*" and a != "*"
            if hit and start is None:
                start = i
            elif not hit and start is not None:
                spans.append([start, i])
                start = None
        if start is not None:
            spans.append([start, len(text)])
        out.append(spans)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    json.dump(
        {
            "spans": out,
            "seconds": seconds,
            "cpu_seconds": cpu,
            "tagger_cpu_seconds": tag_cpu[0],
            "tagger": tagger,
            "engine": engine,
            "engine_check": check,
            "version": philter_lite.__version__,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()

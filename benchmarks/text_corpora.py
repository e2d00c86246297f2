"""Readers that turn public labelled corpora into veil's gold format (presidio-research's).

veil scores detectors against records ``{"full_text", "spans": [{"entity_type",
"start_position", "end_position"}]}`` (:func:`veil.text.load_gold`). The corpora measured by
``benchmarks/text_public.py`` are not in this repository; these readers take a path to a
copy of them. Nothing here looks at what a detector predicts: a reader only restates the
corpus's own annotation in that format.

* ``presidio-research``: already in the format (``data/synth_dataset_v2.json`` of
  microsoft/presidio-research), read by :func:`veil.text.load_gold`.
* ``physionet-deid``: the gold standard corpus of the PhysioNet de-identification software
  (deid 1.1): ``id.text`` (2,434 nursing notes, PHI replaced by surrogates) and
  ``id-phi.phrase`` (one PHI span a line: ``<patient> <note> <start> <end> <type> <phrase>``,
  offsets relative to the note body). The phrase field is used only to check the offsets;
  it never appears in an error.

Annotation convention of the deid corpus: PHI is marked token by token, so "Mercy General" is
two ``Location`` spans and "J. Smith" two ``HCPName`` spans, while both tools under test
return one span per name. With ``merge_adjacent=True`` (the default) spans of the *same*
corpus type are joined when what separates them is only spaces or tabs, a single hyphen, or
a period and spaces after an abbreviation of at most three letters ("S. ", "St. "); spans
of the same type that overlap are joined too. Spans of different types, or separated by a
comma, a newline or anything else, stay apart. The join is the same for every tool scored.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from veil._errors import InputError

__all__ = ["CORPUS_FORMATS", "load_corpus", "load_physionet_deid", "merge_adjacent_spans"]

CORPUS_FORMATS = ("presidio-research", "physionet-deid")

_RECORD = re.compile(
    r"START_OF_RECORD=(\d+)\|\|\|\|(\d+)\|\|\|\|\r?\n(.*?)\|\|\|\|END_OF_RECORD", re.S
)
_GAP_SPACES = re.compile(r"[ \t]+|-")
_GAP_ABBREVIATION = re.compile(r"\.[ \t]+")
_SHORT_WORD = re.compile(r"[A-Za-z]{1,3}")


def _joinable(text: str, left: dict[str, Any], right: dict[str, Any]) -> bool:
    if left["entity_type"] != right["entity_type"]:
        return False
    if right["start_position"] <= left["end_position"]:
        return True  # overlapping or touching spans of one type
    gap = text[left["end_position"] : right["start_position"]]
    if _GAP_SPACES.fullmatch(gap):
        return True
    word = text[left["start_position"] : left["end_position"]]
    return bool(_GAP_ABBREVIATION.fullmatch(gap) and _SHORT_WORD.fullmatch(word))


def merge_adjacent_spans(text: str, spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join token-level spans of one type into the phrase they mark (rule in the module doc).

    Examples
    --------
    >>> t = "Dr J. Smith at Mercy General, Boston"
    >>> s = [{"entity_type": "N", "start_position": a, "end_position": b} for a, b in
    ...      [(3, 5), (6, 11)]] + [{"entity_type": "L", "start_position": a, "end_position": b}
    ...      for a, b in [(15, 20), (21, 28), (30, 36)]]
    >>> [t[x["start_position"] : x["end_position"]] for x in merge_adjacent_spans(t, s)]
    ['J. Smith', 'Mercy General', 'Boston']
    """
    out: list[dict[str, Any]] = []
    for s in sorted(spans, key=lambda s: (s["start_position"], s["end_position"])):
        prev = next((p for p in reversed(out) if p["entity_type"] == s["entity_type"]), None)
        if prev is not None and prev is out[-1] and _joinable(text, prev, s):
            prev["end_position"] = max(prev["end_position"], s["end_position"])
        else:
            out.append(dict(s))
    return out


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise InputError(f"corpus file not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 (at byte {exc.start})") from None


def load_physionet_deid(
    folder: str | Path, *, merge_adjacent: bool = True, only_annotated: bool = False
) -> list[dict[str, Any]]:
    """Read ``id.text`` and ``id-phi.phrase`` from ``folder`` into gold records.

    Each record is ``{"id": "<patient>-<note>", "full_text": <note body>, "spans": [...]}``
    with the corpus's own types (``HCPName``, ``Location``, ``Date``, ...); a label map
    renames them. ``only_annotated`` keeps only notes with at least one PHI span.
    Errors name the file, line and record, never a note's text or a phrase.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "id.text").write_text(
    ...     "START_OF_RECORD=1||||1||||\\nseen by Dr Roe on 3/4\\n||||END_OF_RECORD\\n")
    >>> _ = (d / "id-phi.phrase").write_text("1 1 11 14 HCPName Roe\\n1 1 18 21 Date 3/4\\n")
    >>> [(s["entity_type"], s["start_position"]) for s in load_physionet_deid(d)[0]["spans"]]
    [('HCPName', 11), ('Date', 18)]
    """
    folder = Path(folder)
    text_path, phrase_path = folder / "id.text", folder / "id-phi.phrase"
    raw = _read_text(text_path)
    bodies: dict[tuple[int, int], str] = {}
    for m in _RECORD.finditer(raw):
        key = (int(m.group(1)), int(m.group(2)))
        if key in bodies:
            raise InputError(f"{text_path}: record {key[0]}-{key[1]} appears twice")
        bodies[key] = m.group(3)
    if not bodies:
        raise InputError(f"{text_path}: no 'START_OF_RECORD=<patient>||||<note>||||' records found")
    spans: dict[tuple[int, int], list[dict[str, Any]]] = {k: [] for k in bodies}
    for lineno, line in enumerate(_read_text(phrase_path).splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split(" ", 5)
        try:
            pid, note, start, end = (int(x) for x in fields[:4])
            label = fields[4]
        except (ValueError, IndexError):
            raise InputError(
                f"{phrase_path}, line {lineno}: expected '<patient> <note> <start> <end> "
                "<type> <phrase>'"
            ) from None
        key = (pid, note)
        if key not in bodies:
            raise InputError(f"{phrase_path}, line {lineno}: no record {pid}-{note} in id.text")
        phrase = fields[5] if len(fields) > 5 else ""
        body = bodies[key]
        if not (0 <= start < end <= len(body)) or body[start:end] != phrase[: end - start]:
            raise InputError(
                f"{phrase_path}, line {lineno}: offsets {start}-{end} do not hold the "
                f"listed phrase in record {pid}-{note} (a different copy of id.text?)"
            )
        spans[key].append({"entity_type": label, "start_position": start, "end_position": end})
    records = []
    for key in sorted(bodies):
        body, ss = bodies[key], spans[key]
        if only_annotated and not ss:
            continue
        ss = (
            merge_adjacent_spans(body, ss)
            if merge_adjacent
            else sorted(ss, key=lambda s: (s["start_position"], s["end_position"]))
        )
        records.append({"id": f"{key[0]}-{key[1]}", "full_text": body, "spans": ss})
    return records


def load_corpus(fmt: str, path: str | Path, **options: Any) -> list[dict[str, Any]]:
    """Read a corpus in one of :data:`CORPUS_FORMATS`; unknown formats name the valid ones."""
    from veil.text import load_gold

    if fmt == "presidio-research":
        return load_gold(path)
    if fmt == "physionet-deid":
        return load_physionet_deid(path, **options)
    raise InputError(f"unknown corpus format {fmt!r}; expected one of {', '.join(CORPUS_FORMATS)}")

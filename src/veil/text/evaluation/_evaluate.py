"""Precision, recall and F1 per entity type and micro-averaged: exact spans, overlapping
spans, and tokens.

Gold files use the presidio-research format: a JSON list, or JSON Lines, of records
``{"full_text": ..., "spans": [{"entity_type", "start_position", "end_position"}]}``.

Scoring
-------
* **exact**: a prediction counts when its start, end and type equal a gold span's.
* **overlap**: a prediction counts when it overlaps a gold span of the same type; each gold
  span and each prediction is matched at most once (greedy, in text order).
* **token**: each token of the text (a run of letters and digits, or one other
  non-space character) takes the type of the gold span it overlaps, and separately of the
  prediction it overlaps, or none; a token counts when both give it the same type. This is
  the IO-scheme token scoring of CoNLL-style NER benchmarks and of presidio-research's
  ``TokenEvaluator``: it does not depend on how a corpus splits an entity into spans
  ("12 High St" as one span or as "12" and "High St"), and a long entity weighs more than
  a short one. Its ``support`` counts gold *tokens*, not spans.

Only entity types present in the gold data (after the label map) are scored, unless
``entities`` names them; predictions of other types are counted as ``ignored``. A label
map (``{"LABEL": "ENTITY"}``, or ``null`` to drop a label) renames gold and predicted
types alike, e.g. ``{"ADDRESS": "STREET_ADDRESS", "GPE": "LOCATION"}``.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil._lazy import lazy_compile

__all__ = ["EvaluationReport", "evaluate_spans", "load_gold", "load_label_map"]


def load_gold(path: str | Path) -> list[dict[str, Any]]:
    """Read gold records (JSON list or JSONL); errors name the record, never its text."""
    p = Path(path)
    try:
        raw = p.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise InputError(f"gold file not found: {p}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not valid UTF-8 (at byte {exc.start})") from None
    stripped = raw.lstrip()
    records: list[Any]
    if stripped.startswith("["):
        try:
            records = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}: not valid JSON (line {exc.lineno})") from None
        if not isinstance(records, list):
            raise InputError(f"{p}: a JSON gold file must hold a list of records")
    else:
        records = []
        for lineno, line in enumerate(raw.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                raise InputError(f"{p}: line {lineno} is not valid JSON") from None
    for i, r in enumerate(records):
        if not isinstance(r, dict) or not isinstance(r.get("full_text"), str):
            raise InputError(f"{p}: record {i} has no string 'full_text'")
        spans = r.get("spans") or []
        if not isinstance(spans, list):
            raise InputError(f"{p}: record {i}: 'spans' must be a list")
        n = len(r["full_text"])
        for s in spans:
            if not isinstance(s, dict) or not set(s) >= _SPAN_KEYS:
                raise InputError(
                    f"{p}: record {i} has a span without entity_type/start_position/end_position"
                )
            start, end = s["start_position"], s["end_position"]
            # checked here, so that no int() or slice of a value fails later with the value
            # in its message
            if not (
                isinstance(start, int)
                and isinstance(end, int)
                and not isinstance(start, bool)
                and not isinstance(end, bool)
                and 0 <= start <= end <= n
            ):
                raise InputError(
                    f"{p}: record {i} has a span whose positions are not whole numbers "
                    f"0 <= start <= end <= {n} (the text's length)"
                )
            if not isinstance(s["entity_type"], str):
                raise InputError(f"{p}: record {i} has a span whose entity_type is not text")
    return records


_SPAN_KEYS = frozenset({"entity_type", "start_position", "end_position"})


def load_label_map(path: str | Path | None) -> dict[str, str | None]:
    if path is None:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(f"label map {path} is not a readable JSON object") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in data.items()
    ):
        raise InputError(f"label map {path} must map label names to entity names (or null)")
    return data


def _prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float | int]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {
        "tp": tp,
        "fp": n_pred - tp,
        "fn": n_gold - tp,
        "precision": round(p, 4),
        "recall": round(r, 4),
        "f1": round(f, 4),
        "support": n_gold,
    }


@dataclass
class EvaluationReport:
    """Scores per entity type and micro-averaged; ``to_dict()`` for JSON, rich-renderable."""

    per_type: dict[str, dict[str, dict[str, float | int]]]
    micro: dict[str, dict[str, float | int]]
    records: int
    ignored_predictions: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "micro": self.micro,
            "per_type": self.per_type,
            "ignored_predictions": self.ignored_predictions,
            **self.meta,
        }

    def __rich__(self) -> Any:
        from rich.table import Table

        t = Table(title=f"text detection vs gold ({self.records} records)", header_style="bold")
        for col in (
            "entity type",
            "support",
            "P exact",
            "R exact",
            "F1 exact",
            "P overlap",
            "R overlap",
            "F1 overlap",
            "F1 token",
        ):
            t.add_column(col, justify="left" if col == "entity type" else "right")
        rows = [*sorted(self.per_type.items()), ("micro", self.micro)]
        for name, m in rows:
            e, o = m["exact"], m["overlap"]
            t.add_row(
                name,
                str(e["support"]),
                f"{e['precision']:.3f}",
                f"{e['recall']:.3f}",
                f"{e['f1']:.3f}",
                f"{o['precision']:.3f}",
                f"{o['recall']:.3f}",
                f"{o['f1']:.3f}",
                f"{m['token']['f1']:.3f}",
                style="bold" if name == "micro" else None,
            )
        return t


_TOKEN = lazy_compile(r"[^\W_]+|[^\w\s]|_")


def _token_labels(
    tokens: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int, str]]
) -> list[str | None]:
    """The type each token takes from the spans it overlaps. ``spans`` come in order of
    precedence: where two overlap (a tool may return both readings of a number), the token
    keeps the first's type, as an IO tagging must give each token one."""
    out: list[str | None] = [None] * len(tokens)
    starts = [a for a, _ in tokens]
    for start, end, t in spans:
        i = bisect.bisect_right(starts, start) - 1
        if i < 0 or tokens[i][1] <= start:
            i += 1
        while i < len(tokens) and tokens[i][0] < end:
            if out[i] is None:
                out[i] = t
            i += 1
    return out


def _longer(span: tuple[int, int, str]) -> tuple[int, int]:
    return (span[0] - span[1], span[0])


def _score(finding: Mapping[str, Any]) -> float:
    score = finding.get("score")
    return float(score) if isinstance(score, int | float) else 0.0


def _spans(
    items: Iterable[Mapping[str, Any]], label_map: Mapping[str, str | None], gold: bool
) -> list[tuple[tuple[int, int, str], float]]:
    """(start, end, type after the label map) and score of each span the map keeps; gold
    spans have no score (0)."""
    out = []
    for s in items:
        if gold:
            start, end, t = int(s["start_position"]), int(s["end_position"]), str(s["entity_type"])
        else:
            start, end, t = int(s["start"]), int(s["end"]), str(s["entity_type"])
        t2 = label_map.get(t, t)
        if t2 is not None:
            out.append(((start, end, t2), _score(s)))
    return out


def evaluate_spans(
    gold: Sequence[Mapping[str, Any]],
    predicted: Sequence[Sequence[Mapping[str, Any]]],
    *,
    label_map: Mapping[str, str | None] | None = None,
    entities: Iterable[str] | None = None,
) -> EvaluationReport:
    """Score predictions (``{"start","end","entity_type"}`` per record) against gold records.

    Examples
    --------
    >>> gold = [{"full_text": "Jo Ng", "spans": [
    ...     {"entity_type": "PERSON", "start_position": 0, "end_position": 5}]}]
    >>> r = evaluate_spans(gold, [[{"start": 0, "end": 2, "entity_type": "PERSON"}]])
    >>> r.micro["exact"]["f1"], r.micro["overlap"]["f1"], r.micro["token"]["recall"]
    (0.0, 1.0, 0.5)
    """
    if len(gold) != len(predicted):
        raise InputError(f"{len(gold)} gold records but {len(predicted)} prediction records")
    lm = dict(label_map or {})
    golds = [[sp for sp, _ in _spans(r.get("spans") or [], lm, True)] for r in gold]
    scored = [_spans(p, lm, False) for p in predicted]
    preds = [[sp for sp, _ in ps] for ps in scored]
    types = set(entities) if entities is not None else {t for g in golds for _, _, t in g}
    counts: dict[str, dict[str, int]] = {
        t: dict.fromkeys(("gold", "pred", "exact", "overlap", "tok_gold", "tok_pred", "tok"), 0)
        for t in types
    }
    ignored = 0
    for rec, g, p, scored_p in zip(gold, golds, preds, scored, strict=True):
        ignored += sum(1 for s in p if s[2] not in types)
        tokens = [m.span() for m in _TOKEN.finditer(str(rec["full_text"]))]
        # precedence where spans overlap: gold, the longer; predictions, the higher score
        # (presidio-research's tagging keeps it too), then the longer
        tok_g = _token_labels(tokens, sorted((s for s in g if s[2] in types), key=_longer))
        ranked = sorted(
            ((s, score) for s, score in scored_p if s[2] in types),
            key=lambda x: (-x[1], *_longer(x[0])),
        )
        tok_p = _token_labels(tokens, [s for s, _ in ranked])
        for lg, lp in zip(tok_g, tok_p, strict=True):
            if lg is not None:
                counts[lg]["tok_gold"] += 1
            if lp is not None:
                counts[lp]["tok_pred"] += 1
                if lp == lg:
                    counts[lp]["tok"] += 1
        for t in types:
            gs = sorted(s for s in g if s[2] == t)
            ps = sorted(s for s in p if s[2] == t)
            c = counts[t]
            c["gold"] += len(gs)
            c["pred"] += len(ps)
            c["exact"] += len(set(gs) & set(ps))
            used: set[int] = set()
            for gs_ in gs:
                for j, ps_ in enumerate(ps):
                    if j not in used and ps_[0] < gs_[1] and gs_[0] < ps_[1]:
                        used.add(j)
                        break
            c["overlap"] += len(used)
    per_type = {
        t: {
            "exact": _prf(c["exact"], c["pred"], c["gold"]),
            "overlap": _prf(c["overlap"], c["pred"], c["gold"]),
            "token": _prf(c["tok"], c["tok_pred"], c["tok_gold"]),
        }
        for t, c in sorted(counts.items())
    }
    keys = ("gold", "pred", "exact", "overlap", "tok_gold", "tok_pred", "tok")
    tot = {k: sum(c[k] for c in counts.values()) for k in keys}
    micro = {
        "exact": _prf(tot["exact"], tot["pred"], tot["gold"]),
        "overlap": _prf(tot["overlap"], tot["pred"], tot["gold"]),
        "token": _prf(tot["tok"], tot["tok_pred"], tot["tok_gold"]),
    }
    return EvaluationReport(per_type, micro, len(gold), ignored)

"""The ``text`` stage of ``veil run``: redact every ``role: text`` column.

Each column is redacted with its own :class:`~veil.policy.TextConfig` (entities, operator,
options, model, thresholds, allow/deny lists, custom patterns). Null cells stay null. The
values of the row's own ``role: identifier`` columns (and the parts of a name) are a deny
list for that row's text (:mod:`veil.text.redaction._row_deny`), whatever the recognizers find.
The report section ``report["text"]`` holds, per column, the number of texts, nulls and
replaced spans per entity type, the detection profile and the spaCy model used; never any
text.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from veil.pipeline import RunContext
    from veil.policy import Policy, TextConfig

__all__ = ["TextStage", "build_redactor"]


def build_redactor(cfg: TextConfig) -> Any:
    """Analyzer + operator for one column's config (validates everything, loads NER)."""
    from veil.text.detection._analyzer import TextAnalyzer
    from veil.text.redaction._redactor import TextRedactor
    from veil.text.replacement._operators import make_operator

    operator = make_operator(cfg.operator, cfg.operator_options)
    analyzer = TextAnalyzer.from_config(cfg)
    return TextRedactor(analyzer, operator)


class TextStage:
    """Detects and replaces personal data in the policy's text columns."""

    name: ClassVar[str] = "text"

    def wanted(self, policy: Policy) -> bool:
        return bool(policy.text_columns)

    def _config(self, policy: Policy, column: str) -> TextConfig:
        from veil.policy import TextConfig

        return policy.columns[column].text or TextConfig.model_validate({})

    def check(self, policy: Policy) -> None:
        """Entity names, custom regexes and operator keys are checked before data is read."""
        from veil.text.detection._analyzer import TextAnalyzer
        from veil.text.replacement._operators import make_operator

        for col in policy.text_columns:
            cfg = self._config(policy, col)
            make_operator(cfg.operator, cfg.operator_options).reset()
            TextAnalyzer.from_config(cfg, ner=False)

    def run(self, ctx: RunContext) -> None:
        import pandas as pd

        from veil.text.redaction._row_deny import row_deny_terms

        section: dict[str, Any] = {"columns": {}}
        total = 0
        identifiers = [n for n, c in ctx.policy.columns.items() if c.role.value == "identifier"]
        # each row's own identifier values, looked up verbatim in that row's text
        terms = row_deny_terms(ctx.original, identifiers, ctx.data.index)
        for col in ctx.policy.text_columns:
            cfg = self._config(ctx.policy, col)
            redactor = build_redactor(cfg)
            series = ctx.data[col]
            mask = series.notna()
            texts = [
                str(v) if ok else None for v, ok in zip(series.tolist(), mask.tolist(), strict=True)
            ]
            out: list[str | None] = []
            counts: Counter[str] = Counter()
            batch = 1000
            progress: Any = ctx.progress  # the Progress protocol's task() is a context manager
            with progress.task(f"text: {col}", total=len(texts)) as task:
                for i in range(0, len(texts), batch):
                    chunk = texts[i : i + batch]
                    for red in redactor.redact_batch(chunk, row_terms=terms[i : i + batch]):
                        out.append(red.text)
                        counts.update(f.entity_type for f in red.findings)
                    task.advance(len(chunk))
            redactor.analyzer.close()
            new = pd.Series(out, index=series.index, dtype=object)
            ctx.data = ctx.data.assign(**{col: new.where(mask, series)})
            n = sum(counts.values())
            total += n
            section["columns"][col] = {
                "texts": int(mask.sum()),
                "null": int((~mask).sum()),
                "replaced": n,
                "entities": dict(sorted(counts.items())),
                "operator": cfg.operator,
                "profile": cfg.profile,
                "model": redactor.analyzer.model_name,
                "ner": redactor.analyzer.ner is not None,
            }
            if redactor.operator.key_check is not None:
                section["columns"][col]["key_check"] = redactor.operator.key_check
        section["summary"] = {
            "text_columns": len(ctx.policy.text_columns),
            "text_spans_replaced": total,
        }
        ctx.report[self.name] = section

"""The privacy report: report.json (versioned JSON Schema) and a self-contained report.html."""

from veil.report._build import REPORT_VERSION, build_report, schema
from veil.report._compliance import compliance_section
from veil.report._html import SECTION_RENDERERS, render_html

__all__ = [
    "REPORT_VERSION",
    "SECTION_RENDERERS",
    "build_report",
    "compliance_section",
    "render_html",
    "schema",
]

"""The privacy report: report.json (versioned schema) and a self-contained report.html."""

from veil.report._build import REPORT_VERSION, build_report
from veil.report._html import SECTION_RENDERERS, render_html

__all__ = ["REPORT_VERSION", "SECTION_RENDERERS", "build_report", "render_html"]

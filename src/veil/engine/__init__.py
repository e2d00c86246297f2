"""Where veil's work runs: the local process (the default) or a Ray cluster.

``--engine ray`` sends text detection and redaction to Ray Data: the input (a file, a
folder or a glob of JSONL, CSV or Parquet files) is read as a Ray dataset, an actor pool
analyses it (each actor builds its :class:`~veil.text.TextAnalyzer` once, so spaCy loads
once per actor), and the driver writes one output file atomically, rows in input order,
in the format the local engine writes (or, for a folder ``--out``, one file per input
partition: :mod:`._partitioned`). ``veil dp query --engine ray`` reduces each partition to
its queries' exact aggregates and draws the noise once on the driver (:mod:`._dp`).
``veil run --engine ray`` runs a table policy as Ray
tasks over the input's partitions, with the search on their aggregate (:mod:`._tables`).
Ray is imported only here, and only when used.
"""

from veil.engine._dp import check_ray_queries, ray_dp_query_many
from veil.engine._inputs import expand_inputs
from veil.engine._partitioned import (
    PartWriters,
    layout,
    path_key,
    release_names,
    wants_partitioned,
)
from veil.engine._runtime import ENGINES, ray_session
from veil.engine._tables import ray_run_policy
from veil.engine._text import ray_detect, ray_redact, transform_parts

__all__ = [
    "ENGINES",
    "PartWriters",
    "check_ray_queries",
    "expand_inputs",
    "layout",
    "path_key",
    "ray_detect",
    "ray_dp_query_many",
    "ray_redact",
    "ray_run_policy",
    "ray_session",
    "release_names",
    "transform_parts",
    "wants_partitioned",
]

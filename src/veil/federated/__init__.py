"""Federated learning on Flower: veil's tabular model trained across simulated clients, or
across real SuperNodes with the Flower App ``veil fl app`` writes.

``import veil.federated`` imports neither flwr, ray nor torch; they load when a simulation runs.
"""

from veil.federated._appgen import write_flower_app
from veil.federated._clientdp import (
    AdaptiveClip,
    ClientDPAggregator,
    combined_noise,
    default_count_noise,
    split_noise,
    unclipped_bit,
)
from veil.federated._deploy import AppSettings
from veil.federated._deploy import client_app as deploy_client_app
from veil.federated._deploy_server import server_app as deploy_server_app
from veil.federated._local import clip_update
from veil.federated._partition import PARTITIONS, PartitionSpec, parse_partition, partition_rows
from veil.federated._report import render_fl_html, write_fl_report
from veil.federated._runtime import RuntimeDiedError
from veil.federated._secagg import RoundAbortedError, SecAggSettings
from veil.federated._simulate import FLConfig, simulate_federated
from veil.federated._strategy import STRATEGIES, ServerStrategy, make_strategy

__all__ = [
    "PARTITIONS",
    "STRATEGIES",
    "AdaptiveClip",
    "AppSettings",
    "ClientDPAggregator",
    "FLConfig",
    "PartitionSpec",
    "RoundAbortedError",
    "RuntimeDiedError",
    "SecAggSettings",
    "ServerStrategy",
    "clip_update",
    "combined_noise",
    "default_count_noise",
    "deploy_client_app",
    "deploy_server_app",
    "make_strategy",
    "parse_partition",
    "partition_rows",
    "render_fl_html",
    "simulate_federated",
    "split_noise",
    "unclipped_bit",
    "write_fl_report",
    "write_flower_app",
]

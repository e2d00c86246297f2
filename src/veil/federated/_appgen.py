"""``veil fl app DIR``: write a Flower App that runs veil's federated training on real machines.

The folder holds ``pyproject.toml`` (the app's components and its run config, from
:class:`veil.federated.AppSettings`), a ``veil_fl_app`` package whose ``server_app`` and
``client_app`` modules import veil's (:mod:`veil.federated._deploy_server`,
:mod:`veil.federated._deploy`), the shared ``schema.json`` and a README with the commands
for the SuperLink, the SuperNodes and ``flwr run``, with TLS. No key or certificate is ever
written: the README says how to make them outside the folder. The folder is written under a
temporary name beside ``DIR`` and renamed into place, so an error leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from veil._errors import InputError
from veil.federated._deploy import DATA_PATH_KEY, REQUIRE_SECAGG_KEY, AppSettings

__all__ = ["APP_FILES", "write_flower_app"]

PACKAGE = "veil_fl_app"
# what `flwr run` packs into the app bundle it sends to the SuperLink and every SuperNode:
# these files only, so a table or a key dropped into the folder never travels
APP_FILES: tuple[str, ...] = (
    f"{PACKAGE}/__init__.py",
    f"{PACKAGE}/server_app.py",
    f"{PACKAGE}/client_app.py",
    f"{PACKAGE}/schema.json",
)

_SERVER = '''"""The ServerApp of this Flower App (written by `veil fl app`; see README.md)."""

from pathlib import Path

from veil.federated import deploy_server_app

app = deploy_server_app(Path(__file__).with_name("schema.json"))
'''

_CLIENT = '''"""The ClientApp of this Flower App (written by `veil fl app`; see README.md).

Each SuperNode trains on the table its own `--node-config 'data-path="..."'` names.
"""

from pathlib import Path

from veil.federated import deploy_client_app

app = deploy_client_app(Path(__file__).with_name("schema.json"))
'''


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        # a JSON string is a TOML basic string once it keeps non-ASCII characters as they are
        # (JSON would write those past U+FFFF as surrogate pairs, which TOML refuses) and
        # escapes DEL (TOML refuses it raw)
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _pyproject(settings: AppSettings, veil_version: str) -> str:
    config = "\n".join(f"{k} = {_toml_value(v)}" for k, v in settings.to_run_config().items())
    return f"""# Written by `veil fl app` (veil {veil_version}). The run config below is what
# `veil fl app` was given; `flwr run . CONNECTION --run-config 'KEY=VALUE'` overrides a key
# for one run, and the server and clients check every value again.
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "veil-fl-app"
version = "1.0.0"
description = "veil's tabular classifier trained across SuperNodes (written by veil fl app)"
license = "Apache-2.0"
dependencies = [{_toml_value(f"veil[fl]=={veil_version}")}]

[tool.hatch.build.targets.wheel]
packages = [{_toml_value(PACKAGE)}]

[tool.flwr.app]
publisher = "veil"
fab-include = {_toml_value(list(APP_FILES))}

[tool.flwr.app.components]
serverapp = "{PACKAGE}.server_app:app"
clientapp = "{PACKAGE}.client_app:app"

[tool.flwr.app.config]
{config}
"""


def _readme(settings: AppSettings, target: str, veil_version: str) -> str:
    s = settings
    privacy = (
        f"client-level DP (epsilon {s.epsilon:g}, delta {s.delta:g}, clip {s.clip_norm:g})"
        if s.dp == "client"
        else "no differential privacy"
    )
    shares = "per round" if s.secagg_shares is None else f"{s.secagg_shares:g}"
    threshold = "per round" if s.secagg_threshold is None else f"{s.secagg_threshold:g}"
    secagg = (
        f"SecAgg+ (shares {shares}, threshold {threshold}; per round: any 30 % of the "
        "round's SuperNodes may vanish)"
        if s.secagg and s.secagg_shares is None and s.secagg_threshold is None
        else f"SecAgg+ (shares {shares}, threshold {threshold})"
        if s.secagg
        else "plain aggregation (the server sees each update)"
    )
    require = f" {REQUIRE_SECAGG_KEY}=true" if s.secagg else ""
    refuse = (
        f"\n`{REQUIRE_SECAGG_KEY}=true` makes the SuperNode refuse to send an update in clear."
        if s.secagg
        else ""
    )
    ledger = ""
    if s.dp == "client" and not s.no_ledger:
        ledger = f"""
The privacy spend is reserved in the ledger before the first round, on the SuperLink's
machine ({"ledger " + repr(s.ledger) if s.ledger else "veil's local ledger file"}), from the budget
of dataset `{s.dataset}`. Create that budget there once:

    veil budget init {s.dataset} --epsilon TOTAL_EPSILON --delta TOTAL_DELTA
"""
    return f"""# veil federated app: {s.strategy}, {s.rounds} rounds, {s.clients} SuperNodes

Written by `veil fl app` (veil {veil_version}). It trains veil's tabular classifier of
`{target}` across SuperNodes; each SuperNode reads its own table and its rows never leave
it.

- Aggregation: {secagg}.
- Privacy: {privacy}. After each round every SuperNode reports how many of its held-out
  rows the model gets right: counts the server sees in clear, not covered by DP
  (`--run-config 'evaluate=false'` skips them).
- The encoding every party shares is `{PACKAGE}/schema.json` (columns, categories, numeric
  statistics, classes): it travels to every machine, so it must hold nothing private.
- Only the files of `fab-include` in `pyproject.toml` are sent by `flwr run`; still, never
  put data or keys in this folder.

Every machine needs the same veil: `pip install "veil[fl]=={veil_version}"`.

## 1. Certificates (TLS)

Make them on a trusted machine, outside this folder (`SUPERLINK_HOST` is the name or address
the SuperNodes reach the SuperLink at):

    mkdir -p ~/veil-fl-certs && cd ~/veil-fl-certs
    openssl req -x509 -newkey rsa:4096 -sha256 -days 365 -nodes \\
        -keyout ca.key -out ca.crt -subj "/CN=veil-fl CA"
    openssl req -newkey rsa:4096 -nodes -keyout server.key -out server.csr \\
        -subj "/CN=SUPERLINK_HOST"
    printf "subjectAltName=DNS:SUPERLINK_HOST,IP:127.0.0.1\\n" > san.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \\
        -out server.crt -days 365 -sha256 -extfile san.ext

`ca.crt` is public: copy it to every SuperNode and to the machine that runs `flwr run`.
`server.crt` and `server.key` stay on the SuperLink's machine; `ca.key` stays offline.

## 2. SuperLink (the server's machine)

    flower-superlink --ssl-ca-certfile ca.crt --ssl-certfile server.crt \\
        --ssl-keyfile server.key --host 0.0.0.0 --port 9093 \\
        --disable-runtime-dependency-installation
{ledger}
## 3. SuperNodes (one per data holder)

    flower-supernode --superlink SUPERLINK_HOST:9093 --root-certificates ca.crt \\
        --node-config '{DATA_PATH_KEY}="/path/to/local-table.csv"{require}'

The table (CSV, Parquet or JSONL) needs the schema's columns and `{target}`.{refuse}
Several SuperNodes on one machine need distinct `--port`s (their local API, 9094 by
default). The server waits for {s.clients} SuperNodes before the first round.

## 4. Run

Add the SuperLink to the Flower configuration of the machine that submits the run
(`~/.flwr/config.toml`; `root-certificates` is the absolute path of `ca.crt`):

    [superlink.veil]
    address = "SUPERLINK_HOST:9093"
    root-certificates = "/home/you/veil-fl-certs/ca.crt"

then, from this folder:

    flwr run . veil --stream

(`flwr run` exits 0 even when it cannot reach the SuperLink: read its message.)

Override a setting for one run: `flwr run . veil --run-config 'rounds=5 out-dir="/srv/fl-out"'`.
The server writes `report.json` (per-round accuracy and loss from the SuperNodes' held-out
rows, clients and drop-outs per round, epsilon spent) and `model.pt` (a veil tabular model:
`veil.train.load_tabular_model`) into `out-dir` (`{s.out_dir}`, relative to the SuperLink's
working directory). A SuperNode that stops mid-round is left out of the round at once; one
that crashes is waited for `round-timeout` ({s.round_timeout:g}) seconds at each stage, until
Flower marks it offline (about a minute without its heartbeat).
"""


def _check_target(directory: Path, force: bool) -> None:
    if directory.exists() and not directory.is_dir():
        raise InputError(
            f"{directory} exists and is not a folder", hint="name a new folder for the app"
        )
    if directory.is_dir() and any(directory.iterdir()) and not force:
        raise InputError(
            f"{directory} exists and is not empty",
            hint="name a new folder, or pass --force to replace its contents",
        )


def write_flower_app(
    directory: str | Path,
    settings: AppSettings,
    schema: dict[str, Any],
    *,
    force: bool = False,
) -> list[Path]:
    """Write the Flower App into ``directory``; returns the files written.

    ``schema`` is the shared encoder (:meth:`veil.train.TabularEncoder.to_dict`). Refuses a
    non-empty ``directory`` unless ``force`` (then its contents are replaced). The app is
    built in a temporary folder beside ``directory`` and renamed into place.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> from veil.train import TabularEncoder
    >>> enc = TabularEncoder(target="t").fit(pd.DataFrame({"a": ["x", "y"], "t": ["p", "q"]}))
    >>> out = Path(tempfile.mkdtemp()) / "app"
    >>> sorted(p.name for p in write_flower_app(out, AppSettings(rounds=2), enc.to_dict()))
    ['README.md', '__init__.py', 'client_app.py', 'pyproject.toml', 'schema.json', 'server_app.py']
    """
    from veil import __version__

    settings.validate()
    directory = Path(directory)
    _check_target(directory, force)
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".veil-fl-app-", dir=directory.parent))
    old: Path | None = None
    try:
        pkg = tmp / PACKAGE
        pkg.mkdir()
        files = {
            "pyproject.toml": _pyproject(settings, __version__),
            "README.md": _readme(settings, str(schema["target"]), __version__),
            f"{PACKAGE}/__init__.py": '"""veil federated app (written by veil fl app)."""\n',
            f"{PACKAGE}/server_app.py": _SERVER,
            f"{PACKAGE}/client_app.py": _CLIENT,
            f"{PACKAGE}/schema.json": json.dumps(schema, indent=2, sort_keys=True) + "\n",
            ".gitignore": "*.key\n*.pem\n*.crt\n*.csr\nveil-fl-out/\n",
        }
        for rel, text in files.items():
            (tmp / rel).write_text(text, encoding="utf-8")
        umask = os.umask(0o022)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp makes it 0700; a folder made by mkdir would not be
        if directory.exists():
            old = directory.with_name(f".{directory.name}.veil-old-{os.getpid()}")
            directory.rename(old)
        tmp.rename(directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not directory.exists():
            old.rename(directory)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return sorted((directory / rel for rel in files if rel != ".gitignore"), key=str)

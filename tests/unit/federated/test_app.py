"""``veil fl app``: the Flower App it writes, its settings round trip, its client, bad input.

The app on real SuperLink/SuperNode processes is tests/integration/test_fl_app_deploy.py.
"""

from __future__ import annotations

import json
import tomllib
import zipfile
from dataclasses import replace
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil._errors import InputError, SchemaError
from veil.data import adult_frame
from veil.federated import AppSettings, write_flower_app
from veil.federated._deploy import load_schema, numpy_client, secagg_guard_mod

TARGET = "salary-class"


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("app-data")
    frame = adult_frame().sample(400, random_state=1)
    schema, local = folder / "schema.csv", folder / "local.csv"
    frame.to_csv(schema, index=False)
    frame.iloc[:150].to_csv(local, index=False)
    return schema, local


def _app(cli: Any, directory: Path, schema: Path, *extra: str) -> Any:
    return cli("fl", "app", directory, "--target", TARGET, "--schema", schema, *extra)


def test_writes_a_flower_app_whose_run_config_reads_back(
    cli: Any, tables: tuple[Path, Path], tmp_path: Path
) -> None:
    app = tmp_path / "app"
    res = _app(cli, app, tables[0], "--secagg", "--rounds", "4", "--clients", "5", "--json")
    assert res.code == 0, res.err
    written = json.loads(res.out)["files"]
    assert sorted(Path(f).name for f in written) == [
        "README.md",
        "__init__.py",
        "client_app.py",
        "pyproject.toml",
        "schema.json",
        "server_app.py",
    ]
    pyproject = tomllib.loads((app / "pyproject.toml").read_text())
    flwr = pyproject["tool"]["flwr"]["app"]
    assert flwr["components"] == {
        "serverapp": "veil_fl_app.server_app:app",
        "clientapp": "veil_fl_app.client_app:app",
    }
    s = AppSettings.from_run_config(flwr["config"])
    assert (s.rounds, s.clients, s.secagg, s.strategy) == (4, 5, True, "fedavg")
    assert load_schema(app / "veil_fl_app" / "schema.json").target == TARGET
    readme = (app / "README.md").read_text()
    for command in ("flower-superlink", "flower-supernode", "flwr run", "--root-certificates"):
        assert command in readme
    assert "require-secagg=true" in readme
    assert not [p for p in app.rglob("*") if p.suffix in {".key", ".crt", ".pem"}]


# flwr's FAB builder reads the app's .gitignore with a pathspec syntax pathspec deprecates
@pytest.mark.filterwarnings("ignore:GitWildMatchPattern:DeprecationWarning")
def test_flower_packs_only_the_app_files_never_a_table_or_key_left_in_the_folder(
    cli: Any, tables: tuple[Path, Path], tmp_path: Path
) -> None:
    from flwr.cli.build import build_fab_from_disk
    from flwr.cli.config_utils import load_and_validate

    app = tmp_path / "app"
    assert _app(cli, app, tables[0]).code == 0
    (app / "rows.jsonl").write_text('{"a": 1}\n')
    (app / "veil_fl_app" / "extra.json").write_text("{}")
    (app / "server.key").write_text("not a key")
    config, _ = load_and_validate(app / "pyproject.toml", check_module=False)
    assert config["tool"]["flwr"]["app"]["publisher"] == "veil"
    names = zipfile.ZipFile(BytesIO(build_fab_from_disk(app))).namelist()
    assert "veil_fl_app/schema.json" in names and "veil_fl_app/client_app.py" in names
    assert not [n for n in names if n.endswith((".jsonl", ".key", "extra.json"))], names


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--strategy", "fedsgd"], "unknown --strategy"),
        (["--strategy", "scaffold"], "scaffold"),
        (["--secagg", "--secagg-threshold", "0.5"], "more than half"),
        (["--secagg", "--clients", "2"], "at least 3 clients"),
        (["--secagg", "--secagg-shares", "2.5"], "whole number"),
        (["--dp", "sample", "--epsilon", "3"], "--dp sample"),
        (["--dp", "client"], "--epsilon"),
        (["--dp", "client", "--epsilon", "3"], "--dataset NAME"),
        (["--dataset", "d"], "apply to --dp runs only"),
        (["--round-timeout", "0"], "--round-timeout"),
    ],
)
def test_bad_settings_exit_2_and_write_nothing(
    cli: Any, tables: tuple[Path, Path], tmp_path: Path, extra: list[str], message: str
) -> None:
    app = tmp_path / "app"
    res = _app(cli, app, tables[0], *extra)
    assert res.code == 2
    assert message in res.err
    assert not app.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_missing_target_exits_2(cli: Any, tables: tuple[Path, Path], tmp_path: Path) -> None:
    app = tmp_path / "app"
    res = cli("fl", "app", app, "--target", "no-such-column", "--schema", tables[0])
    assert res.code == 2
    assert "no-such-column" in res.err and "--target" in res.err
    assert not app.exists()
    assert cli("fl", "app", app, "--schema", tables[0]).code == 2  # --target not given
    assert not app.exists()


def test_an_existing_folder_is_kept_unless_force(
    cli: Any, tables: tuple[Path, Path], tmp_path: Path
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "mine.txt").write_text("keep me")
    res = _app(cli, app, tables[0])
    assert res.code == 2
    assert "not empty" in res.err and "--force" in res.err
    assert [p.name for p in app.iterdir()] == ["mine.txt"]
    assert _app(cli, app, tables[0], "--rounds", "2", "--force").code == 0
    assert not (app / "mine.txt").exists()
    config = tomllib.loads((app / "pyproject.toml").read_text())["tool"]["flwr"]["app"]["config"]
    assert AppSettings.from_run_config(config).rounds == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app"]  # no temporary folder left
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _app(cli, empty, tables[0]).code == 0  # an empty folder needs no --force


def test_an_error_while_writing_leaves_nothing_behind(tmp_path: Path) -> None:
    app = tmp_path / "app"
    with pytest.raises(TypeError):
        write_flower_app(app, AppSettings(), {"target": "t", "bad": object()})
    assert list(tmp_path.iterdir()) == []
    app.mkdir()
    (app / "mine.txt").write_text("keep me")
    with pytest.raises(TypeError):
        write_flower_app(app, AppSettings(), {"target": "t", "bad": object()}, force=True)
    assert [p.name for p in tmp_path.iterdir()] == ["app"]
    assert (app / "mine.txt").read_text() == "keep me"


_valid = st.builds(
    AppSettings,
    rounds=st.integers(1, 500),
    clients=st.integers(3, 1000),
    strategy=st.sampled_from(["fedavg", "fedprox", "fedadam"]),
    fraction_fit=st.floats(0.01, 1.0),
    lr=st.none() | st.floats(1e-4, 1.0),
    seed=st.integers(0, 2**31),
    secagg=st.booleans(),
    round_timeout=st.floats(1.0, 1e4),
    evaluate=st.booleans(),
    out_dir=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1),
)


@settings(max_examples=60, deadline=None)
@given(_valid)
def test_run_config_round_trips_every_valid_setting(s: AppSettings) -> None:
    """What `veil fl app` writes into pyproject.toml reads back to the same settings."""
    from veil.federated._appgen import _pyproject

    text = _pyproject(s, "0")
    assert AppSettings.from_run_config(tomllib.loads(text)["tool"]["flwr"]["app"]["config"]) == s


def test_a_client_level_dp_run_round_trips_with_its_ledger_settings() -> None:
    s = AppSettings(dp="client", epsilon=3.0, delta=1e-6, dataset="adult", secagg=True)
    assert AppSettings.from_run_config(s.to_run_config()) == s


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("rounds", "3", "whole number"),
        ("secagg", 1, "true or false"),
        ("strategy", "scaffold", "scaffold"),
        ("dp", "sample", "--dp sample"),
        ("secagg-threshold", 0.4, "more than half"),
    ],
)
def test_an_overridden_run_config_is_checked_again(key: str, value: Any, message: str) -> None:
    config = {**AppSettings(secagg=True).to_run_config(), key: value}
    with pytest.raises(InputError, match=message):
        AppSettings.from_run_config(config)
    del config[key]
    with pytest.raises(InputError, match="has no"):
        AppSettings.from_run_config(config)


class _Context:
    def __init__(self, node_config: dict[str, Any], run_config: dict[str, Any]) -> None:
        self.node_config = node_config
        self.run_config = run_config


def _schema(tmp_path: Path, tables: tuple[Path, Path]) -> Path:
    import pandas as pd

    from veil.train import TabularEncoder

    enc = TabularEncoder(target=TARGET).fit(pd.read_csv(tables[0]))
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(enc.to_dict()))
    return path


def test_the_client_trains_and_evaluates_on_its_own_table(
    tables: tuple[Path, Path], tmp_path: Path
) -> None:
    from veil.federated._model import fresh_model

    schema = _schema(tmp_path, tables)
    run = AppSettings(test_fraction=0.2).to_run_config()
    client = numpy_client(_Context({"data-path": str(tables[1])}, run), schema)
    enc = load_schema(schema)
    model = fresh_model((enc.cardinalities, len(enc.numeric_), len(enc.classes_)), 0)
    weights = [p.detach().numpy() for p in model.parameters()]
    cfg = {"epochs": 1, "batch_size": 32, "lr": 0.05, "mu": 0.0, "seed": 1, "clip": 0.5}
    delta, weight, metrics = client.fit(weights, cfg)
    norm = sum(float((d**2).sum()) for d in delta) ** 0.5
    assert weight == 1 and norm <= 0.5 + 1e-6  # client-level DP: clipped, weight 1
    _, weight, _ = client.fit(weights, {**cfg, "clip": 0.0})
    assert weight == 120  # 150 rows, 30 held out
    loss, n, metrics = client.evaluate(weights, {})
    assert n == 30 and 0 <= metrics["correct"] <= 30 and loss > 0


def test_the_client_refuses_a_missing_data_path_or_a_table_without_the_target(
    tables: tuple[Path, Path], tmp_path: Path
) -> None:
    import pandas as pd

    schema = _schema(tmp_path, tables)
    run = AppSettings().to_run_config()
    with pytest.raises(InputError, match="data-path"):
        numpy_client(_Context({}, run), schema)
    other = tmp_path / "other.csv"
    pd.read_csv(tables[1]).drop(columns=[TARGET]).to_csv(other, index=False)
    with pytest.raises(SchemaError, match="no target column"):
        numpy_client(_Context({"data-path": str(other)}, run), schema)


def _train_message(content: Any) -> Any:
    from flwr.app import Message

    return Message(content=content, dst_node_id=1, message_type="train")


def test_a_supernode_that_requires_secagg_never_sends_an_update_in_clear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from flwr.app import ConfigRecord, RecordDict
    from flwr.supercore.task_identity import TaskIdentity

    monkeypatch.setattr(TaskIdentity, "_run_id", 1)  # set by Flower in a ClientApp process
    monkeypatch.setattr(TaskIdentity, "_node_id", 1)
    monkeypatch.setattr(TaskIdentity, "_task_id", 1)

    plain = _train_message(RecordDict({"fitins.config": ConfigRecord({"clip": 0.0})}))
    calls: list[Any] = []

    def call_next(msg: Any, ctx: Any) -> str:
        calls.append(msg)
        return "trained"

    run = AppSettings().to_run_config()
    with pytest.raises(RuntimeError, match="in clear"):
        secagg_guard_mod(plain, _Context({"require-secagg": True}, run), call_next)
    secagg_run = AppSettings(secagg=True).to_run_config()
    with pytest.raises(RuntimeError, match="in clear"):
        secagg_guard_mod(plain, _Context({}, secagg_run), call_next)
    assert calls == []
    assert secagg_guard_mod(plain, _Context({}, run), call_next) == "trained"
    assert calls == [plain]


def test_settings_defaults_match_the_simulation() -> None:
    s = AppSettings()
    sim = s.fl_config()
    assert (sim.secagg_shares, sim.secagg_threshold, sim.clip_norm, sim.delta) == (
        s.secagg_shares,
        s.secagg_threshold,
        s.clip_norm,
        s.delta,
    )
    assert replace(s, lr=None).fl_config().learning_rate == 0.05

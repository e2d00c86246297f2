"""Loading spaCy for NER does not import what NER does not use (torch, presidio-analyzer).

Each check runs in a fresh interpreter: what a process has imported is the point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("spacy")

SRC = str(Path(__file__).resolve().parents[3] / "src")

_PROBE = """
import json, sys
from veil.text.ner._ner import load_spacy
nlp, name = load_spacy()
doc = nlp("Call John Smith in Boston.")
ents = [(e.text, e.label_) for e in doc.ents]
loaded = [m for m in ("torch", "presidio_analyzer") if m in sys.modules]
import importlib.util
torch_importable = importlib.util.find_spec("torch") is not None
if torch_importable:
    import torch  # still importable after spaCy was imported without it
    torch.zeros(1)
print(json.dumps({"loaded": loaded, "ents": ents, "pipes": nlp.pipe_names}))
"""


def _run(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _has_model() -> bool:
    from veil.text.ner._ner import best_english_model

    return best_english_model() is not None


@pytest.mark.skipif(not _has_model(), reason="no English spaCy pipeline installed")
def test_ner_pipeline_loads_without_torch_or_presidio() -> None:
    import importlib.util

    if any(
        importlib.util.find_spec(m) for m in ("spacy_transformers", "spacy_curated_transformers")
    ):
        pytest.skip("a transformer pipeline package is installed: thinc needs torch then")
    out = _run(_PROBE)
    assert out["loaded"] == [], f"NER start-up imported {out['loaded']}"
    assert out["pipes"] == ["ner"] or "ner" in out["pipes"]
    assert ("John Smith", "PERSON") in [tuple(e) for e in out["ents"]]


def test_torch_already_loaded_is_left_to_thinc() -> None:
    pytest.importorskip("torch")
    out = _run(
        "import json, sys, torch\n"
        "from veil.text.vocab._spacy_load import import_spacy\n"
        "import_spacy()\n"
        "from thinc.compat import has_torch\n"
        "print(json.dumps({'has_torch': has_torch, 'loaded': ['torch'], 'ents': [], 'pipes': []}))"
    )
    assert out["has_torch"] is True


def test_hiding_torch_leaves_it_importable() -> None:
    pytest.importorskip("torch")
    out = _run(
        "import json, sys\n"
        "from veil.text.vocab._spacy_load import import_spacy\n"
        "import_spacy()\n"
        "hidden = 'torch' in sys.modules\n"
        "import torch\n"
        "print(json.dumps({'has_torch': bool(torch.ones(2).sum() == 2), 'hidden': hidden,"
        " 'loaded': [], 'ents': [], 'pipes': []}))"
    )
    assert out["hidden"] is False and out["has_torch"] is True


_CLI_PROBE = """
import json, sys
from veil.text.vocab._spacy_load import import_spacy
spacy = import_spacy()
skipped = [m for m in ("spacy.cli", "weasel", "jinja2", "requests") if m in sys.modules]
version = spacy.info()["spacy_version"]  # spaCy's own info, imported on first call
download = spacy.cli.download.__module__  # the attribute works without 'import spacy.cli'
import spacy.cli
from spacy.cli import info as cli_info
real = sys.modules["spacy.cli"] is spacy.cli and cli_info.__module__ == "spacy.cli.info"
print(json.dumps({"skipped": skipped, "version": version, "download": download, "real": real,
                  "loaded": [], "ents": [], "pipes": []}))
"""


def test_spacy_command_line_is_imported_on_first_use() -> None:
    import spacy

    out = _run(_CLI_PROBE)
    assert out["skipped"] == [], f"import_spacy imported {out['skipped']}"
    assert out["version"] == spacy.__version__
    assert out["download"] == "spacy.cli.download"
    assert out["real"] is True


_BOTH = """
import json, sys
def train():
    import torch
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(16, 3), torch.randn(16, 1)
    for _ in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    return float(loss)
def detect():
    from veil.text import TextAnalyzer
    found = TextAnalyzer.from_config().analyze("Call John Smith in Boston at 555-123-4567.")
    return sorted(f.entity_type for f in found)
order = sys.argv[1]
steps = [train, detect] if order == "train-first" else [detect, train]
results = [step() for step in steps]
from thinc.compat import has_torch
print(json.dumps({"results": [r if isinstance(r, list) else r == r for r in results],
                  "has_torch": has_torch, "loaded": [], "ents": [], "pipes": []}))
"""


@pytest.mark.skipif(not _has_model(), reason="no English spaCy pipeline installed")
@pytest.mark.parametrize("order", ["train-first", "detect-first"])
def test_one_process_trains_with_torch_and_detects_text(order: str) -> None:
    pytest.importorskip("torch")
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", _BOTH, order], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    entities = next(r for r in out["results"] if isinstance(r, list))
    assert {"PERSON", "LOCATION", "PHONE_NUMBER"} <= set(entities)
    assert True in out["results"]  # the training loss is a number, not NaN
    # thinc sees torch when torch came first; either way both libraries work in one process
    assert out["has_torch"] is (order == "train-first")


@pytest.mark.skipif(not _has_model(), reason="no English spaCy pipeline installed")
def test_pipeline_loads_with_the_same_tokenizer_and_config_as_spacy_load(
    tmp_path: Path,
) -> None:
    from veil.text.ner._ner import best_english_model
    from veil.text.vocab._spacy_load import import_spacy, load_pipeline

    spacy = import_spacy()
    name = best_english_model()
    assert name is not None
    ours = load_pipeline(name, exclude=["parser", "lemmatizer"])
    theirs = spacy.load(name, exclude=["parser", "lemmatizer"])
    assert ours.tokenizer.to_bytes() == theirs.tokenizer.to_bytes()
    assert ours.config.to_str() == theirs.config.to_str()
    text = "Dr. O'Neil's e-mail: a.b@c.org, U.S.A. (don't) 3.5km https://x.io/a?b=1 :-)"
    assert [t.text for t in ours(text)] == [t.text for t in theirs(text)]
    assert [(e.text, e.label_) for e in ours(text).ents] == [
        (e.text, e.label_) for e in theirs(text).ents
    ]
    # a pipeline saved to a directory loads the same way
    ours.to_disk(tmp_path / "saved")
    again = load_pipeline(str(tmp_path / "saved"))
    assert again.tokenizer.to_bytes() == theirs.tokenizer.to_bytes()


def test_a_pipeline_whose_config_names_another_tokenizer_is_loaded_as_saved(
    tmp_path: Path,
) -> None:
    from veil.text.vocab._spacy_load import _stock_tokenizer, import_spacy

    spacy = import_spacy()
    nlp = spacy.blank("en")
    nlp.to_disk(tmp_path / "stock")
    assert _stock_tokenizer(spacy, str(tmp_path / "stock"), ())
    assert not _stock_tokenizer(spacy, str(tmp_path / "stock"), ["tokenizer"])
    assert not _stock_tokenizer(spacy, str(tmp_path / "stock"), "tokenizer")
    config = (tmp_path / "stock" / "config.cfg").read_text(encoding="utf-8")
    other = tmp_path / "other"
    nlp.to_disk(other)
    (other / "config.cfg").write_text(
        config.replace("spacy.Tokenizer.v1", "custom.Tokenizer.v1"), encoding="utf-8"
    )
    assert not _stock_tokenizer(spacy, str(other), ())
    (tmp_path / "stock" / "tokenizer").unlink()  # nothing saved to read over the blank one
    assert not _stock_tokenizer(spacy, str(tmp_path / "stock"), ())

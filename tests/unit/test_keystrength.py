"""Key strength: guessable keys are refused everywhere keys are read; random keys never are."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

import pytest

from veil import KeyMissingError, WeakKeyError
from veil._keystrength import key_check_value, text_bits, weak_key_reason
from veil.tabular import resolve_key
from veil.text.replacement._keys import load_key

WEAK = [
    "00" * 32,  # all zero
    "ab" * 16,  # one byte repeated
    "raw:" + "k" * 32,
    "00112233445566778899aabbccddeeff",  # a sequence
    bytes(range(7, 39)).hex(),
    "deadbeef" * 4,  # a 4-byte pattern
    "raw:password12password12",
    "raw:secretkey1234567",
    "raw:changemechangeme",
    "raw:correct horse battery staple",
    "raw:thisisnotasecretkey!",
    "raw:Pa55w0rd-Secret-K3y",
    "raw:qwertyuiopasdfghjkl",
    "raw:aaaaaaaaaaaaaaab",
    base64.b64encode(b"letmein!letmein!").decode(),  # text hidden in base64
    (b"\x01\x02" * 4 + b"\x03\x04" * 4).hex(),  # few distinct bytes
]


@pytest.mark.parametrize("text", WEAK)
def test_weak_keys_are_refused_by_tabular_transforms_without_echoing_them(text: str) -> None:
    with pytest.raises(WeakKeyError) as info:
        resolve_key(
            key_env="K", key_file=None, column="ssn", transform="hash", purpose="hmac",
            environ={"K": text},
        )  # fmt: skip
    assert isinstance(info.value, KeyMissingError) and info.value.exit_code == 2
    message = str(info.value)
    assert "veil keygen" in (info.value.hint or "")
    assert text not in message and text.removeprefix("raw:") not in message
    assert text[:8] not in message.replace("environment variable K", "")


@pytest.mark.parametrize("text", WEAK)
def test_weak_keys_are_refused_by_text_operators(text: str, monkeypatch) -> None:
    monkeypatch.setenv("VEIL_TEST_TEXT_KEY", text)
    with pytest.raises(WeakKeyError) as info:
        load_key(operator="hash", key_env="VEIL_TEST_TEXT_KEY")
    assert text.removeprefix("raw:") not in str(info.value)


def test_random_keys_are_never_refused() -> None:
    # keygen's keys in every length, and random printable passwords of 20 characters
    for _ in range(3000):
        for n in (16, 24, 32):
            assert weak_key_reason(secrets.token_bytes(n)) is None
    alphabet = "".join(chr(c) for c in range(0x21, 0x7F))
    for _ in range(2000):
        password = "".join(secrets.choice(alphabet) for _ in range(20))
        assert weak_key_reason(password.encode()) is None, text_bits(password)


def test_long_random_passphrases_pass_and_short_ones_do_not() -> None:
    assert weak_key_reason(b"raw:" + secrets.token_hex(32).encode()) is None
    assert weak_key_reason(b"correct horse battery staple") is not None
    assert text_bits("correct horse battery staple") < text_bits(secrets.token_urlsafe(24))


def test_key_check_value_is_keyed_and_short() -> None:
    key = secrets.token_bytes(32)
    expected = hmac.new(key, b"veil-kcv-v1", hashlib.sha256).hexdigest()[:16]
    assert key_check_value(key) == expected
    assert key_check_value(key) != key_check_value(secrets.token_bytes(32))
    assert key_check_value(key, b"tweak") != key_check_value(key)
    assert key.hex()[:16] not in expected  # not the key, nor an unkeyed hash of it
    assert hashlib.sha256(key).hexdigest()[:16] != expected


def test_the_text_stage_records_its_operators_key_check(tmp_path, monkeypatch) -> None:
    import pandas as pd

    from veil.pipeline import RunContext
    from veil.policy import Policy
    from veil.text.redaction._stage import TextStage

    key = "8b2f61d09ce4a37315f0b9d2c68e4a71"
    monkeypatch.setenv("VEIL_TEST_TEXT_KEY", key)
    notes = {"role": "text", "text": {"ner": False, "operator": "hash"}}
    notes["text"]["operator_options"] = {"key_env": "VEIL_TEST_TEXT_KEY"}
    policy = Policy.model_validate(
        {"data": {"path": str(tmp_path / "in.csv")}, "columns": {"notes": notes}}
    )
    df = pd.DataFrame({"notes": ["mail jo@example.com"]})
    ctx = RunContext(policy=policy, original=df, data=df.copy())
    TextStage().run(ctx)
    expected = hmac.new(bytes.fromhex(key), b"veil-kcv-v1", hashlib.sha256).hexdigest()[:16]
    assert ctx.report["text"]["columns"]["notes"]["key_check"] == expected
    assert key not in str(ctx.report)


@pytest.mark.parametrize("transform", ["hash", "tokenize", "date_shift"])
def test_keys_given_in_python_are_checked_too(transform: str) -> None:
    import pandas as pd

    from veil.tabular import (
        DateShiftTransformer,
        KeyedHashTransformer,
        Secret,
        TokenizeTransformer,
    )

    def run(key: Secret) -> None:
        if transform == "hash":
            KeyedHashTransformer(key=key).fit(frame["pid"])
        elif transform == "tokenize":
            TokenizeTransformer(key=key).fit(pd.Series(["123456789"]))
        else:
            DateShiftTransformer(key, column="visit", entity_column="pid").fit(frame)

    frame = pd.DataFrame({"visit": ["2024-01-01"], "pid": ["7"]})
    run(Secret(secrets.token_bytes(32)))
    with pytest.raises(WeakKeyError, match="one byte value repeated"):
        run(Secret(bytes(32)))


@pytest.mark.filterwarnings(
    "ignore:'click\\..*' is deprecated and will be removed in Click 9.0:DeprecationWarning"
)
def test_veil_run_with_a_weak_key_exits_2_before_reading_and_writes_nothing(
    tmp_path, capsys, monkeypatch
) -> None:
    from veil.cli import main

    (tmp_path / "policy.yaml").write_text(
        "data: {path: missing.csv}\n"
        "columns:\n"
        "  ssn: {role: identifier, transform: {type: tokenize, key_env: VEIL_TEST_FPE_KEY}}\n"
        "output: {path: out, format: csv}\n"
    )
    for weak in ("00" * 16, "raw:changemechangeme", "raw:Password1234567!"):  # 16 bytes each
        monkeypatch.setenv("VEIL_TEST_FPE_KEY", weak)
        code = main(["run", str(tmp_path / "policy.yaml")])
        err = capsys.readouterr().err
        assert code == 2, err
        assert "could be guessed" in err and "veil keygen" in err
        assert "not found" not in err  # refused before the (missing) data is read
        assert weak.removeprefix("raw:") not in err
        assert not (tmp_path / "out").exists()

"""Operators: output shapes, keys, reversibility, consistency, name variants, the vault."""

import re
from pathlib import Path

import pytest

from veil import KeyMissingError, PolicyError
from veil.text import TextAnalyzer, TextRedactor, TokenVault, decrypt_text, make_operator
from veil.text.recognition._checksums import card_issuer, iban_ok, luhn_ok, ssn_kind
from veil.text.replacement._operators import EncryptOperator, FpeOperator

KEY = "1791b37b9103c40c866e9b9baab2059a4f8062e54c06f170c2aeea735f1e4bb5"
KEY2 = "a5b57347f7345d5133e751c693721f2a8cb97f065b93987a0d7ece57945c5e32"


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("VEIL_HMAC_KEY", "VEIL_FPE_KEY", "VEIL_ENC_KEY", "VEIL_VAULT_KEY"):
        monkeypatch.setenv(var, KEY)


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer.from_config(ner=False)


def test_placeholder_and_numbered(analyzer: TextAnalyzer) -> None:
    text = "Mail a@example.com, b@example.com and A@example.com"
    plain = TextRedactor(analyzer, make_operator("placeholder")).redact(text).text
    assert plain == "Mail <EMAIL_ADDRESS>, <EMAIL_ADDRESS> and <EMAIL_ADDRESS>"
    numbered = TextRedactor(analyzer, make_operator("placeholder", {"numbered": True}))
    assert (
        numbered.redact(text).text
        == "Mail <EMAIL_ADDRESS_1>, <EMAIL_ADDRESS_2> and <EMAIL_ADDRESS_1>"
    )
    # per document by default: the next document starts at 1 again
    assert numbered.redact("b@example.com").text == "<EMAIL_ADDRESS_1>"


def test_redact_and_mask(analyzer: TextAnalyzer) -> None:
    text = "card 4111 1111 1111 1111."
    assert TextRedactor(analyzer, make_operator("redact")).redact(text).text == "card ."
    masked = TextRedactor(analyzer, make_operator("mask", {"keep_last": 4})).redact(text).text
    assert masked == "card **** **** **** 1111."


def test_unknown_operator_and_option() -> None:
    with pytest.raises(PolicyError, match="placeholder"):
        make_operator("shred")
    with pytest.raises(PolicyError, match="unknown option"):
        make_operator("mask", {"colour": "red"})


@pytest.mark.parametrize("op", ["hash", "fpe", "encrypt", "vault"])
def test_keyed_operators_refuse_without_key(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("VEIL_HMAC_KEY", "VEIL_FPE_KEY", "VEIL_ENC_KEY", "VEIL_VAULT_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(KeyMissingError):
        make_operator(op)


def test_short_key_refused_without_echoing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEIL_HMAC_KEY", "raw:tiny-secret")
    with pytest.raises(KeyMissingError) as err:
        make_operator("hash")
    assert "tiny-secret" not in str(err.value)


@pytest.mark.parametrize("value", ["hex:zz0011KEYMATERIAL", "base64:@@KEYMATERIAL@@"])
def test_undecodable_key_names_its_variable_not_its_value(
    value: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VEIL_HMAC_KEY", value)
    with pytest.raises(KeyMissingError) as err:
        make_operator("hash")
    message = str(err.value) + str(err.value.hint)
    assert "environment variable VEIL_HMAC_KEY" in message and "KEYMATERIAL" not in message
    key_file = tmp_path / "k.key"
    key_file.write_text(value)
    with pytest.raises(KeyMissingError, match=r"key file .*k\.key") as err:
        make_operator("hash", {"key_file": str(key_file)})
    assert "KEYMATERIAL" not in str(err.value)


def test_hash_is_keyed_and_normalised(keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    op = make_operator("hash")
    a = op.replace("617-555-0199", "PHONE_NUMBER")
    assert a == op.replace("(617) 555 0199", "PHONE_NUMBER")
    assert re.fullmatch(r"[0-9a-f]{16}", a)
    monkeypatch.setenv("VEIL_HMAC_KEY", KEY2)
    assert make_operator("hash").replace("617-555-0199", "PHONE_NUMBER") != a


def test_fpe_round_trip_keeps_format(keys: None) -> None:
    op = make_operator("fpe")
    assert isinstance(op, FpeOperator)
    for value, entity in [
        ("4111 1111 1111 1111", "CREDIT_CARD"),
        ("536-22-1234", "US_SSN"),
        ("GB82 WEST 1234 5698 7654 32", "IBAN_CODE"),
    ]:
        token = op.replace(value, entity)
        assert token != value
        assert [c.isdigit() for c in token] == [c.isdigit() for c in value]
        assert [c.isupper() for c in token] == [c.isupper() for c in value]
        assert op.decrypt(token, entity) == value


@pytest.mark.parametrize(
    ("value", "entity"),
    [("02139", "ZIP_CODE"), ("47", "AGE"), ("John Smith", "PERSON"), ("3/4", "DATE_TIME")],
)
def test_fpe_never_leaves_a_value_it_cannot_encrypt(keys: None, value: str, entity: str) -> None:
    """A character class under FF3-1's minimum (five digits, the two capitals of a name)
    used to stay as it was: the ZIP code came out in clear. Such a value now becomes a
    deterministic AES-SIV token, still reversible with the FPE key."""
    op = make_operator("fpe")
    assert isinstance(op, FpeOperator)
    token = op.replace(value, entity)
    assert token.startswith("ENC[") and token == op.replace(value, entity)
    assert not any(part in token for part in value.split() if len(part) > 1)
    assert op.decrypt(token, entity) == value
    assert op.too_short == 2


def test_encrypt_deterministic_and_random(keys: None) -> None:
    det = make_operator("encrypt")
    rnd = make_operator("encrypt", {"deterministic": False})
    assert isinstance(det, EncryptOperator)
    t1, t2 = det.replace("Jane Roe", "PERSON"), det.replace("Jane Roe", "PERSON")
    assert t1 == t2 and t1.startswith("ENC[") and "Jane" not in t1
    r1, r2 = rnd.replace("Jane Roe", "PERSON"), rnd.replace("Jane Roe", "PERSON")
    assert r1 != r2
    text = f"Patient {t1} and {r1}."
    assert decrypt_text(text) == "Patient Jane Roe and Jane Roe."


def test_decrypt_with_wrong_key_fails_cleanly(keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    token = make_operator("encrypt").replace("Jane Roe", "PERSON")
    monkeypatch.setenv("VEIL_ENC_KEY", KEY2)
    with pytest.raises(KeyMissingError) as err:
        decrypt_text(token)
    assert "Jane" not in str(err.value)


def test_surrogates_keep_type_and_validity(keys: None, analyzer: TextAnalyzer) -> None:
    op = make_operator("surrogate")
    card = op.replace("4111 1111 1111 1111", "CREDIT_CARD")
    assert re.fullmatch(r"\d{4} \d{4} \d{4} \d{4}", card) and luhn_ok(card) and card_issuer(card)
    ssn = op.replace("536-22-1234", "US_SSN")
    assert re.fullmatch(r"\d{3}-\d{2}-\d{4}", ssn) and ssn_kind(ssn) == "ssn"
    iban = op.replace("GB82 WEST 1234 5698 7654 32", "IBAN_CODE")
    assert iban.startswith("GB") and iban_ok(iban) and len(iban) == 27
    phone = op.replace("(617) 555-0199", "PHONE_NUMBER")
    assert re.fullmatch(r"\(\d{3}\) \d{3}-\d{4}", phone) and phone != "(617) 555-0199"
    email = op.replace("jo@example.com", "EMAIL_ADDRESS")
    assert "@" in email and email != "jo@example.com"
    date = op.replace("03/14/1985", "DATE_TIME")
    assert re.fullmatch(r"\d{2}/\d{2}/\d{4}", date)
    # a place of the same kind: a state's code, a state, a country; an initial stays one
    from veil.text.vocab._street_words import _STATE_NAMES, _STATES

    assert op.replace("CA", "LOCATION") in _STATES
    assert op.replace("Texas", "LOCATION") in _STATE_NAMES.split("|")
    assert op.replace("FRANCE", "LOCATION").isupper()
    assert re.fullmatch(r"[A-Z][a-z]+ [A-Z] [A-Z][\w'-]+", op.replace("Wulf G Wernecke", "PERSON"))
    assert re.fullmatch(r"[A-Z]\. [A-Z][\w'-]+", op.replace("F. Feliciano", "PERSON"))
    # a surrogate is itself detected as the same type
    for value, entity in [
        (card, "CREDIT_CARD"),
        (ssn, "US_SSN"),
        (iban, "IBAN_CODE"),
        (email, "EMAIL_ADDRESS"),
    ]:
        assert entity in {f.entity_type for f in analyzer.analyze(f"value {value} end")}


def test_surrogate_consistent_across_instances_and_keys(
    keys: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = make_operator("surrogate").replace("jo@example.com", "EMAIL_ADDRESS")
    b = make_operator("surrogate").replace("jo@example.com", "EMAIL_ADDRESS")
    assert a == b
    monkeypatch.setenv("VEIL_HMAC_KEY", KEY2)
    assert make_operator("surrogate").replace("jo@example.com", "EMAIL_ADDRESS") != a


def test_name_variants_share_a_replacement(keys: None) -> None:
    from veil.text import Finding

    text = "John Smith arrived. Mr. Smith said John would stay."
    spans = [(0, 10), (24, 29), (35, 39)]
    findings = [Finding(s, e, "PERSON", 0.9, "t", 2) for s, e in spans]
    red = TextRedactor(TextAnalyzer(), make_operator("surrogate"))
    out = red.apply(text, findings)
    first, last = out.split(" arrived")[0].split()
    assert out == f"{first} {last} arrived. Mr. {last} said {first} would stay."
    assert (first, last) != ("John", "Smith")
    # an initial stays an initial, linked or not
    text2 = "Wulf G. Wernecke arrived. Mr. Wernecke left."
    found2 = [Finding(0, 16, "PERSON", 0.9, "t", 2), Finding(30, 38, "PERSON", 0.9, "t", 2)]
    out2 = red.apply(text2, found2)
    m = re.fullmatch(r"(\w+) ([A-Z])\. (\w+) arrived\. Mr\. (\w+) left\.", out2)
    assert m is not None and m.group(3) == m.group(4) != "Wernecke", out2
    num = TextRedactor(TextAnalyzer(), make_operator("placeholder", {"numbered": True}))
    assert (
        num.apply(text, findings)
        == "<PERSON_1> arrived. Mr. <PERSON_1> said <PERSON_1> would stay."
    )


def test_vault_round_trip_and_audit(keys: None, tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'vault.db'}"
    op = make_operator("vault", {"url": url, "actor": "pipeline"})
    red = TextRedactor(TextAnalyzer.from_config(ner=False), op)
    out = red.redact_batch(["mail jo@example.com", "again jo@example.com"])
    token = out[0].text.split()[-1]  # type: ignore[union-attr]
    assert re.fullmatch(r"<EMAIL_ADDRESS_[0-9a-f]{12}>", token)
    assert out[1].text == f"again {token}"
    vault = TokenVault(url, bytes.fromhex(KEY))
    assert vault.lookup(token, actor="dpo", purpose="DSAR 17") == "jo@example.com"
    assert vault.lookup("<PERSON_000000000000>", actor="dpo", purpose="probe") is None
    log = vault.audit_log()
    assert [(r["actor"], r["purpose"], r["found"]) for r in log] == [
        ("dpo", "DSAR 17", True),
        ("dpo", "probe", False),
    ]
    with pytest.raises(KeyMissingError, match="different key"):
        TokenVault(url, bytes.fromhex(KEY2))

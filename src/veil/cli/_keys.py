"""Key-related commands: ``veil keygen`` and ``veil detokenize``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from veil.cli._ui import console, print_json

__all__ = ["register"]


def keygen(
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the key (hex) to this file, mode 0600."),
    ] = None,
    nbytes: Annotated[
        int,
        typer.Option(
            "--bytes", help="Key length in bytes: 16, 24 or 32 (32 suits every transform)."
        ),
    ] = 32,
    show: Annotated[
        bool, typer.Option("--print", help="Print the key itself on stdout (it is a secret).")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing key file.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print what was done as JSON.")] = False,
) -> None:
    """Make a random key for hash, tokenize and date_shift (from the OS's secure source).

    The key is written as hex to --out with mode 0600 and is shown only with --print. Point
    a transform at it with key_file: FILE, or export it in the variable its key_env names.
    """
    import secrets

    from veil._errors import InputError
    from veil.io import write_text_atomic

    if nbytes not in (16, 24, 32):
        raise InputError(
            f"--bytes must be 16, 24 or 32, got {nbytes}", hint="FF3-1 (AES) takes only these"
        )
    if out is None and not show:
        raise InputError("nothing to do", hint="give --out FILE, or --print to show the key")
    if out is not None and out.exists() and not force:
        raise InputError(
            f"{out} already exists; a key file is not overwritten",
            hint="choose another path, or add --force (data keyed with the old key cannot be "
            "matched or de-tokenized with a new one)",
        )
    from veil._keystrength import weak_key_reason

    key = secrets.token_hex(nbytes)
    while weak_key_reason(bytes.fromhex(key)) is not None:  # never in practice; never shipped
        key = secrets.token_hex(nbytes)
    if out is not None:
        write_text_atomic(out, key + "\n", mode=0o600)
    if json_:
        doc: dict[str, object] = {
            "bytes": nbytes,
            "encoding": "hex",
            "path": str(out) if out else None,
        }
        if show:
            doc["key"] = key
        print_json(doc)
        return
    if show:
        typer.echo(key)
    if out is not None:
        console.print(f"wrote a {nbytes}-byte key to {out} (mode 0600)", highlight=False)


def detokenize(
    input_: Annotated[Path, typer.Argument(metavar="INPUT", help="The released table.")],
    column: Annotated[
        list[str],
        typer.Option("--column", "-c", help="A tokenized column to restore (repeatable)."),
    ],
    policy: Annotated[Path, typer.Option("--policy", "-p", help="The policy that tokenized it.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the restored table.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    key_check: Annotated[
        Path | None,
        typer.Option(
            "--key-check",
            help="The release's key_check.json or report.json (default: the one beside INPUT).",
        ),
    ] = None,
    no_key_check: Annotated[
        bool,
        typer.Option(
            "--no-key-check",
            help="Restore without a recorded key check value (a wrong key then writes wrong "
            "values); for releases made before veil recorded them.",
        ),
    ] = False,
    json_: Annotated[
        bool, typer.Option("--json", help="Print counts and the output as JSON.")
    ] = False,
) -> None:
    """Restore the original values of tokenize columns, with the key the policy names.

    The key is checked against the key check value recorded with the release
    (key_check.json or report.json beside INPUT): a wrong key is refused (exit 2) and
    nothing is written. The output holds the identifiers in clear: it is written with
    mode 0600.
    """
    from veil._errors import InputError
    from veil.cli._ui import RichProgressAdapter, state
    from veil.io import write_table
    from veil.policy import load_policy
    from veil.tabular._detokenize import detokenize_table, read_release
    from veil.tabular._keycheck import find_key_checks

    if out.exists() and not force:
        raise InputError(f"{out} already exists", hint="choose another path, or add --force")
    if out.resolve() == input_.resolve():
        raise InputError("--out must differ from INPUT", hint="write the restored table elsewhere")
    if key_check is not None and no_key_check:
        raise InputError("--key-check and --no-key-check contradict each other", hint="give one")
    pol = load_policy(policy)
    checks = None if no_key_check else find_key_checks(input_, key_check)
    if checks is None and not no_key_check:
        raise InputError(
            f"no key check value was found for {input_} (no key_check.json or report.json "
            "recording one beside it), so a wrong key could not be told from the right one",
            hint="give the release's key check file with --key-check FILE, or add "
            "--no-key-check to restore anyway (a wrong key then writes wrong values)",
        )
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        table = read_release(input_)
        restored, counts = detokenize_table(
            table, pol, column, progress=progress, key_checks=checks
        )
        write_table(restored, out)
    if json_:
        print_json({"columns": counts, "output": str(out)})
        return
    for name, c in counts.items():
        console.print(
            f"  {name}: restored {c['restored']} of {c['rows']} value(s)", highlight=False
        )
    console.print(f"wrote {out}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("keygen")(keygen)
    app.command("detokenize")(detokenize)

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
    json_: Annotated[
        bool, typer.Option("--json", help="Print counts and the output as JSON.")
    ] = False,
) -> None:
    """Restore the original values of tokenize columns, with the key the policy names.

    The output holds the identifiers in clear: it is written with mode 0600.
    """
    from veil._errors import InputError
    from veil.cli._ui import RichProgressAdapter, state
    from veil.io import write_table
    from veil.policy import load_policy
    from veil.tabular._detokenize import detokenize_table, read_release

    if out.exists() and not force:
        raise InputError(f"{out} already exists", hint="choose another path, or add --force")
    if out.resolve() == input_.resolve():
        raise InputError("--out must differ from INPUT", hint="write the restored table elsewhere")
    pol = load_policy(policy)
    with RichProgressAdapter(enabled=not json_ and not state.quiet) as progress:
        table = read_release(input_)
        restored, counts = detokenize_table(table, pol, column, progress=progress)
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

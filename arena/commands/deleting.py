"""``arena delete``: remove a stored tournament and everything only it holds."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.commands.common import DEFAULT_DB, Db, err, out, sessions
from arena.core.text import printable

app = typer.Typer()


@app.command()
def delete(
    name: Annotated[str, typer.Argument(help="The tournament to delete (see 'arena tournaments').")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    db: Db = DEFAULT_DB,
) -> None:
    """Delete tournament NAME: its games and moves, its teams and pools, and the bot versions
    only it declared (registered bots stay). Refused while a run of it is going on."""
    from arena.contests.tournament import run_lock
    from arena.results.lookup import find_tournament
    from arena.store.writes import delete_tournament, tournament_contents

    with sessions(db, read_only=True).begin() as session:  # a name that is not there makes nothing
        tournament = find_tournament(session, name)
        shown = printable(repr(tournament.name))
        status = tournament.status
    with run_lock(db, name):
        store = sessions(db)
        if not yes:
            with store.begin() as session:
                contents = tournament_contents(session, tournament.id)
            question = f"Delete tournament {shown} ({status}): {contents.describe()}?"
            if not _confirm(question):
                err().print("nothing deleted", markup=False, highlight=False)
                raise typer.Exit(1)
        with store.begin() as session:
            removed = delete_tournament(session, name)
    if removed is None:  # deleted by another command between the look and the lock
        err().print(f"tournament {shown} is not in the database any more; nothing deleted", markup=False)
        raise typer.Exit(1)
    out().print(f"Deleted tournament {shown}: {removed.describe()}", markup=False, highlight=False)


def _confirm(question: str) -> bool:
    """Whether the person at the terminal answers yes to ``question`` (no by default, and when
    there is nothing more to read)."""
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:
        return False

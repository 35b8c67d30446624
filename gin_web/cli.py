"""``gin-rummy serve``: the web app's subcommand, added to the ``gin-rummy`` CLI through the
``gin_rummy.commands`` entry point (the CLI never imports the web app). Importing this
module needs only click; the app's own imports wait for the ``web`` extra's check."""

from __future__ import annotations

from pathlib import Path

import click

from gin_env.optional import MissingExtraError, require

__all__ = ["serve"]


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (loopback: only this machine can connect).")  # fmt: skip
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--data-dir", default="runs/web", show_default=True,
              type=click.Path(file_okay=False), help="Where the SQLite file of matches and "
              "decisions lives.")  # fmt: skip
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="A name this server answers to besides the loopback names and the --host "
              "address (repeat it; a request naming another host is refused).")  # fmt: skip
@click.option("--publish", is_flag=True, default=False,
              help="List every finished match to anyone who can reach the server "
              "(/api/matches); without it a match is listed only to those who were at its "
              "table.")  # fmt: skip
@click.option("--export", "export_dir", default=None, type=click.Path(file_okay=False),
              help="Write the finished matches (replay files), the decision data set and "
              "people against agents (people_vs_agents.json) under this directory, then "
              "exit.")  # fmt: skip
def serve(
    host: str,
    port: int,
    data_dir: str,
    allow_hosts: tuple[str, ...],
    publish: bool,
    export_dir: str | None,
) -> None:
    """The table in a browser at http://HOST:PORT: start tables of people and agents, play
    in any seat, watch agents, step through saved matches (needs the web extra:
    pip install "gin-env[web]")."""
    try:
        require("starlette", needed_for="gin-rummy serve")
        require("uvicorn", needed_for="gin-rummy serve")
    except MissingExtraError as err:
        raise click.ClickException(str(err)) from None
    from gin_web import app as web_app  # web extra: starlette, uvicorn
    from gin_web import people  # web extra: starlette, uvicorn
    from gin_web import store as web_store  # web extra: starlette, uvicorn

    try:
        store = web_store.Store(data_dir)
    except web_store.StoreError as err:
        raise click.ClickException(str(err)) from None
    if export_dir is not None:
        try:
            written = web_store.export(store, export_dir)
            result = people.results(store.records())
            people.write(Path(export_dir) / "people_vs_agents.json", result)
        finally:
            store.close()
        sets = ", ".join(
            f"{g}: {d['decisions']} decisions" for g, d in written["decisions"].items()
        )
        click.echo(f"wrote {len(written['matches'])} matches to {export_dir}/matches"
                   + (f"; {sets}" if sets else "; no decisions recorded")
                   + f"; people against agents in {export_dir}/people_vs_agents.json")  # fmt: skip
        for mid in written["refused"]:
            click.echo(f"refused match id {mid[:80]!r}: not a plain name (letters, digits, _ "
                       "and -): it would be written outside the matches folder",
                       err=True)  # fmt: skip
        return
    store.close()
    click.echo(f"gin-rummy serve: http://{host}:{port}/ (data in {data_dir}; Ctrl-C stops)")
    web_app.serve(host, port, data_dir, allow_hosts, publish=publish)

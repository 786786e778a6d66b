"""`steer view RUNS…`: browse every answer of runs of any size on localhost."""

from __future__ import annotations

from pathlib import Path

import click

from steer.cli._app import CliError


@click.command("view")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
    help="Port to serve on (0: any free one).",
)  # fmt: skip
@click.option(
    "--host", default="127.0.0.1", show_default=True,
    help="Address to bind; anything but localhost shows the answers to the network.",
)  # fmt: skip
@click.option(
    "--bank", type=click.Path(dir_okay=False, path_type=Path),
    help="The bank bare response tables answered (question texts, options, search).",
)  # fmt: skip
def view_cmd(runs: tuple[Path, ...], port: int, host: str, bank: Path | None) -> None:
    """Serve the report's pages for RUNS on a local HTTP server: every answer,
    filterable by card, element, domain, grade, outcome and error type,
    searchable by question text, each with its exact prompt and reply.
    Run directories are read lazily; Ctrl-C stops the server."""
    from steer.report.viewer import ViewerData, make_server

    data = ViewerData(list(runs), bank)
    data.table  # noqa: B018 — read now, so a bad input is one line and exit 2
    try:
        server = make_server(data, host, port)
    except OSError as exc:
        raise CliError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    bound_host, bound_port = server.server_address[:2]
    click.echo(f"steer view: http://{bound_host}:{bound_port}/ ({data.table.num_rows:,} answers; "
               "Ctrl-C stops)")  # fmt: skip
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()

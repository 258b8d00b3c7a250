"""`python -m realitybench_addon rate DIR` and `... ratings DIR` (see docs/ratings.md).

    rate DIR [--host H] [--port P] [--env ENV[,ENV]] [--stratum random|positive|all] [--per-env N] [--no-fields]
             [--passphrase-file FILE]     (or the passphrase in $REALITYBENCH_RATING_PASSPHRASE)
    ratings DIR [--presets DIR ...] [--held-out] [--import FILE] [--export FILE]
                [--apply-gray ENV.TERM ...] [--presets-out DIR] [--markdown FILE] [--clear-share S]
                [--min-ratings N]
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

from ..rating.errors import RatingsError
from .argtypes import ascii_float, ascii_int

PASSPHRASE_ENV = "REALITYBENCH_RATING_PASSPHRASE"


def add_parsers(sub) -> None:
    r = sub.add_parser("rate", help="serve a local rating page over an exported set; answers go to "
                                    "DIR/ratings.sqlite as they are given")
    r.add_argument("directory", help="an exported set")
    r.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                                                       "only; 0.0.0.0 lets raters on the network in)")
    r.add_argument("--port", type=ascii_int, default=8765, help="port (default 8765; 0: any free port)")
    r.add_argument("--env", default=None, help="ENV[,ENV...]: rate only these environments (default: all)")
    r.add_argument("--stratum", default="random", choices=("random", "positive", "all"),
                   help="which frames to rate (default random: positive frames are all scorer-accepted)")
    r.add_argument("--per-env", type=ascii_int, default=None, metavar="N",
                   help="offer only N frames of each environment, drawn once for all raters (the paper rated 30)")
    r.add_argument("--no-fields", action="store_true", help="do not offer the documentation fields")
    r.add_argument("--passphrase-file", default=None, metavar="FILE",
                   help=f"require a shared rater passphrase, read from the first line of FILE (or set "
                        f"${PASSPHRASE_ENV}); the page asks raters for it. Kept out of the command line so it "
                        f"stays out of the shell history")

    s = sub.add_parser("ratings", help="rater agreement, the scorer against the raters' majority, gray ranges "
                                       "suggested from rater splits; import and export ratings")
    s.add_argument("directory", help="an exported set with ratings")
    s.add_argument("--presets", action="append", default=[], metavar="DIR",
                   help="folder of preset TOML files searched before the shipped ones (repeatable); default: the "
                        "folders the set's manifest records, checked against the preset hashes it recorded")
    s.add_argument("--held-out", action="store_true",
                   help="also report the scorer on the held-out frames; freezes the scorer of every environment "
                        "reported (later gray edits there are refused)")
    s.add_argument("--import", dest="import_file", default=None, metavar="FILE",
                   help="add ratings from a CSV or JSONL file first (all or nothing)")
    s.add_argument("--export", dest="export_file", default=None, metavar="FILE",
                   help="write every rating to FILE (.csv or .jsonl)")
    s.add_argument("--apply-gray", nargs="+", default=[], metavar="ENV.TERM",
                   help="write the suggested gray range of these terms as preset edits into --presets-out and "
                        "report the rescored set")
    s.add_argument("--presets-out", default=None, metavar="DIR", help="where --apply-gray writes presets")
    s.add_argument("--markdown", default=None, metavar="FILE",
                   help="also write the report as Markdown (the paper's Table 13 layout, then the gray suggestions)")
    s.add_argument("--clear-share", type=ascii_float, default=2 / 3,
                   help="share of answers a clear majority needs, for gray suggestions (default 2/3)")
    s.add_argument("--min-ratings", type=ascii_int, default=3,
                   help="ratings a frame needs for the scorer-vs-majority figures (default 3)")


def _env_list(text):
    return [e.strip() for e in text.split(",") if e.strip()] if text else None



def _passphrase(args):
    """The rater passphrase from --passphrase-file or the environment; None for none."""
    from ..rating.server import check_passphrase

    from_env = os.environ.get(PASSPHRASE_ENV)
    if args.passphrase_file is not None and from_env is not None:
        raise RatingsError(f"--passphrase-file and ${PASSPHRASE_ENV} are both given: use one")
    if args.passphrase_file is not None:
        try:
            lines = Path(args.passphrase_file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise RatingsError(f"cannot read --passphrase-file {args.passphrase_file}: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
        passphrase, where = (lines[0].strip() if lines else ""), f"--passphrase-file {args.passphrase_file}"
    elif from_env is not None:
        passphrase, where = from_env.strip(), f"${PASSPHRASE_ENV}"
    else:
        return None
    try:
        return check_passphrase(passphrase)
    except RatingsError as exc:
        raise RatingsError(f"{where}: {exc}") from None


def run_rate(args) -> dict:
    from ..rating.server import RatingServer, RatingSession

    if not 0 <= args.port <= 65535:
        raise RatingsError(f"--port {args.port} is not a port number (0-65535)")
    passphrase = _passphrase(args)
    session = RatingSession(args.directory, _env_list(args.env), args.stratum, ask_fields=not args.no_fields,
                            per_environment=args.per_env)
    server = RatingServer(session, args.host, args.port, quiet=not args.verbose, passphrase=passphrase)
    # SIGTERM stops the page as Ctrl-C does (the summary is still printed). The handler only sets a flag:
    # an exception raised from a handler lands wherever the main thread happens to be (inside the
    # server's accept loop, or starting a request's thread), and could leave the process unable to exit.
    # Installed before the address is printed, so whoever reads the address can stop the page cleanly.
    stop_requested = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop_requested.set())
    try:
        _announce(server, args, passphrase)
        server.start()  # serves from its own thread; this one only waits for Ctrl-C or SIGTERM
        while not stop_requested.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
    ratings = session.store.ratings()
    return {"url": server.url, "database": str(session.store.path), "ratings": len(ratings),
            "raters": sorted({r.rater for r in ratings})}


def _announce(server, args, passphrase) -> None:
    """The page's address on stderr, and a warning when it is open to the network."""
    session = server.session
    print(f"rating page: {server.url}  ({len(session.items)} frames; answers go to {session.store.path}; "
          f"{'raters need the passphrase; ' if passphrase else ''}Ctrl-C stops)", file=sys.stderr, flush=True)
    if server.open_to_network:
        host, port = server.httpd.server_address[:2]
        if passphrase is None:
            print(f"warning: --host {args.host} opens the rating page to the network with no passphrase: anyone "
                  f"who reaches {host}:{port} can see the set's frames and write ratings; set ${PASSPHRASE_ENV} "
                  f"or --passphrase-file FILE to let in only raters who know it", file=sys.stderr, flush=True)
        else:
            print(f"warning: --host {args.host} opens the rating page to the network over plain HTTP: only "
                  f"raters with the passphrase get in, but it and their answers cross the network unencrypted",
                  file=sys.stderr, flush=True)


def run_ratings(args) -> dict:
    from ..setio import atomic_write
    from ..rating.files import ratings_file_bytes, read_ratings_file
    from ..rating.gray import apply_suggestions
    from ..rating.summary import RatedSet, rated_set, summarize, to_markdown

    if not 0.5 < args.clear_share <= 1:
        raise RatingsError(f"--clear-share {args.clear_share:g} must be above 0.5 and at most 1")
    if args.min_ratings < 2:
        raise RatingsError(f"--min-ratings {args.min_ratings} must be at least 2")
    if args.apply_gray and not args.presets_out:
        raise RatingsError("--apply-gray needs --presets-out DIR (the folder the edited presets go to)")
    if args.apply_gray and args.held_out:
        raise RatingsError("--apply-gray and --held-out cannot go together: tune first, then report held-out")
    if args.apply_gray:
        from ..core.presets import refuse_shipped_folder

        refuse_shipped_folder(args.presets_out, "--presets-out")  # before any work: shipped presets are never written
    done = {}
    rated = rated_set(args.directory, args.presets)  # the export's presets unless --presets says otherwise
    if args.import_file:
        ratings = read_ratings_file(args.import_file, rated.frame_keys())
        done["imported"] = rated.store.import_ratings(ratings, Path(args.import_file).name)
    options = dict(clear_share=args.clear_share, min_ratings=args.min_ratings)
    report = summarize(rated, held_out=args.held_out, **options)
    if args.apply_gray:
        written = apply_suggestions(rated.presets, report["gray_suggestions"], args.apply_gray, args.presets_out,
                                    rated.store.freezes())
        edited = RatedSet(args.directory, [args.presets_out, *rated.preset_dirs])
        report = summarize(edited, **options)
        changed = sorted(f for f in rated.verdicts if rated.verdicts[f] != edited.verdicts[f])
        done["applied"] = {"presets": written, "verdicts_changed": len(changed),
                           "changes": [{"frame_id": f, "from": rated.verdicts[f], "to": edited.verdicts[f]}
                                       for f in changed]}
    if args.export_file:
        path = Path(args.export_file)
        ratings = rated.store.ratings()
        data = ratings_file_bytes(ratings, path.suffix.lower())
        try:
            atomic_write(path, data)
        except OSError as exc:
            raise RatingsError(f"cannot write {path}: {exc.strerror or exc}") from None
        done["exported"] = {"file": str(path), "ratings": len(ratings)}
    if args.markdown:
        try:
            atomic_write(Path(args.markdown), to_markdown(report).encode())
        except OSError as exc:
            raise RatingsError(f"cannot write {args.markdown}: {exc.strerror or exc}") from None
        done["markdown"] = str(args.markdown)
    return {**done, **report}

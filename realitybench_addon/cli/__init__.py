"""The command line's subcommands that join libraries: `eval` (evaluation/, with human ratings from
rating/ in its report) and `rate` / `ratings` (rating/). __main__ parses and dispatches; the
libraries below never import each other (tests/test_import_contract.py)."""

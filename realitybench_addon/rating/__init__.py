"""Human ratings of an exported set: the rating page, the ratings database, and what they show.

The paper trusts its scorer because it agrees with human raters about as often as they agree
with each other, and sets its gray zones where raters split. This package is that loop:

    rate DIR      serve a local rating page over the set (server.py, page.html); every answer is
                  written at once to DIR/ratings.sqlite (store.py)
    ratings DIR   agreement between raters and of the scorer with their majority (agreement.py), on
                  the tuning part of a 60/40 split made once per set (split.py); the held-out part is
                  reported with --held-out, which freezes the scorer for that environment; gray ranges
                  suggested from where raters split, applied as preset edits and rescored (gray.py)

Ratings files (CSV or JSONL, for export and import) are described in files.py. Everything here is
pure Python (the standard library and numpy); nothing imports bpy.
"""

"""Closed-loop guidance (issue 42, docs/guidance-benchmark.md): can a model talk a worker into an acceptable photo?

actions.py (the grammar and the worker's moves, pure), episodes.py (the episode list), simulator.py (moves clamped
where a worker can be, the photo through pipeline.render_and_measure), loop.py (the resumable turn loop),
baselines.py (oracle, random walk, done at once; a model over eval run's providers), report.py, cli.py.
"""

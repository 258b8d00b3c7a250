"""The evaluation harness: ask vision-language models about an exported set, score them, report.

Pure Python (numpy; `requests` for the HTTP adapters, imported only when asking): no bpy,
no Blender. One idea per module:

    items       an exported set -> the items to ask (image, prompt, labels, documentation keys)
    real_photos a folder of real photographs labelled for the documentation questions -> items
    sets        which of the two a folder is
    providers   the three request/response shapes (OpenAI-compatible chat completions, Anthropic
                Messages, Gemini generateContent), usage normalisation, the checks each provider's
                rules need before the first request, the finish reasons of a cut reply
    profiles    named generation settings (`paper`, the default; `deterministic`)
    transport   HTTP: timeouts, retries with Retry-After and jittered backoff, concurrency, rpm
    runs        the append-only run store: request hashing, resume, secret scrubbing
    ask         asking a model about every item of a set (resumable; stops on a provider refusing all)
    failures    what a failed request says, on one scrubbed line
    baselines   runs that need no model: always accept, always reject
    grammar     strict reply grammar against an environment's keys (one per prompt variant); a lenient
                parser for diagnostics
    fields      per-field documentation scoring (the tolerance table, the breaker-row matching)
    counting    (answers/) which frames count for acceptability and documentation (the paper's rule, or all terms pass)
    scoring     one item's reply -> its scores; a run's replies -> per-item score rows
    metrics     acceptability and documentation metrics over (re)weighted items
    summary     a run's headline numbers with intervals (`eval rescore`)
    stats       stratified bootstrap, paired differences, Spearman, exact McNemar, Krippendorff's alpha
    pricing     dated price files and the cost of a run
    ratings     human ratings: agreement, alpha, the scorer against the raters' majority
    human_baseline   each rater's F1 [CI] and the runs on the same frames, the non-author pool, a human pass's cost
    report      Markdown + CSV tables like the paper's; plots: the figures (matplotlib, optional);
                tables: how numbers and tables are written
    ensembles   cross-fitted routing per environment, and the majority of the models
    top_groups  the leader and the runs not detectably worse (paired intervals)
    skills      documentation fields by skill (reading, judgment, measurement) and their correlations
    misreading  defects reported and wrong rejections on scorer-accepted frames (the paper's Table 12)
    rejected_documentation   fields on scorer-rejected against accepted random frames
    tokens      prompt, visible and thinking tokens per item, prompt share, ranks (Table 11)
    variants    runs of one model with other prompt variants: defect claims compared by McNemar (re-ask study)
    sim_to_real rendered against real photographs per question; Spearman and Pearson across models
    subsets     subsets of a set to ask: the paper's ablation items (`eval run --subset`)
    cost_figure the cost frontier, unpriced runs, the cost of a human pass and the single rater on the cost plots
    difficulty  scores against camera roll, pitch, px per text row, view angle, apparent size, unoccluded fraction
    latency     seconds per answered item per model run (median, p90) from replies' elapsed_s
    errors      EvalError, the one exception a user can cause
    cli         the `eval` subcommands of `python -m realitybench_addon`

Documentation: docs/evaluation.md.
"""

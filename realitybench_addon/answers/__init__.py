"""What model evaluation and human rating share: a set's items, how an answer's fields are scored
against the ground truth, and the statistics over answers (intervals, agreement). Neither
evaluation/ nor rating/ imports the other; both import this."""

"""Training, evaluation and tournaments over the gin envs (see :mod:`training.evaluate`)."""

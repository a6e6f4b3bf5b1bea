"""The learning bots' machinery: positions as features, games as datasets, small numpy networks,
their training and their model files."""

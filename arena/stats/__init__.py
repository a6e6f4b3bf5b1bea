"""Numbers only: the Elo fit with its intervals, two bots' match statistics, the sequential probability
ratio test and the little linear algebra they need. Imports nothing of arena but its errors."""

"""Runnable benchmarks that print figures (each file says what it measures); a package only so
that the type checker reads them as one."""

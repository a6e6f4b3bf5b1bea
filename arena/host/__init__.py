"""What runs inside a bot's process: the host program of Python bot modules (``python_host``), the
2019 course bots' host (``course_host``, a standalone file that runs under Python 2.7 too) and the
loading and checking of a bot module (``loader``)."""

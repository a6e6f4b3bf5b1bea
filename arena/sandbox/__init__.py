"""A bot process seen from outside: the wrapper that confines it (``wrapper``: namespaces, limits,
Landlock, seccomp), control groups, ``/proc``, the warm launcher that forks Python bots, the
process itself (``process``: started, fed, timed, killed), the reaper of what bots leave behind and
their scratch folders."""

"""Games played: a ``GameWorker`` that plays jobs with warm bot processes (``worker``), a seat played
by a bot process (``seat``), the local pool of worker processes (``local``), a Dask cluster
(``dask_runner``, ``dask_node``), the machine a game is played on (``machine``) and bots' paces
(``pace``). Jobs in, records out; the caller stores them."""

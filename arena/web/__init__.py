"""``arena serve``: the web app (``app``) over a database's tournaments (``site``), and a person
playing a bot in the browser (``playing``)."""

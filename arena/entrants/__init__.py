"""What a bot is, before it runs: its kinds (a Python module, a program speaking the protocol, a
2019 course file: ``kinds``), the built-in bots' parameters (``builtins``), course bot files
(``course``) and uploaded bots unpacked safely (``uploads``)."""

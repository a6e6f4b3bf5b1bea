"""A tournament file is validated before anything runs: a bad file gets a ``ConfigError`` whose
message names the field and says what is wrong with it (for YAML syntax, the line and column);
``arena run`` prints it without a traceback and exits 2."""

from __future__ import annotations

import json
import textwrap

import pytest

from arena.contests.config import load_config, parse_config
from arena.contests.preflight import PreflightError
from arena.errors import ConfigError
from tests.fixtures.harnesskit import BOTS, arena, arena_here, without_root_warning

TWO_BOTS = "bots:\n  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n"
FOUR_BOTS = TWO_BOTS + "  c: {module: bots.randombot}\n  d: {module: bots.randombot}\n"


def problems(text: str) -> list[str]:
    """The lines of the ConfigError that ``text`` raises, after its first."""
    with pytest.raises(ConfigError) as error:
        parse_config(text, "t.yaml")
    first, *rest = str(error.value).splitlines()
    assert first == "t.yaml is not a valid tournament:"
    return rest


def test_a_good_file_parses_with_the_documented_defaults():
    config = parse_config("name: t\ngame: tictactoe\n" + TWO_BOTS)
    assert (config.time.move, config.time.grace, config.time.startup) == (1.0, 0.05, 10.0)
    assert (config.limits.memory_mb, config.limits.file_size_mb) == (1024, 16)
    assert sorted(config.team_bots()) == ["a", "b"]


FIELD_ERRORS = {
    "missing-name": ("game: tictactoe\n" + TWO_BOTS, "name: Field required"),
    "bad-name": (
        "name: 'a/b'\ngame: tictactoe\n" + TWO_BOTS,
        "name: use letters, digits, spaces and . _ + - (at most 100)",
    ),
    "misspelt-section": (
        "name: t\ngame: tictactoe\nstage: []\n" + TWO_BOTS,
        "stage: unknown key 'stage' — did you mean 'stages'? (allowed here: name, game, seed, scoring, time, "
        "limits, workers, cluster, rating, bots, teams, stages, openings, roster)",
    ),
    "misspelt-field": (
        "name: t\ngame: tictactoe\ntime: {mvoe: 1}\n" + TWO_BOTS,
        "time.mvoe: unknown key 'mvoe' — did you mean 'move'? (allowed here: move, bank, increment, clock, "
        "grace, startup, backstop, on_overload, max_replays, pace)",
    ),
    "negative-move-time": (
        "name: t\ngame: tictactoe\ntime: {move: -1}\n" + TWO_BOTS,
        "time.move: Input should be greater than 0",
    ),
    "tiny-memory": (
        "name: t\ngame: tictactoe\nlimits: {memory_mb: 8}\n" + TWO_BOTS,
        "limits.memory_mb: Input should be greater than or equal to 16",
    ),
    "memory-in-exponent-notation": (  # YAML reads 1e20, without a dot, as text
        "name: t\ngame: tictactoe\nlimits: {memory_mb: 1e20}\n" + TWO_BOTS,
        "limits.memory_mb: at most 1048576 MB (1 TiB); null for no limit; got 1e+20",
    ),
    "file-size-as-a-word": (
        "name: t\ngame: tictactoe\nlimits: {file_size_mb: lots}\n" + TWO_BOTS,
        "limits.file_size_mb: Input should be a valid integer, unable to parse string as an integer",
    ),
    "workers-not-a-number": (
        "name: t\ngame: tictactoe\nworkers: many\n" + TWO_BOTS,
        "workers: Input should be a valid integer, unable to parse string as an integer",
    ),
    "no-games-per-pair": (
        "name: t\ngame: tictactoe\nstages:\n  - {games_per_pair: 0}\n" + TWO_BOTS,
        "stages.0.games_per_pair: Input should be greater than or equal to 1",
    ),
    "bad-game-parameter": (
        "name: t\ngame: {name: uttt, params: {tiebreak: coin}}\n" + TWO_BOTS,
        "game: game 'uttt': parameter 'tiebreak' cannot be 'coin'; choose one of 'none', 'boards'",
    ),
    "bot-with-two-targets": (
        "name: t\ngame: tictactoe\nbots:\n  a: {module: bots.randombot, path: x.py}\n  b: {module: bots.randombot}\n",
        "bots.a: give exactly one of module (e.g. bots.uct), path (a .py file), command (a "
        "program speaking the protocol), course (a 2019 course bot file) or an engine's command as uci, "
        "ugi or gtp; got module, path",
    ),
    "bot-without-target": (
        "name: t\ngame: tictactoe\nbots:\n  a: {params: {}}\n  b: {module: bots.randombot}\n",
        "bots.a: give exactly one of module (e.g. bots.uct), path (a .py file), command (a "
        "program speaking the protocol), course (a 2019 course bot file) or an engine's command as uci, "
        "ugi or gtp; got none",
    ),
    "command-with-params": (
        "name: t\ngame: tictactoe\nbots:\n  a: {command: node x.js, params: {a: 1}}\n  b: {module: bots.randombot}\n",
        "bots.a: a command bot takes its parameters on its command line, not params",
    ),
}


@pytest.mark.parametrize("case", FIELD_ERRORS)
def test_a_bad_field_is_named_with_what_is_wrong(case):
    text, line = FIELD_ERRORS[case]
    assert problems(text) == ["  " + line]


#: a file with a misspelt key at each level -> where it is, the key meant, and the first keys allowed there
MISSPELT_KEYS = {
    "top": (TWO_BOTS + "stagess: []\n", "stagess", "stages", "name, game, seed, scoring, time, limits, workers"),
    "game": (
        "game: {name: tictactoe, parms: {}}\n" + TWO_BOTS,
        "game.parms",
        "params",
        "name, module, openspiel, command, class, params",
    ),
    "bot": (TWO_BOTS + "  c: {modul: bots.randombot}\n", "bots.c.modul", "module", "module, path, command, course"),
    "team's bot": (TWO_BOTS + "teams:\n  a: a\n  b: {pth: x.py}\n", "teams.b.pth", "path", "module, path, command"),
    "stage": (
        TWO_BOTS + "stages:\n  - {name: groups, advance: 2}\n  - {name: final, gams_per_pair: 2}\n",
        "stages.1.gams_per_pair",
        "games_per_pair",
        "name, format, pools, seeding, games_per_pair, advance",
    ),
    "time": (TWO_BOTS + "time: {bnk: 60}\n", "time.bnk", "bank", "move, bank, increment, clock, grace, startup"),
    "limits": (TWO_BOTS + "limits: {memory: 512}\n", "limits.memory", "memory_mb", "memory_mb, file_size_mb"),
    "rating": (TWO_BOTS + "rating: {sigm: 5}\n", "rating.sigm", "sigma", "system, mu, sigma, beta, tau"),
    "cluster": (
        TWO_BOTS + "cluster: {address: 'tcp://h:8786', scale_tme: true}\n",
        "cluster.scale_tme",
        "scale_time",
        "address, scale_time, tls_ca_file, tls_cert, tls_key",
    ),
}


@pytest.mark.parametrize("case", MISSPELT_KEYS)
def test_a_misspelt_key_is_named_where_it_is_with_the_key_meant_and_the_keys_allowed_there(case):
    text, where, meant, allowed = MISSPELT_KEYS[case]
    game = "" if case == "game" else "game: tictactoe\n"
    (line,) = [line for line in problems("name: t\n" + game + text) if line.startswith(f"  {where}: ")]
    key = where.rsplit(".", 1)[-1]
    assert line.startswith(f"  {where}: unknown key {key!r} — did you mean {meant!r}? (allowed here: {allowed}")
    assert line.endswith(")") and "Extra inputs" not in line


def test_a_key_like_none_allowed_is_named_with_the_keys_allowed_there():
    assert problems("name: t\ngame: tictactoe\n" + TWO_BOTS + "banana: 1\n") == [
        "  banana: unknown key 'banana' (allowed here: name, game, seed, scoring, time, limits, workers, cluster, "
        "rating, bots, teams, stages, openings, roster)"
    ]


def test_an_unknown_game_is_named_with_the_games_there_are():
    (line,) = problems("name: t\ngame: chess\n" + TWO_BOTS)
    assert line.startswith("  game: unknown game 'chess'; the games are: ")
    assert {"tictactoe", "uttt"} <= set(line.split("the games are: ")[1].split(";")[0].split(", "))
    assert line.endswith("; for a game of your own, give its file: game: {module: path/to/game.py}")


def test_every_bad_field_is_reported_at_once():
    lines = problems("game: tictactoe\ntime: {move: 0}\nworkers: 0\n" + TWO_BOTS)
    assert lines == [
        "  name: Field required",
        "  time.move: Input should be greater than 0",
        "  workers: Input should be greater than or equal to 1",
    ]


STAGE_ERRORS = {
    "more-pools-than-teams": (
        "stages:\n  - {name: groups, pools: 4}\n",
        "  stages.0.pools: stage 'groups' has 4 pools for 3 teams",
    ),
    "no-advance-before-a-stage": (
        "stages:\n  - {name: groups, pools: 2}\n  - {name: final}\n",
        "  stages.0.advance: stage 'groups' needs 'advance' (teams a pool sends to the next stage)",
    ),
    "advance-more-than-a-pool": (
        "stages:\n  - {name: groups, pools: 2, advance: 3}\n  - {name: final}\n",
        "  stages.0.advance: stage 'groups': cannot advance 3 from pools of 2",
    ),
    "final-pools-of-one": (
        "stages:\n  - {name: groups, pools: 2, advance: 1}\n  - {name: final, pools: 2}\n",
        "  stages.1.pools: stage 'final' has pools of fewer than two teams",
    ),
}


@pytest.mark.parametrize("case", STAGE_ERRORS)
def test_stage_arithmetic_that_does_not_add_up_is_explained(case):
    stages, message = STAGE_ERRORS[case]
    teams = FOUR_BOTS if case != "more-pools-than-teams" else TWO_BOTS + "  c: {module: bots.randombot}\n"
    (line,) = problems("name: t\ngame: tictactoe\n" + teams + stages)
    assert line == message


FORMAT_ERRORS = {
    "unknown-format": (
        "  - {format: swis}\n",
        "  stages.0.format: unknown format 'swis'; the formats: round_robin, swiss, knockout, gauntlet, adaptive",
    ),
    "swiss-without-rounds": ("  - {format: swiss}\n", "  stages.0: format swiss needs rounds (e.g. rounds: 5)"),
    "swiss-no-rounds": (
        "  - {format: swiss, rounds: 0}\n",
        "  stages.0.rounds: Input should be greater than or equal to 1",
    ),
    "swiss-as-many-rounds-as-teams": (
        "  - {format: swiss, rounds: 4}\n",
        "  stages.0.rounds: stage 'swiss': a Swiss of 4 teams in all plays at most 3 rounds; got 4",
    ),
    "swiss-rounds-for-its-pools": (
        "  - {format: swiss, rounds: 2, pools: 2}\n",
        "  stages.0.rounds: stage 'swiss': a Swiss of 2 teams a pool plays at most 1 round; got 2",
    ),
    "knockout-in-pools": (
        "  - {format: knockout, pools: 2}\n",
        "  stages.0: a knockout stage plays in one pool; remove pools: 2",
    ),
    "rounds-of-a-knockout": (
        "  - {format: knockout, rounds: 2}\n",
        "  stages.0: rounds is a setting of format swiss; this stage's format is knockout, so remove rounds or set "
        "format: swiss",
    ),
    "knockout-of-one-team": (
        "  - {advance: 1}\n  - {format: knockout}\n",
        "  stages.1: stage 'knockout': a knockout needs at least two teams; advance more from the stage before",
    ),
    "gauntlet-without-named": (
        "  - {format: gauntlet}\n",
        "  stages.0: format gauntlet needs named (e.g. named: [mine])",
    ),
    "gauntlet-of-an-unknown-team": (
        "  - {format: gauntlet, named: [a, zed]}\n",
        "  stages.0.named: stage 'gauntlet': no team 'zed'; the teams: a, b, c, d",
    ),
    "gauntlet-naming-a-team-twice": ("  - {format: gauntlet, named: [a, a]}\n", "  stages.0: named lists a team twice"),
    "gauntlet-after-a-stage": (
        "  - {advance: 2}\n  - {format: gauntlet, named: [a]}\n",
        "  stages.1.format: stage 'gauntlet': a gauntlet is the first stage (its named teams must all be in its field)",
    ),
    "adaptive-without-budget": (
        "  - {format: adaptive}\n",
        "  stages.0: format adaptive needs budget (e.g. budget: 200)",
    ),
    "adaptive-budget-under-its-round-robin": (
        "  - {format: adaptive, budget: 10}\n",
        "  stages.0.budget: stage 'adaptive': the budget counts the first round robin's 12 games; give at least 12 "
        "(or fewer games_per_pair)",
    ),
    "adaptive-cut-under-everyone": (
        "  - {format: adaptive, budget: 20, advance: 4}\n",
        "  stages.0.advance: stage 'adaptive': the cut must leave someone out: advance fewer than its 4 teams",
    ),
}


@pytest.mark.parametrize("case", FORMAT_ERRORS)
def test_a_stage_format_that_cannot_be_played_is_explained(case):
    stages, message = FORMAT_ERRORS[case]
    assert problems("name: t\ngame: tictactoe\n" + FOUR_BOTS + "stages:\n" + stages) == [message]


def test_each_format_parses_with_its_settings_and_a_stage_is_named_for_its_format():
    config = parse_config(
        "name: t\ngame: tictactoe\n" + FOUR_BOTS + "stages:\n"
        "  - {format: gauntlet, named: [d], advance: 4}\n"
        "  - {format: swiss, rounds: 3, advance: 4}\n"
        "  - {format: adaptive, budget: 20, games_per_pair: 1, advance: 2}\n"
        "  - {format: knockout}\n"
    )
    assert [(s.name, s.format, s.rounds, s.named, s.budget) for s in config.stages] == [
        ("gauntlet", "gauntlet", None, ["d"], None),
        ("swiss", "swiss", 3, None, None),
        ("adaptive", "adaptive", None, None, 20),
        ("knockout", "knockout", None, None, None),
    ]
    assert parse_config("name: t\ngame: tictactoe\n" + FOUR_BOTS).stages[0].format == "round_robin"


def test_a_stage_arithmetic_error_is_located_at_the_stage_not_the_top():
    (line,) = problems(
        "name: t\ngame: tictactoe\n" + FOUR_BOTS + "stages:\n  - {name: groups, pools: 2, advance: 3}\n"
        "  - {name: final}\n"
    )
    assert line == "  stages.0.advance: stage 'groups': cannot advance 3 from pools of 2"


def test_one_team_is_not_a_tournament():
    (line,) = problems("name: t\ngame: tictactoe\nbots:\n  a: {module: bots.randombot}\n")
    assert line == "  bots: a tournament needs at least two teams (under teams:, or bots: when every bot is a team)"


def test_a_yaml_syntax_error_gives_its_line_and_column():
    text = "name: t\ngame: tictactoe\nbots:\n  a: {module: bots.randombot\n  b: {module: bots.randombot}\n"
    with pytest.raises(ConfigError) as error:
        parse_config(text, "t.yaml")
    assert str(error.value) == "t.yaml: not valid YAML at line 5, column 4: expected ',' or '}', but got ':'"


def test_a_tab_in_the_indentation_gives_its_line():
    with pytest.raises(ConfigError) as error:
        parse_config("name: t\ngame: tictactoe\nbots:\n\ta: {module: bots.randombot}\n", "t.yaml")
    assert (
        str(error.value)
        == "t.yaml: not valid YAML at line 4, column 1: found character '\\t' that cannot start any token"
    )


def test_a_file_that_is_not_a_mapping_is_refused():
    with pytest.raises(ConfigError) as error:
        parse_config("- a\n- b\n", "t.yaml")
    assert str(error.value) == "t.yaml: expected a mapping with at least name, game and bots or teams; got list"


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "nope.yaml")
    assert str(error.value) == f"no tournament file {str(tmp_path / 'nope.yaml')!r}"


def test_the_same_tournament_written_differently_has_the_same_digest():
    spaced = parse_config("name: t\ngame: {name: tictactoe}\n" + TWO_BOTS)
    terse = parse_config(
        textwrap.dedent("""\
        # the same tournament, other spelling
        bots: {a: {module: bots.randombot}, b: {module: bots.randombot}}
        game: tictactoe
        name: t
        time: {move: 1.0}
    """)
    )
    assert spaced.digest() == terse.digest()


# ---------------------------------------------------------------- through arena run


def test_arena_run_prints_the_config_error_and_exits_2(tmp_path):
    (tmp_path / "t.yaml").write_text("name: t\ngame: chess\n" + TWO_BOTS)
    result = arena("run", "t.yaml", "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: t.yaml is not a valid tournament:\n  game: unknown game 'chess'; ")
    assert "Traceback" not in result.stderr


def test_arena_run_names_a_misspelt_key_with_the_key_meant_and_stores_nothing(tmp_path):
    (tmp_path / "t.yaml").write_text("name: t\ngame: tictactoe\n" + TWO_BOTS + "stagess:\n  - {name: league}\n")
    result = arena_here("run", "t.yaml", "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    assert (result.returncode, without_root_warning(result.stderr)) == (
        2,
        "error: t.yaml is not a valid tournament:\n  stagess: unknown key 'stagess' — did you mean 'stages'? "
        "(allowed here: name, game, seed, scoring, time, limits, workers, cluster, rating, bots, teams, stages, "
        "openings, roster)\n",
    )
    assert not (tmp_path / "a.db").exists()


def test_a_team_playing_an_unknown_bot_is_refused_and_nothing_is_stored(cli, tmp_path):
    (tmp_path / "t.yaml").write_text("name: t\ngame: tictactoe\nteams:\n  a: ghost\n  b: {module: bots.randombot}\n")
    result = cli("run", str(tmp_path / "t.yaml"))
    assert isinstance(result.exception, PreflightError)
    assert str(result.exception) == (
        f"{tmp_path / 't.yaml'}: 1 problem with the tournament's bots; nothing was stored or played:\n"
        "  teams.a: team 'a' plays bot 'ghost', which is neither under bots: nor registered; "
        "known bots: none (see 'arena bots', 'arena register')"
    )
    assert json.loads(cli("tournaments", "--json").output) == []


def test_a_bot_file_that_does_not_exist_is_named_with_where_it_was_looked_for(cli, tmp_path):
    (tmp_path / "t.yaml").write_text(
        "name: t\ngame: tictactoe\nbots:\n  a: {path: missing.py}\n  b: {module: bots.randombot}\n"
    )
    result = cli("run", str(tmp_path / "t.yaml"))
    assert str(result.exception).splitlines()[1:] == [f"  bots.a: no bot file 'missing.py' (looked in {tmp_path})"]


def test_a_bot_module_that_does_not_exist_is_refused(cli, tmp_path):
    (tmp_path / "t.yaml").write_text(
        "name: t\ngame: tictactoe\nbots:\n  a: {module: bots.no_such_bot}\n  b: {module: bots.randombot}\n"
    )
    result = cli("run", str(tmp_path / "t.yaml"))
    assert (
        str(result.exception)
        .splitlines()[1]
        .startswith("  bots.a: no bot module 'bots.no_such_bot': give a dotted module name")
    )


def test_the_unknown_bot_error_lists_the_registered_bots(cli, tmp_path):
    assert cli("register", str(BOTS / "first_legal.py"), "--name", "firstie").exit_code == 0
    (tmp_path / "t.yaml").write_text("name: t\ngame: tictactoe\nteams:\n  a: ghost\n  b: firstie\n")
    result = cli("run", str(tmp_path / "t.yaml"))
    assert str(result.exception).endswith("known bots: firstie (see 'arena bots', 'arena register')")


def test_a_cluster_is_an_address_or_its_settings_and_not_part_of_the_tournament():
    plain = parse_config("name: t\ngame: tictactoe\n" + TWO_BOTS, "t.yaml")
    short = parse_config("name: t\ngame: tictactoe\ncluster: tcp://10.0.0.1:8786\n" + TWO_BOTS, "t.yaml")
    full = parse_config(
        "name: t\ngame: tictactoe\ncluster: {address: tls://head:8786, scale_time: true, tls_ca_file: ca.pem, "
        "tls_cert: c.pem, tls_key: c.key}\n" + TWO_BOTS,
        "t.yaml",
    )
    assert short.cluster is not None and (short.cluster.address, short.cluster.scale_time) == (
        "tcp://10.0.0.1:8786",
        False,
    )
    assert full.cluster is not None and (full.cluster.address, full.cluster.tls_key) == ("tls://head:8786", "c.key")
    assert plain.digest() == short.digest() == full.digest()  # a run may resume elsewhere


def test_a_cluster_with_a_bad_address_or_half_its_tls_files_is_refused():
    said = problems("name: t\ngame: tictactoe\ncluster: http://head:8786\n" + TWO_BOTS)
    assert said[0].startswith("  cluster.address: String should match pattern")
    said = problems("name: t\ngame: tictactoe\ncluster: {address: tls://head:8786, tls_cert: c.pem}\n" + TWO_BOTS)
    assert said == ["  cluster: give tls_ca_file, tls_cert and tls_key together, or none of them"]


def test_a_refused_run_leaves_none_of_the_folders_it_made_for_its_database(tmp_path):
    (tmp_path / "t.yaml").write_text("name: t\ngame: tictactoe\nteams:\n  a: ghost\n  b: {module: bots.randombot}\n")
    database = tmp_path / "season" / "2026" / "db" / "arena.sqlite3"
    result = arena_here("run", "t.yaml", "--db", f"sqlite:///{database}", cwd=tmp_path)
    assert result.returncode == 2 and "nothing was stored or played" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.yaml"]

"""A user's game without editing arena: by path beside the tournament file, by dotted name, or
from an installed package's ``arena.games`` entry point; its code hashed with its tournament."""

from __future__ import annotations

import re
import shutil
import sys

import pytest

from arena.contests.config import GameDef, TimeDef, parse_config
from arena.contests.season import SeasonError
from arena.contests.tournament import TournamentError
from arena.errors import ConfigError
from arena.games import get_game, get_game_from_spec
from arena.games.loading import GameLoadError, code_hash, load_game
from tests.fixtures.harnesskit import REPO, cli  # noqa: F401 (a fixture)

CONNECT4 = REPO / "examples" / "games" / "connect4.py"
TOURNAMENT = """name: c4
game: {module: games/connect4.py, params: {rows: 5, cols: 6}}
time: {move: 1.0}
bots:
  a: {module: bots.randombot}
  b: {module: bots.randombot}
"""


@pytest.fixture
def folder(tmp_path):
    """A tournament folder with its game in games/connect4.py."""
    (tmp_path / "games").mkdir()
    shutil.copy(CONNECT4, tmp_path / "games" / "connect4.py")
    (tmp_path / "t.yaml").write_text(TOURNAMENT)
    return tmp_path


def test_a_game_path_is_read_beside_the_tournament_file_and_its_spec_names_its_code(folder):
    config = parse_config(TOURNAMENT, "t.yaml", folder)
    spec = config.game.spec()
    assert spec == {
        "name": "connect4",
        "params": {"rows": 5, "cols": 6},
        "module": str(folder / "games" / "connect4.py"),
        "class": "Connect4",
        "code_hash": code_hash(folder / "games" / "connect4.py"),
    }
    game = get_game_from_spec(spec)
    assert (game.name, game.players, game.max_length()) == ("connect4", 2, 30)
    assert config.game.model_dump() == {"name": "connect4", "module": spec["module"], "params": {"rows": 5, "cols": 6}}


def test_a_game_file_that_is_missing_or_wrong_is_a_clear_config_error(folder):
    with pytest.raises(ConfigError, match=r"game file .*nothere\.py' does not exist"):
        parse_config(TOURNAMENT.replace("games/connect4.py", "nothere.py"), "t.yaml", folder)
    (folder / "empty.py").write_text("X = 1\n")
    with pytest.raises(ConfigError, match=r"defines no game: write a subclass of arena\.games\.Game"):
        parse_config(TOURNAMENT.replace("games/connect4.py", "empty.py"), "t.yaml", folder)
    (folder / "broken.py").write_text("import nothing_like_this\n")
    with pytest.raises(ConfigError, match="failed to import: ModuleNotFoundError: No module named 'nothing_like_this'"):
        parse_config(TOURNAMENT.replace("games/connect4.py", "broken.py"), "t.yaml", folder)
    with pytest.raises(ConfigError, match="parameter 'rows' cannot be 2"):
        parse_config(TOURNAMENT.replace("rows: 5", "rows: 2"), "t.yaml", folder)


def test_a_changed_game_is_refused_when_its_spec_is_loaded(folder):
    spec = parse_config(TOURNAMENT, "t.yaml", folder).game.spec()
    with (folder / "games" / "connect4.py").open("a") as file:
        file.write("\n# changed\n")
    with pytest.raises(GameLoadError, match="changed since its tournament began"):
        get_game_from_spec(spec)


def test_a_tournament_of_a_users_game_runs_and_does_not_resume_with_changed_code(folder, cli, monkeypatch):  # noqa: F811
    monkeypatch.chdir(folder)
    ran = cli("run", "t.yaml", "-q")
    assert ran.exit_code == 0, ran.output
    standings = cli("standings", "c4")
    assert standings.exit_code == 0 and "W-D-L" in standings.output
    with (folder / "games" / "connect4.py").open("a") as file:
        file.write("\n# changed\n")
    again = cli("run", "t.yaml", "-q")
    assert isinstance(again.exception, TournamentError)
    assert str(again.exception).startswith(f"the code of game 'connect4' ({folder / 'games' / 'connect4.py'}) changed")
    assert "changed since tournament 'c4' started, so resuming would mix two games" in str(again.exception)


def test_an_installed_package_offers_its_game_by_name(tmp_path, monkeypatch):
    package = tmp_path / "mygames"
    package.mkdir()
    shutil.copy(CONNECT4, package / "connect4.py")
    (package / "__init__.py").write_text("")
    info = tmp_path / "mygames-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mygames\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[arena.games]\nconnect4 = mygames.connect4:Connect4\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    game = get_game("connect4", rows=4, cols=4)
    assert (game.name, game.max_length()) == ("connect4", 16)
    assert game.spec()["module"] == "mygames.connect4" and game.spec()["class"] == "Connect4"
    assert get_game_from_spec(game.spec()) == game
    config = parse_config(TOURNAMENT.replace("{module: games/connect4.py,", "{name: connect4,"), "t.yaml", tmp_path)
    assert config.game.spec()["code_hash"] == code_hash(package / "connect4.py")
    sys.modules.pop("mygames.connect4", None)


def test_a_module_with_several_games_needs_its_class_named(tmp_path):
    two = tmp_path / "two.py"
    two.write_text(CONNECT4.read_text() + "\n\nclass Connect4Again(Connect4):\n    name = 'connect4b'\n")
    with pytest.raises(
        GameLoadError, match=r"defines several games \(Connect4, Connect4Again\): say which with class: NAME"
    ):
        load_game({"module": str(two)})
    assert load_game({"module": str(two), "class": "Connect4Again"}).name == "connect4b"


@pytest.mark.slow
def test_a_season_of_a_three_seat_game_seats_tables_of_three_on_its_ladder_and_freezes_a_final(tmp_path):
    from arena.contests.config import parse_config
    from arena.contests.season import create_season, freeze, play_ladder, standings, submit
    from arena.runners.local import LocalRunner
    from arena.store.database import open_store
    from arena.store.seasons import add_teams
    from arena.web.seasons import ladder_values

    goofspiel = REPO / "examples" / "games" / "goofspiel.py"
    sessions = open_store(f"sqlite:///{tmp_path / 's.db'}")
    game = GameDef(module=str(goofspiel), params={"players": 3, "cards": 5})
    create_season(sessions, "spring", game, TimeDef(move=1.0), tmp_path / "files")
    tokens = add_teams(sessions, "spring", ["red", "blue", "green", "gold"])
    random_bot = (REPO / "bots" / "randombot.py").read_bytes()
    for team in ("red", "blue"):
        outcome = submit(sessions, "spring", tokens[team], "rnd.py", random_bot)
        assert outcome.status == "active", outcome.log
        assert outcome.log.startswith("validated: a whole game against itself, ")
    with pytest.raises(SeasonError, match="has 2 active versions; its ladder needs 3, a game's seats"):
        play_ladder(sessions, "spring", LocalRunner(1), 1, 1)
    for team in ("green", "gold"):
        assert submit(sessions, "spring", tokens[team], "rnd.py", random_bot).status == "active"
    tables: list[tuple[str, ...]] = []
    played = play_ladder(sessions, "spring", LocalRunner(2), 8, 2, lambda record, names: tables.append(names))
    assert played == 8 and all(len(table) == 3 and len(set(table)) == 3 for table in tables)
    rows = standings(sessions, "spring")
    assert sorted(r.team for r in rows) == ["blue", "gold", "green", "red"]
    assert sum(r.games for r in rows) == 24 and all(r.sigma < 25 / 3 for r in rows)
    assert sum(r.wins for r in rows) + sum(r.draws for r in rows) >= 8  # every game has a first place
    page = ladder_values(sessions, "spring")
    assert len(page["games"]) == 8 and all(len(g["seats"]) == 3 for g in page["games"])
    assert all(re.search(r"(first|second|third)", g["result"]) for g in page["games"] if g["status"] == "finished")
    text = freeze(sessions, "spring", top=3, folder=tmp_path, games_per_pair=1)
    config = parse_config(text, "final.yaml", tmp_path)
    assert config.game.players == 3 and len(config.team_bots()) == 3


def test_arena_play_and_arena_match_take_a_game_by_its_file(folder):
    from tests.fixtures.harnesskit import arena

    game = str(folder / "games" / "connect4.py")
    played = arena("play", game, "--bot", "bots.randombot", "--db", "sqlite:///p.db", cwd=folder, input="quit\n")
    assert played.returncode == 0, played.stderr
    assert "You play x (first) against bots.randombot" in " ".join(played.stdout.split())
    matched = arena(
        "match",
        "bots.randombot",
        "bots.randombot",
        "--game",
        game,
        "--games",
        "2",
        "--db",
        "sqlite:///m.db",
        cwd=folder,
    )
    assert matched.returncode == 0, matched.stderr
    assert "Played 2 games: randombot" in matched.stdout
    goofspiel = str(REPO / "examples" / "games" / "goofspiel.py")
    refused = arena(
        "match", "bots.randombot", "bots.randombot", "--game", goofspiel, "--db", "sqlite:///m.db", cwd=folder
    )
    assert refused.returncode == 2
    assert f"error: --game {goofspiel!r}: a match is between two bots; goofspiel has 3 seats" in refused.stderr


def test_a_dataset_of_a_game_of_your_own_is_refused_saying_which_games_have_an_encoding():
    from arena.learning.features import NoEncoding, encoding_for

    with pytest.raises(NoEncoding) as error:
        encoding_for(load_game({"module": str(CONNECT4)}))
    assert str(error.value) == (
        "no encoding for game 'connect4': datasets and learning bots encode arena's four games "
        "(tictactoe, uttt, xtreme, othello) only"
    )


def test_arena_season_create_takes_a_game_file_and_its_parameters(tmp_path):
    from tests.fixtures.harnesskit import arena

    db = f"sqlite:///{tmp_path / 's.db'}"
    game = str(REPO / "examples" / "games" / "goofspiel.py")
    made = arena(
        "season", "create", "spring", "--game", game, "--param", "players=4", "-p", "cards=8", "--db", db, cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    assert "Created season 'spring': goofspiel," in made.stdout
    from arena.store.database import open_store
    from arena.store.seasons import get_season

    with open_store(db).begin() as session:
        stored = get_season(session, "spring").game
    assert stored["params"] == {"players": 4, "cards": 8} and stored["module"] == game
    wrong = arena("season", "create", "autumn", "--game", game, "--param", "players", "--db", db, cwd=tmp_path)
    assert wrong.returncode != 0 and "--param 'players': write it NAME=VALUE (e.g. size=6)" in wrong.stderr
    too_many = arena("season", "create", "autumn", "--game", game, "-p", "players=9", "--db", db, cwd=tmp_path)
    assert too_many.returncode != 0 and f"--game {game!r}: " in too_many.stderr

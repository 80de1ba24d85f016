"""The host's set-up from a shell: config.json, cells (entry points, drop-in folders),
``models``, ``demo``, ``--version`` and usage errors.

In-process through ``main(argv)``, except where the process is the point: which copy
of the cell's package a fresh interpreter imports from a drop-in folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_run import REPO, RUN_TIMEOUT, ask_json, cli_env, copy_cell_folder, run_cli, run_main

from cursor_simulator import Simulator
from cursor_simulator.agent import RUN_PATH
from cursor_simulator.models import RosterEntry


def test_version_still_answers(home: Path) -> None:
    done = run_main("--version", env=cli_env(home))
    assert done.returncode == 0
    assert done.stdout.strip() == "nodecode-cursor 0.1.0"


def test_models_json_lists_the_accounts_roster(sim: Simulator, home: Path) -> None:
    done = run_main("--base-url", sim.url, "models", "--json", env=cli_env(home))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["live"] is True and answer["reason"] is None
    served = sorted(entry.model_id for entry in sim.models.roster)
    assert [row["id"] for row in answer["models"]] == served
    assert all(row["context_window"] > 0 for row in answer["models"])


def test_models_show_what_the_catalog_says_of_each(sim: Simulator, home: Path) -> None:
    sim.models.roster = [
        RosterEntry("claude-sonnet-5-max", "Claude Sonnet 5 Max", max_mode=True),
        RosterEntry("composer-2.5", "Composer 2.5"),
    ]
    done = run_main("--base-url", sim.url, "models", "--json", env=cli_env(home))
    assert done.returncode == 0, done.stderr
    rows = {row["id"]: row for row in json.loads(done.stdout)["models"]}
    sonnet = rows["claude-sonnet-5-max"]
    assert sonnet["max_context_window"] == 1_000_000 and sonnet["thinking"] is True
    assert sonnet["parameters"]["effort"] == ["low", "medium", "high", "xhigh"]
    assert rows["composer-2.5"]["parameters"] == {}
    table = run_main("--base-url", sim.url, "models", env=cli_env(home))
    line = next(x for x in table.stdout.splitlines() if "claude-sonnet-5-max" in x)
    assert " 200k/1M " in line


def test_models_without_a_token_lists_the_bundled_rows_and_why(home: Path) -> None:
    env = cli_env(home, signed_out=True)
    done = run_main("models", "--json", env=env)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert answer["live"] is False
    assert "not signed in" in answer["reason"]
    assert answer["reason"] == (
        "Cursor is not signed in: run nodecode-cursor login, or set CURSOR_ACCESS_TOKEN"
    )
    assert "composer-2.5" in {row["id"] for row in answer["models"]}
    table = run_main("models", env=env)
    assert table.returncode == 0
    head = table.stdout.splitlines()[0]
    assert "the live list is missing: Cursor is not signed in" in head
    assert head.endswith("run nodecode-cursor login, or set CURSOR_ACCESS_TOKEN"), head


def test_models_table_columns_fit_the_longest_effort_list(home: Path) -> None:
    env = cli_env(home, signed_out=True)
    rows = json.loads(run_main("models", "--json", env=env).stdout)["models"]
    table = run_main("models", env=env)
    assert table.returncode == 0
    lines = table.stdout.splitlines()[1:]
    assert len(lines) == len(rows)
    assert "muse-spark-1.3" in {r["id"] for r in rows}  # the row the tester saw overflow
    starts = set()
    for line, row in zip(lines, rows, strict=True):
        assert line.startswith(f"  {row['id']} ")
        efforts = ",".join(row["efforts"]) or "-"
        assert f"  {efforts}  " in line, line  # at least two spaces before the name
        starts.add(line.index(row["name"], line.index(efforts) + len(efforts)))
    assert len(starts) == 1, starts  # every name starts in the same column


def test_drop_in_folder_loads_without_the_entry_point(sim: Simulator, home: Path) -> None:
    folder = copy_cell_folder(home / "cells" / "nodecode-cursor")
    # Entry points off: only the folder can give the lane, and nothing on PYTHONPATH
    # helps: the host puts the folder on the import path itself.
    env = cli_env(home, NODECODE_ENTRY_POINTS="0")
    done = run_cli(
        "-v", "--base-url", sim.url, "ask", "--json", "--tools", "none", "hi", env=env, cwd=home
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert json.loads(done.stdout)["message"]["content"].endswith("You said: hi")
    assert f"loaded cell nodecode-cursor from folder {folder}" in done.stderr
    assert f"(module {folder / 'nodecode_cursor' / 'cell.py'})" in done.stderr
    assert "from entry point" not in done.stderr


def test_a_drop_in_folder_wins_over_the_installed_package(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    # The package is installed (its entry point is on), and the folder holds a copy
    # marked as its own: the host must import the folder's copy, since it imports
    # nothing of the cell before loading the cells.
    folder = copy_cell_folder(tmp_path / "copy" / "nodecode-cursor")
    init = folder / "nodecode_cursor" / "__init__.py"
    marked = init.read_text().replace('__version__ = "0.1.0"', '__version__ = "0.1.0+drop-in"')
    assert marked != init.read_text()
    init.write_text(marked)
    (folder / "nodecode_cursor" / "DROP-IN-MARKER").write_text("the folder's copy\n")
    shutil.copytree(folder, home / "cells" / "nodecode-cursor")
    folder = home / "cells" / "nodecode-cursor"
    probe = (
        "import sys, nodecode_host.cli as cli; code = cli.main(sys.argv[1:]); "
        "import nodecode_cursor as c; print('VERSION', c.__version__, file=sys.stderr); "
        "raise SystemExit(code)"
    )
    argv = ["-v", "--base-url", sim.url, "ask", "--json", "--tools", "none", "hi"]
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv],
        env=cli_env(home),
        cwd=home,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert json.loads(done.stdout)["message"]["content"].endswith("You said: hi")
    assert f"loaded cell nodecode-cursor from folder {folder}" in done.stderr
    assert f"(module {folder / 'nodecode_cursor' / 'cell.py'})" in done.stderr
    assert "VERSION 0.1.0+drop-in" in done.stderr
    # The entry point names the same cell object: it is not loaded twice, nor warned about.
    assert "is already loaded" in done.stderr and "WARNING" not in done.stderr
    assert len(sim.requests_to(RUN_PATH)) == 1


def test_without_entry_points_or_folders_there_is_no_lane(sim: Simulator, home: Path) -> None:
    env = cli_env(home, NODECODE_ENTRY_POINTS="0")
    done = run_main("--base-url", sim.url, "ask", "--json", "hi", env=env)
    assert done.returncode == 2
    assert "no cell gives the cursor lane" in json.loads(done.stdout)["error"]["message"]
    assert not sim.requests_to(RUN_PATH)


def test_config_veto_leaves_no_lane_and_no_command(sim: Simulator, home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"cursor": {"enabled": False}}))
    done = run_main("--base-url", sim.url, "ask", "--json", "hi", env=cli_env(home))
    assert done.returncode == 2
    assert "disabled" in json.loads(done.stdout)["error"]["message"]
    status = run_main("status", env=cli_env(home))
    assert status.returncode == 2
    assert "disabled" in status.stderr
    assert not sim.requests_to(RUN_PATH)


def test_a_broken_config_json_is_a_config_error(home: Path) -> None:
    (home / "config.json").write_text("{not json")
    done = run_main("status", env=cli_env(home))
    assert done.returncode == 2
    assert "config.json" in done.stderr and "Traceback" not in done.stderr


def test_demo_runs_the_tool_handoff_to_the_final_answer(home: Path) -> None:
    env = cli_env(home, signed_out=True)
    done = run_main("demo", env=env)
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert "OFFLINE DEMO" in out and "not Cursor" in out
    assert "round 1" in out and "round 2" in out
    assert '→ read_file({"path": "release-notes.txt"})' in out
    final = "read_file returned: nodecode-cursor 0.1.0: the cursor lane"
    assert final in out
    assert out.index("round 2") < out.index(final)
    assert "2 rounds, finish stop" in out
    # The demo never touches the person's home.
    assert list(home.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ("--base-url", "BASE", "demo"),
        ("demo", "--base-url", "BASE"),
        ("--web-url", "BASE", "demo"),
    ],
)
def test_demo_refuses_a_url_it_would_never_use(
    sim: Simulator, home: Path, args: tuple[str, ...]
) -> None:
    done = run_main(*(sim.url if a == "BASE" else a for a in args), env=cli_env(home))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "bundled simulator" in done.stderr
    assert "--base-url" in done.stderr or "--web-url" in done.stderr
    assert "OFFLINE DEMO" not in done.stdout
    assert sim.requests == []  # the demo dialled nothing it was given


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"cursor": "x"}, ['"cursor"', "must be a JSON object", "not a string"]),
        ({"cursor": ["a"]}, ['"cursor"', "must be a JSON object", "an array"]),
        ({"cursor": {"enabled": "no"}}, ['"enabled"', "true or false", "not a string"]),
        ({"cursor": {"enabled": 0}}, ['"enabled"', "true or false", "not a number"]),
        ({"model": 5}, ['"model"', "a model id string", "not a number"]),
        ({"effort": True}, ['"effort"', "an effort string", "not true or false"]),
    ],
)
def test_a_config_value_of_the_wrong_shape_is_a_config_error(
    sim: Simulator, home: Path, config: dict[str, Any], names: list[str]
) -> None:
    (home / "config.json").write_text(json.dumps(config))
    for args in (("ask", "--tools", "none", "hi"), ("status",), ("models",)):
        done = run_main("--base-url", sim.url, *args, env=cli_env(home))
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert str(home / "config.json") in lines[0]
        for name in names:
            assert name in lines[0], (name, lines[0])
        assert "Traceback" not in done.stderr
    assert not sim.requests_to(RUN_PATH)


@pytest.mark.parametrize("text", ["", "  \n\t\n"])
def test_an_empty_config_json_counts_as_an_empty_object(
    sim: Simulator, home: Path, text: str
) -> None:
    (home / "config.json").write_text(text)
    answer = ask_json(sim, home, "--tools", "none", "hi")
    assert answer["message"]["content"].endswith("You said: hi")
    status = run_main("status", env=cli_env(home))
    assert status.returncode == 0, status.stderr


def test_an_unknown_model_or_effort_from_config_json_says_where_it_came_from(
    sim: Simulator, home: Path
) -> None:
    config = home / "config.json"
    config.write_text(json.dumps({"model": "gpt-5.9"}))
    done = run_main("--base-url", sim.url, "ask", "hi", env=cli_env(home))
    assert done.returncode == 2
    assert f'unknown model cursor/gpt-5.9 (the "model" in {config})' in done.stderr
    # The same name on the command line is the person's own: no pointer to the file.
    config.write_text("{}")
    argv = run_main("--base-url", sim.url, "ask", "--model", "gpt-5.9", "hi", env=cli_env(home))
    assert argv.returncode == 2 and "unknown model cursor/gpt-5.9" in argv.stderr
    assert "config.json" not in argv.stderr
    config.write_text(json.dumps({"model": "gpt-5.4", "effort": "max"}))
    effort = run_main("--base-url", sim.url, "ask", "hi", env=cli_env(home))
    assert effort.returncode == 2
    assert f"effort 'max' (the \"effort\" in {config}) is not supported" in effort.stderr
    assert not sim.requests_to(RUN_PATH)


@pytest.mark.parametrize("where", ["config", "history"])
def test_json_with_a_number_past_the_digit_limit_is_a_config_error(
    home: Path, tmp_path: Path, where: str
) -> None:
    huge = "{" + '"x": ' + "9" * 5000 + "}"
    if where == "config":
        (home / "config.json").write_text(huge)
        done = run_main("status", env=cli_env(home))
    else:
        history = tmp_path / "history.json"
        history.write_text("[" + huge + "]")
        done = run_main("ask", "--history", str(history), env=cli_env(home))
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("section", "named"),
    [
        ({"web_url": 5}, '"web_url"'),
        ({"proxy": ["x"]}, '"proxy"'),
        ({"enabled": "no"}, '"enabled"'),
    ],
)
def test_a_cursor_setting_of_the_wrong_kind_is_a_config_error(
    sim: Simulator, home: Path, section: dict[str, Any], named: str
) -> None:
    (home / "config.json").write_text(json.dumps({"cursor": section}))
    done = run_main("--base-url", sim.url, "ask", "hi", env=cli_env(home))
    assert done.returncode == 2, done.stderr
    assert named in done.stderr and "Traceback" not in done.stderr
    assert sim.requests_to("/agent.v1.AgentService/RunSSE") == []


def test_a_base_url_of_the_wrong_kind_is_refused_not_replaced_by_cursors() -> None:
    from nodecode_cursor.cell_settings import Settings
    from nodecode_cursor.errors import ConfigError

    with pytest.raises(ConfigError, match=r'"base_url" .* must be a string, not a number'):
        Settings.from_section({"base_url": 5})
    assert Settings.from_section({"base_url": "http://127.0.0.1:9/"}).base_url == (
        "http://127.0.0.1:9"
    )


def test_a_usage_error_is_json_only_for_a_command_that_takes_json(home: Path) -> None:
    done = run_main("status", "--json", env=cli_env(home))
    assert done.returncode == 2
    assert done.stdout == ""  # no JSON object for a command that has no --json
    assert done.stderr.strip() == (
        "nodecode-cursor: unrecognized arguments: --json (see nodecode-cursor status --help)"
    )
    asked = run_main("ask", "--json", "--bogus", "hi", env=cli_env(home))
    assert asked.returncode == 2
    message = json.loads(asked.stdout)["error"]["message"]
    assert "--bogus" in message and "(see nodecode-cursor ask --help)" in message


def test_a_drop_in_folder_without_its_package_is_refused(home: Path) -> None:
    # Only cell.toml: the module would resolve to the installed package, which is not
    # the folder's cell. The host refuses the folder and says why.
    folder = home / "cells" / "nodecode-cursor"
    folder.mkdir(parents=True)
    shutil.copy2(REPO / "cell.toml", folder / "cell.toml")
    done = run_cli("-v", "status", env=cli_env(home, NODECODE_ENTRY_POINTS="0"), cwd=home)
    assert done.returncode == 2, done.stderr + done.stdout
    assert (
        "warning: cell nodecode-cursor (folder) failed to load: the folder "
        f"{folder} holds no nodecode_cursor package (its cell.toml names "
        '"nodecode_cursor.cell:cell"); copy the package into the folder, or remove the folder'
    ) in done.stderr
    assert "loaded cell nodecode-cursor" not in done.stderr


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("127.0.0.1:46217", "has no scheme: add http://, as in http://127.0.0.1:46217"),
        ("api2.cursor.sh", "has no scheme: add https://, as in https://api2.cursor.sh"),
        ("ftp://127.0.0.1:1", "uses ftp://, which is not supported: use http://127.0.0.1:1"),
        (
            "http://cursor.example:8080",
            "would send tokens in clear (http:// is only for a loopback host such as "
            "127.0.0.1 or localhost): use https://cursor.example:8080",
        ),
    ],
)
def test_a_bad_base_url_names_the_flag_or_key_and_the_fix(home: Path, url: str, said: str) -> None:
    flag = run_main("--base-url", url, "status", env=cli_env(home))
    assert flag.returncode == 2
    assert flag.stderr == f"nodecode-cursor: --base-url {url} {said}\n"
    (home / "config.json").write_text(json.dumps({"cursor": {"base_url": url}}))
    key = run_main("status", env=cli_env(home))
    assert key.returncode == 2
    where = f'"base_url" in the "cursor" section of {home / "config.json"}'
    assert key.stderr == f"nodecode-cursor: {where} {url} {said}\n"


def test_no_command_prints_the_help_and_exits_2(home: Path) -> None:
    done = run_main(env=cli_env(home))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("usage: nodecode-cursor")


def test_a_config_json_others_may_write_is_a_config_error(home: Path) -> None:
    config = home / "config.json"
    config.write_text("{}")
    config.chmod(0o666)
    done = run_main("status", env=cli_env(home))
    assert done.returncode == 2
    assert done.stderr == (
        f"nodecode-cursor: {config} is writable by other users, who could redirect the "
        f"sign-in (fix: chmod go-w {config})\n"
    )


def test_demo_help_leaves_out_the_flags_it_refuses(home: Path) -> None:
    done = run_cli("demo", "--help", env=cli_env(home))
    assert done.returncode == 0
    assert "--base-url" not in done.stdout and "--web-url" not in done.stdout
    refused = run_main("demo", "--base-url", "https://example.invalid", env=cli_env(home))
    assert refused.returncode == 2
    assert "demo always runs against its own bundled simulator; --base-url" in refused.stderr


def test_demo_without_the_simulator_is_one_line(home: Path, tmp_path: Path) -> None:
    # A Python where cursor_simulator cannot be imported: a stand-in package that fails.
    blocker = tmp_path / "blocker" / "cursor_simulator"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("import jwt_not_installed_here\n")
    env = cli_env(home, PYTHONPATH=str(blocker.parent))
    done = run_cli("demo", env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "nodecode-cursor: the demo needs the bundled simulator (the cursor_simulator package "
        "and pyjwt), which could not be imported (jwt_not_installed_here is missing): install "
        "the project with pip install -e . from its repository\n"
    )


def test_the_cells_chat_hints_read_as_shell_commands() -> None:
    from nodecode_cursor.errors import MOVE_ASIDE_HINT, SIGN_IN_HINT
    from nodecode_host.setup import for_shell

    assert for_shell(f"run {SIGN_IN_HINT}", SIGN_IN_HINT) == "run nodecode-cursor login"
    assert for_shell(f"({MOVE_ASIDE_HINT} keeps it)", MOVE_ASIDE_HINT) == (
        "(nodecode-cursor logout --move-aside keeps it)"
    )
    assert for_shell(f"run {SIGN_IN_HINT}", None) == f"run {SIGN_IN_HINT}"

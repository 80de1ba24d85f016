"""The README's line per agent says what the agent tests configure.

The README's table "Per agent, one line" gives each agent the configuration that
points it at ``serve``. The tests that drive the agents (tests/host/test_serve_agents.py,
tests/host/test_serve_clients.py) configure them in code. This test reads both:
the README's code spans (environment assignments and the command, JSON config
files, TOML lines, client constructors) and, from the tests' source, what their
functions for that agent pass (``offline_env`` keywords, ``json.dumps`` objects,
``"\\n".join`` lines, the argv, the client constructors), with the server's URL and
the key in the README's words. Every README item must be the tests' own, and the
tests' base URL and key must be in the README: the two cannot drift apart.
An agent the tests do not drive yet (a row with no test function found) is not
checked; one they drive must have a row.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
AGENTS_TESTS = ROOT / "tests" / "host" / "test_serve_agents.py"
CLIENTS_TESTS = ROOT / "tests" / "host" / "test_serve_clients.py"
AI_SDK_SCRIPT = ROOT / "tests" / "host" / "node" / "ai_sdk_agent.cjs"

# The README's words for the server and the key; the tests' stand-ins for them.
URL = "http://127.0.0.1:8765/v1"
SERVER_ROOT = "http://127.0.0.1:8765"
KEY = "KEY"
TEST_KEYS = ("client-key", "unused")


class Opaque:
    """A value of the tests' own (a temporary path, a variable): no README item equals it."""

    def __repr__(self) -> str:
        return "<opaque>"


OPAQUE = Opaque()

# A config line naming the tests' key (YAML's ``apiKey: client-key``), in the README's words.
_KEY_LINE = re.compile(r"^(apiKey: )(?:client-key|unused)$")


@dataclass
class Config:
    """What configures one agent: environment, argv pairs, JSON files, TOML lines, clients."""

    env: dict[str, Any] = field(default_factory=dict)
    argv: list[Any] = field(default_factory=list)
    json: list[Any] = field(default_factory=list)
    toml: list[str] = field(default_factory=list)
    clients: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.env or self.json or self.toml or self.clients)


# README row -> (test file, what the name of its functions holds: an npm agent's setup
# function, a client test); rows the tests drive must be found.
ROWS: dict[str, tuple[Path, str, bool]] = {
    "Claude Code": (AGENTS_TESTS, "claude_setup", True),
    "Codex CLI": (AGENTS_TESTS, "codex_setup", True),
    "opencode": (AGENTS_TESTS, "opencode_setup", True),
    "pi-coding-agent": (AGENTS_TESTS, "pi_setup", True),
    "qwen-code": (AGENTS_TESTS, "qwen_setup", True),
    "Continue's `cn`": (AGENTS_TESTS, "cn_setup", True),
    "`openai` (Python)": (CLIENTS_TESTS, "openai", True),
    "`anthropic` (Python)": (CLIENTS_TESTS, "anthropic", True),
}


# --- the README ----------------------------------------------------------------------------


def readme_rows() -> dict[str, list[str]]:
    """Return {agent: the code spans of its configuration} from the README's table."""
    text = README.read_text(encoding="utf-8")
    start = text.index("**Per agent, one line.**")
    rows: dict[str, list[str]] = {}
    for line in text[start:].splitlines():
        if not line.startswith("| ") or line.startswith("| agent"):
            if rows and not line.startswith("|"):
                break
            continue
        agent, config = line.strip("| ").split(" | ", 1)
        rows[agent] = re.findall(r"`([^`]+)`", config)
    return rows


def readme_config(spans: list[str]) -> Config:
    """Return what the README's SPANS for one agent configure."""
    config = Config()
    for span in spans:
        if span.startswith("{"):
            config.json.append(json.loads(span))
        elif re.fullmatch(r"\[[\w.]+\]|[\w]+ = .+|(- )?\w+:( .+)?", span):
            config.toml.append(span)  # a TOML line, or a YAML one
        elif re.fullmatch(r"[A-Z][A-Za-z]*\(.*\)", span):
            call = ast.parse(span, mode="eval").body
            assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
            config.clients.append((call.func.id, keywords))
        elif re.match(r"[A-Z_]+=", span):
            words = shlex.split(span)
            while words and re.match(r"[A-Z_]+=", words[0]):
                name, _, value = words.pop(0).partition("=")
                config.env[name] = value
            config.argv += words
        elif re.match(r"[a-z]+ ", span):
            config.argv += shlex.split(span)
    return config


# --- the tests' source -----------------------------------------------------------------------


def _constants(tree: ast.Module) -> dict[str, Any]:
    """Return the module's constant assignments (``MODEL = "composer-2.5"``)."""
    found: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant):
                found[target.id] = node.value.value
    return found


def _value(node: ast.AST, names: dict[str, Any]) -> Any:
    """Return NODE's value with the server's URL and key in the README's words."""
    if isinstance(node, ast.Constant):
        return KEY if node.value in TEST_KEYS else node.value
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "api"
        and node.attr in ("url", "root")
    ):
        return URL if node.attr == "url" else SERVER_ROOT
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)
        return {_value(k, names): _value(v, names) for k, v in pairs if k is not None}
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(item, names) for item in node.elts]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            inner = part.value if isinstance(part, ast.FormattedValue) else part
            got = _value(inner, names)
            if isinstance(got, Opaque):
                return OPAQUE
            parts.append(str(got))
        return "".join(parts)
    return OPAQUE


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def configured_by_tests(path: Path, word: str) -> Config:
    """Return what PATH's functions whose names hold WORD configure."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _constants(tree)
    config = Config()
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef) or word not in function.name.lower():
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                target = node.targets[0]
                if isinstance(target, ast.Name) and target.id == "env":  # a setup's env
                    config.env.update(_value(node.value, names))
                elif isinstance(target, ast.Name):  # a local object a config file holds
                    names = {**names, target.id: _value(node.value, names)}
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                argv = node.value.elts[0] if node.value.elts else None
                if isinstance(argv, ast.List):  # a setup returns (argv, env)
                    config.argv += _value(argv, names)
            if not isinstance(node, ast.Call):
                continue
            callee = _callee(node)
            if callee == "offline_env":
                config.env.update(
                    {k.arg: _value(k.value, names) for k in node.keywords if k.arg is not None}
                )
            elif callee == "dumps" and node.args:
                config.json.append(_value(node.args[0], names))
            elif callee == "join" and node.args and isinstance(node.args[0], ast.List):
                lines = [v for v in _value(node.args[0], names) if isinstance(v, str)]
                config.toml += [_KEY_LINE.sub(rf"\g<1>{KEY}", v.strip()) for v in lines]
            elif callee == "run_agent" and node.args:
                config.argv += _value(node.args[0], names)
            elif callee in ("OpenAI", "AsyncOpenAI", "Anthropic"):
                keywords = {k.arg: _value(k.value, names) for k in node.keywords if k.arg}
                config.clients.append((callee.removeprefix("Async"), keywords))
    return config


# --- comparing -----------------------------------------------------------------------------


def leaves(value: Any, path: tuple[Any, ...] = ()) -> set[tuple[tuple[Any, ...], Any]]:
    """Return the (path, scalar) leaves of a JSON value."""
    if isinstance(value, dict):
        if not value:
            return {(path, "{}")}
        return {leaf for k, v in value.items() for leaf in leaves(v, (*path, k))}
    if isinstance(value, list):
        return {leaf for i, v in enumerate(value) for leaf in leaves(v, (*path, i))}
    return {(path, value)}


def _covered(leaf: tuple[tuple[Any, ...], Any], test_leaves: set[Any]) -> bool:
    """Return whether a README leaf is the tests' (an empty object: the path is there)."""
    path, value = leaf
    if value == "{}":
        return any(p[: len(path)] == path for p, _ in test_leaves)
    return leaf in test_leaves


def pairs(argv: list[Any]) -> list[tuple[Any, Any]]:
    """Return the (--flag, value) pairs of ARGV."""
    return [
        (argv[i], argv[i + 1])
        for i in range(len(argv) - 1)
        if isinstance(argv[i], str) and argv[i].startswith("--")
    ]


def mismatches(readme: Config, tested: Config) -> list[str]:
    """Return each way the README's configuration differs from the tests'."""
    wrong: list[str] = []
    for name, value in readme.env.items():
        if tested.env.get(name) != value:
            wrong.append(f"env {name}={value}: the tests set {tested.env.get(name)!r}")
    for name, value in tested.env.items():
        if value in (URL, SERVER_ROOT, KEY) and name not in readme.env:
            wrong.append(f"env {name}={value} the tests set is not in the README")
    for flag, value in pairs(readme.argv):
        # A value of the tests' own (a temporary file) stands for whatever the README names.
        if not any(f == flag and v in (value, OPAQUE) for f, v in pairs(tested.argv)):
            wrong.append(f"argv {flag} {value}: not what the tests pass")
    test_leaves = {leaf for document in tested.json for leaf in leaves(document)}
    readme_leaves = {leaf for document in readme.json for leaf in leaves(document)}
    for leaf in sorted(readme_leaves, key=repr):
        if not _covered(leaf, test_leaves):
            wrong.append(f"json {leaf}: not in the tests' config")
    for leaf in sorted(test_leaves, key=repr):
        if leaf[1] in (URL, SERVER_ROOT, KEY) and leaf not in readme_leaves:
            wrong.append(f"json {leaf}: the tests' is not in the README")
    for line in readme.toml:
        if line not in tested.toml:
            wrong.append(f"toml {line!r}: not a line the tests write")
    for line in tested.toml:
        if (URL in line or "env_key" in line) and line not in readme.toml:
            wrong.append(f"toml {line!r}: the tests' is not in the README")
    for name, keywords in readme.clients:
        made = [k for n, k in tested.clients if n == name]
        if not any(k.get("base_url") == keywords.get("base_url") for k in made):
            wrong.append(f"{name}(base_url={keywords.get('base_url')!r}): not the tests' URL")
        if not any(set(keywords) <= set(k) for k in made):
            wrong.append(f"{name}{sorted(keywords)}: the tests pass other arguments")
    return wrong


def test_every_agent_row_is_what_its_tests_configure() -> None:
    rows = readme_rows()
    wrong: list[str] = []
    for agent, (path, word, driven) in ROWS.items():
        tested = configured_by_tests(path, word)
        if tested.empty():
            assert not driven, f"no test in {path.name} configures {agent} ({word!r})"
            continue
        assert agent in rows, f"the README has no row for {agent}, which the tests drive"
        wrong += [f"{agent}: {w}" for w in mismatches(readme_config(rows[agent]), tested)]
    assert wrong == [], "\n".join(wrong)


def test_the_ai_sdk_row_is_what_its_script_takes() -> None:
    (spans,) = [v for k, v in readme_rows().items() if k.startswith("the AI SDK")]
    script = AI_SDK_SCRIPT.read_text(encoding="utf-8")
    made = re.search(r"createOpenAI\(\{([^}]*)\}\)", script)
    assert made is not None
    said = re.search(r"createOpenAI\(\{([^}]*)\}\)", spans[0])
    assert said is not None
    # The script takes the same two options, handed the URL and the key the README names.
    assert set(re.findall(r"(\w+): \"", said.group(1))) == set(re.findall(r"\w+", made.group(1)))
    assert said.group(1).strip() == f'baseURL: "{URL}", apiKey: "{KEY}"'
    model = re.search(r'\.responses\("([^"]+)"\)', script)
    assert model is not None and f'openai.responses("{model.group(1)}")' in spans
    tested = configured_by_tests(AGENTS_TESTS, "ai_sdk")
    # The script is handed the server's URL and the key, in that order after the modules.
    assert [a for a in tested.argv if a in (URL, KEY)] == [URL, KEY]


def test_a_drifted_row_is_named() -> None:
    tested = Config(
        env={"ANTHROPIC_BASE_URL": SERVER_ROOT, "ANTHROPIC_API_KEY": KEY},
        argv=["claude", "--model", "sonnet"],
        json=[{"p": {"options": {"baseURL": URL}, "models": {"m": {"name": "M"}}}}],
        toml=[f'base_url = "{URL}"'],
    )
    good = readme_config(
        [
            f"ANTHROPIC_BASE_URL={SERVER_ROOT} ANTHROPIC_API_KEY={KEY} claude --model sonnet",
            json.dumps({"p": {"options": {"baseURL": URL}, "models": {"m": {}}}}),
            f'base_url = "{URL}"',
        ]
    )
    assert mismatches(good, tested) == []
    drifted = readme_config(
        [
            f"ANTHROPIC_BASE_URL={URL} claude --model opus",
            json.dumps({"p": {"options": {"baseUrl": URL}}}),
        ]
    )
    assert mismatches(drifted, tested) == [
        f"env ANTHROPIC_BASE_URL={URL}: the tests set '{SERVER_ROOT}'",
        f"env ANTHROPIC_API_KEY={KEY} the tests set is not in the README",
        "argv --model opus: not what the tests pass",
        f"json (('p', 'options', 'baseUrl'), '{URL}'): not in the tests' config",
        f"json (('p', 'options', 'baseURL'), '{URL}'): the tests' is not in the README",
        f"toml 'base_url = \"{URL}\"': the tests' is not in the README",
    ]

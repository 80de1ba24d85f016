"""The test agents' pins and lock, and the lock pruning ``tools/bump_agents.py`` does.

``npm ci`` refuses a lock that keeps an edge to an optional package it does not hold
(a platform package the registry does not serve); the bump script drops such edges.
The committed lock must hold none, pin every agent exactly, and pin Node.js 22.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PREFIX = ROOT / ".ci" / "node"


def bump_agents() -> ModuleType:
    """Return tools/bump_agents.py loaded as a module (tools/ is no package)."""
    spec = importlib.util.spec_from_file_location("bump_agents", ROOT / "tools" / "bump_agents.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dangling_optional_edges_are_dropped_and_held_ones_kept() -> None:
    lock = {
        "packages": {
            "": {"dependencies": {"agent": "1.0.0"}},
            "node_modules/agent": {
                "optionalDependencies": {"agent-linux-x64": "1.0.0", "agent-darwin-arm64": "1.0.0"}
            },
            "node_modules/agent-linux-x64": {"version": "1.0.0", "optional": True},
            "node_modules/agent/node_modules/helper": {
                # Resolves from an ancestor's node_modules, as Node resolves it.
                "optionalDependencies": {"agent-linux-x64": "1.0.0", "gone": "2.0.0"}
            },
        }
    }
    dropped = bump_agents().prune_dangling_optionals(lock)
    assert dropped == [
        "node_modules/agent -> agent-darwin-arm64",
        "node_modules/agent/node_modules/helper -> gone",
    ]
    packages = lock["packages"]
    assert packages["node_modules/agent"]["optionalDependencies"] == {"agent-linux-x64": "1.0.0"}
    helper = packages["node_modules/agent/node_modules/helper"]
    assert helper["optionalDependencies"] == {"agent-linux-x64": "1.0.0"}


def test_the_committed_lock_pins_every_agent_and_node_22_with_no_dangling_edge() -> None:
    manifest = json.loads((PREFIX / "package.json").read_text())
    lock = json.loads((PREFIX / "package-lock.json").read_text())
    pins: dict[str, str] = manifest["dependencies"]
    for agent in ("@anthropic-ai/claude-code", "@qwen-code/qwen-code", "@continuedev/cli"):
        assert agent in pins, agent
    assert pins["node"].split(".")[0] == "22", pins["node"]
    for name, version in pins.items():
        assert version[0].isdigit(), (name, version)  # exact, never a range
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
    assert lock["packages"][""]["dependencies"] == pins
    assert bump_agents().prune_dangling_optionals(lock) == []

"""Regenerate the Python protobuf modules of nodecode-cursor.

Reads every ``proto/*.proto`` of the repository and writes, for each, a
``<name>_pb2.py`` module and a ``<name>_pb2.pyi`` stub (``grpc_tools.protoc``
with ``--python_out`` and ``--pyi_out``), plus the package's ``__init__.py``,
into ``nodecode_cursor/_proto/`` -- or into the directory given with
``--out DIR`` (the test suite regenerates into a temporary directory and
compares the bytes with the committed files).

The schema files are compiled as if they lived at
``nodecode_cursor/_proto/<name>.proto``: the descriptors are then registered
under a name no other package will use, the generated classes report the
right ``__module__``, and an import between two of our files (if one is ever
added) comes out as ``from nodecode_cursor._proto import x_pb2``. A
post-processing step rewrites any such import, and any bare ``import x_pb2``,
to the package-relative ``from . import x_pb2`` so the modules work wherever
the package is installed.

The output is deterministic: the same inputs give the same bytes.

Usage::

    python tools/gen_proto.py            # into nodecode_cursor/_proto/
    python tools/gen_proto.py --out DIR  # into DIR
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
PACKAGE = "nodecode_cursor._proto"
DEFAULT_OUT = ROOT / "nodecode_cursor" / "_proto"

INIT_TEXT = '''"""Generated protobuf modules for Cursor's agent protocol.

Generated code, do not edit. The sources are proto/agent.proto (agent.v1)
and proto/aiserver.proto (aiserver.v1); regenerate with tools/gen_proto.py.
"""
'''


def _proto_files() -> list[Path]:
    """Return the repository's .proto files, sorted; exit when there are none."""
    files = sorted(PROTO_DIR.glob("*.proto"))
    if not files:
        raise SystemExit(f"no .proto files in {PROTO_DIR}")
    return files


def _fix_imports(text: str, modules: set[str]) -> str:
    """Turn imports of our own generated modules into package-relative ones."""
    prefix = re.escape(PACKAGE)
    for mod in sorted(modules):
        m = re.escape(mod)
        # from nodecode_cursor._proto import x_pb2 as alias
        text = re.sub(
            rf"^from {prefix} import {m}\b",
            f"from . import {mod}",
            text,
            flags=re.MULTILINE,
        )
        # import x_pb2 as alias  /  import x_pb2
        text = re.sub(
            rf"^import ({m}(?: as \w+)?)$",
            r"from . import \1",
            text,
            flags=re.MULTILINE,
        )
    return text


def generate(out_dir: Path) -> list[Path]:
    """Generate the modules into ``out_dir``; return the files written."""
    from grpc_tools import protoc  # type: ignore[import-untyped]  # only needed here

    protos = _proto_files()
    modules = {p.stem + "_pb2" for p in protos}
    pkg_rel = Path(*PACKAGE.split("."))
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="gen_proto_") as tmp:
        src_root = Path(tmp) / "src"
        gen_root = Path(tmp) / "gen"
        (src_root / pkg_rel).mkdir(parents=True)
        gen_root.mkdir()
        for proto in protos:
            shutil.copyfile(proto, src_root / pkg_rel / proto.name)
        args = [
            "grpc_tools.protoc",
            f"--proto_path={src_root}",
            f"--python_out={gen_root}",
            f"--pyi_out={gen_root}",
            *[(pkg_rel / p.name).as_posix() for p in protos],
        ]
        rc = protoc.main(args)
        if rc != 0:
            raise SystemExit(f"protoc failed with exit code {rc}")
        out_dir.mkdir(parents=True, exist_ok=True)
        for proto in protos:
            for suffix in (".py", ".pyi"):
                name = f"{proto.stem}_pb2{suffix}"
                text = (gen_root / pkg_rel / name).read_text(encoding="utf-8")
                target = out_dir / name
                target.write_bytes(_fix_imports(text, modules).encode("utf-8"))
                written.append(target)
    init = out_dir / "__init__.py"
    init.write_bytes(INIT_TEXT.encode("utf-8"))
    written.append(init)
    return written


def main(argv: list[str] | None = None) -> int:
    """Regenerate into --out (default nodecode_cursor/_proto/); return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="output directory (default: nodecode_cursor/_proto/)",
    )
    ns = parser.parse_args(argv)
    for path in generate(ns.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

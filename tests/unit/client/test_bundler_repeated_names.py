"""A name declared in two bundled files: the bundle keeps the declaration the platform keeps.

mercata's tests/Lending/LendingPool.test.sol declares `contract User` and imports tests/Util.sol,
which declares one too. The platform compiles each file with its imports (the file's own
declaration winning) and merges the files in the order of their names, the first keeping a
name; one bundled text cannot hold both, so the other declaration is blanked (lines kept).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.client.bundler import bundle
from app.node.solidvm import CompileError, World, compile_source
from app.node.solidvm.world import TxEnv

UTIL = """contract User {
    function who() public returns (string) { return "util"; }
}

library TestUtils {
    function ask(User u) internal returns (string) { return u.who(); }
}
"""

TEST = """import "../Util.sol";

contract User {
    function who() public returns (string) { return "test"; }
}

contract Describe_X {
    using TestUtils for *;
    function ask() public returns (string) {
        User u = new User();
        return TestUtils.ask(u);
    }
}
"""


def write(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def run(source: str, contract: str, method: str) -> list[str]:
    unit = compile_source(source)
    world = World()
    env = TxEnv(sender="a1" * 20, block_number=1, timestamp=1_700_000_000)
    address = world.deploy(unit.contracts[contract], {}, env).address
    assert address is not None
    return world.call(address, method, {}, env).values


def test_the_test_files_own_declaration_wins_over_an_imported_one(tmp_path: Path) -> None:
    write(tmp_path, {"tests/Util.sol": UTIL, "tests/Lending/X.test.sol": TEST})
    b = bundle(tmp_path / "tests/Lending/X.test.sol")
    assert b.source.count("contract User") == 1
    assert run(b.source, "Describe_X", "ask") == ["test"]
    # the library after the blanked contract keeps its lines
    line = b.source.splitlines().index("library TestUtils {") + 1
    assert b.locate(line, 1).line == 5
    [warning] = b.warnings
    assert Path(warning.file).name == "Util.sol" and warning.line == 1
    assert "contract 'User' is left out" in warning.message


def test_a_file_whose_name_sorts_first_keeps_its_declaration(tmp_path: Path) -> None:
    """The platform's merge is by file name: a/Lib.sol's `S` beats b/Mid.sol's, though Mid
    imports Lib (Mid's own would win only inside Mid's own compilation)."""
    write(
        tmp_path,
        {
            "a/Lib.sol": "struct S { uint lib; }\n",
            "b/Mid.sol": 'import "../a/Lib.sol";\nstruct S { uint mid; }\n',
            "c/Root.sol": (
                'import "../b/Mid.sol";\n'
                "contract C { function f() public returns (uint) { S s = S(7); return s.lib; } }\n"
            ),
        },
    )
    b = bundle(tmp_path / "c/Root.sol")
    assert "uint mid" not in b.source
    assert run(b.source, "C", "f") == ["7"]


def test_free_functions_and_constants_by_name(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "lib/Util.sol": (
                "uint constant LIMIT = 1;\n"
                "function twice(uint a) pure returns (uint) { return a + a; }\n"
                "function twice(uint a, uint b) pure returns (uint) { return a + b; }\n"
            ),
            "main/Main.sol": (
                'import "../lib/Util.sol";\n'
                "uint constant LIMIT = 2;\n"
                "function twice(uint a) pure returns (uint) { return 2 * a + LIMIT; }\n"
                "contract C { function f() public returns (uint) { return twice(20); } }\n"
            ),
        },
    )
    b = bundle(tmp_path / "main/Main.sol")
    # lib/Util.sol sorts first and declares both names: its declarations are kept
    assert run(b.source, "C", "f") == ["40"]  # lib's twice: a + a
    assert len(b.warnings) == 2


def test_two_imports_declaring_one_name_stay_an_error(tmp_path: Path) -> None:
    """The platform refuses a file importing two files that declare one name
    ("Duplicate values"): nothing is left out, the compiler reports the name."""
    write(
        tmp_path,
        {
            "x/A.sol": "contract Dup {}\n",
            "x/B.sol": "contract Dup {}\n",
            "x/Root.sol": 'import "./A.sol";\nimport "./B.sol";\ncontract C {}\n',
        },
    )
    b = bundle(tmp_path / "x/Root.sol")
    assert not b.warnings
    with pytest.raises(CompileError, match="declared twice"):
        compile_source(b.source)

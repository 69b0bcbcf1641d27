"""The source bundler on real folder trees, compiled by the sandbox's real SolidVM compiler."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.client.bundler import Bundle, BundleError, bundle, find_imports
from app.node.solidvm import ParseError, compile_source


def write(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


# A project shaped like the platform's contract library: abstract/, concrete/, libraries/.
PROJECT = {
    "abstract/access/Ownable.sol": (
        "pragma solidvm 12.0;\n"
        "abstract contract Ownable {\n"
        "    address public owner;\n"
        "    constructor() { owner = msg.sender; }\n"
        "}\n"
    ),
    "abstract/Token.sol": (
        "pragma solidvm 12.0;\n"
        'import "./access/Ownable.sol";\n'
        "contract Token is Ownable {\n"
        "    mapping(address => uint) public balances;\n"
        "    function mint(address to, uint n) public { balances[to] += n; }\n"
        "}\n"
    ),
    "libraries/MathLib.sol": (
        'import "../abstract/access/Ownable.sol";\n'
        "library MathLib {\n"
        "    function add(uint a, uint b) internal returns (uint) { return a + b; }\n"
        "}\n"
    ),
    "concrete/pools/Pool.sol": (
        "pragma solidvm 12.0;\n"
        'import "../../abstract/Token.sol";\n'
        'import {MathLib} from "../../libraries/MathLib.sol";\n'
        "\n"
        "contract Pool is Token {\n"
        "    function total(uint a, uint b) public returns (uint) {\n"
        "        return MathLib.add(a, b);\n"
        "    }\n"
        "}\n"
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, PROJECT)
    return tmp_path


def names(b: Bundle) -> list[str]:
    return [Path(f.name).as_posix() for f in b.files]


def test_nested_relative_imports_come_first_each_once(project: Path) -> None:
    root = project / "concrete/pools/Pool.sol"
    b = bundle(root)
    rel = [Path(n).relative_to(project).as_posix() for n in names(b)]
    # Ownable is imported by Token and (through MathLib) again: a diamond, included once.
    assert rel == [
        "abstract/access/Ownable.sol",
        "abstract/Token.sol",
        "libraries/MathLib.sol",
        "concrete/pools/Pool.sol",
    ]
    assert b.source.count("abstract contract Ownable") == 1
    assert "import" not in b.source
    assert b.root == str(root)
    unit = compile_source(b.source)
    assert unit.names == ["Token", "Pool"]
    assert set(unit.contracts) == {"Ownable", "Token", "MathLib", "Pool"}
    # several files carry `pragma solidvm 12.0;`: the compiler takes them all, unit-wide
    assert unit.contracts["Pool"].pragma_solidvm == "12.0"
    assert unit.contracts["MathLib"].pragma_solidvm == "12.0"


def test_every_character_keeps_its_line_and_column(project: Path) -> None:
    b = bundle(project / "concrete/pools/Pool.sol")
    bundled = b.source.split("\n")
    for f in b.files:
        for i, original in enumerate(f.text.split("\n")[: f.lines]):
            line = bundled[f.first_line - 1 + i]
            assert len(line) == len(original)
            if "import" not in original:
                assert line == original
            else:
                assert line.strip() == ""
    pool = b.files[-1]
    at = b.locate(pool.first_line + 4, 10)  # `Pool` of `contract Pool is Token`
    assert (Path(at.file).name, at.line, at.column) == ("Pool.sol", 5, 10)


def test_file_names_are_built_from_the_root_as_given(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "concrete")
    b = bundle("pools/Pool.sol")
    assert names(b) == [
        "../abstract/access/Ownable.sol",
        "../abstract/Token.sol",
        "../libraries/MathLib.sol",
        "pools/Pool.sol",
    ]


def test_error_in_a_nested_file_maps_back_to_it(project: Path) -> None:
    token = project / "abstract/Token.sol"
    token.write_text(
        PROJECT["abstract/Token.sol"].replace("balances[to] += n;", "balance[to] += n;")
    )
    b = bundle(project / "concrete/pools/Pool.sol")
    with pytest.raises(ParseError) as info:
        compile_source(b.source)
    exc = info.value
    assert exc.line > 6  # a line of the bundle, past Ownable's five lines
    mapped = b.map_error(exc)
    col = PROJECT["abstract/Token.sol"].split("\n")[4].index("balances") + 1
    assert mapped.startswith(f"{token}:5:{col}: ")
    assert "balance" in mapped
    # the same through the text of the exception, and the node's HTTP 400 body (a JSON string)
    assert b.map_message(str(exc)) == mapped
    assert b.map_message(json.loads(json.dumps(str(exc)))) == mapped
    assert b.map_message("no position here") == "no position here"


def test_syntax_error_in_the_deepest_file(project: Path) -> None:
    ownable = project / "abstract/access/Ownable.sol"
    ownable.write_text(
        PROJECT["abstract/access/Ownable.sol"].replace("public owner;", "public owner")
    )
    b = bundle(project / "concrete/pools/Pool.sol")
    with pytest.raises(ParseError) as info:
        compile_source(b.source)
    assert b.map_error(info.value).startswith(f"{ownable}:4:5: expected ';'")


def test_import_cycles_are_included_once(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "A.sol": 'import "./B.sol";\ncontract A { function b() public returns (uint) '
            "{ return 1; } }\n",
            "B.sol": 'import "A.sol";\ncontract B is A { }\n',
            "Main.sol": 'import "./B.sol";\ncontract Main is B { }\n',
        },
    )
    b = bundle(tmp_path / "Main.sol")
    assert [Path(n).name for n in names(b)] == ["A.sol", "B.sol", "Main.sol"]
    assert set(compile_source(b.source).contracts) == {"A", "B", "Main"}
    # a file importing itself
    write(tmp_path, {"Self.sol": 'import "./Self.sol";\ncontract S { }\n'})
    assert [Path(n).name for n in names(bundle(tmp_path / "Self.sol"))] == ["Self.sol"]


def test_missing_import_names_the_importer_position_and_the_path(project: Path) -> None:
    pool = project / "concrete/pools/Pool.sol"
    pool.write_text(
        PROJECT["concrete/pools/Pool.sol"].replace(
            'import "../../abstract/Token.sol";',
            'import "../../abstract/Tokens.sol";\nimport { X } from "./gone/X.sol";',
        )
    )
    with pytest.raises(BundleError) as info:
        bundle(pool)
    problems = info.value.problems
    assert len(problems) == 2  # every missing import, not only the first
    first, second = problems
    assert (first.file, first.line, first.column) == (str(pool), 2, 8)
    assert "missing import file '../../abstract/Tokens.sol'" in first.message
    assert os.path.normpath(project / "abstract/Tokens.sol") in first.message
    assert str(first).startswith(f"{pool}:2:8: missing import file")
    assert (second.line, second.column) == (3, 19)
    assert "'./gone/X.sol'" in second.message


def test_unreadable_files_are_reported(tmp_path: Path) -> None:
    write(tmp_path, {"Main.sol": 'import "./dir";\nimport "./latin1.sol";\ncontract M { }\n'})
    (tmp_path / "dir").mkdir()
    (tmp_path / "latin1.sol").write_bytes(b"contract Caf\xe9 { }\n")
    with pytest.raises(BundleError) as info:
        bundle(tmp_path / "Main.sol")
    text = str(info.value)
    assert f"{tmp_path / 'Main.sol'}:1:8: cannot read import file './dir'" in text
    assert "is a folder" in text
    assert f"{tmp_path / 'Main.sol'}:2:8: cannot read import file './latin1.sol'" in text
    assert "not UTF-8" in text
    with pytest.raises(BundleError) as info:
        bundle(tmp_path / "Nope.sol")
    assert str(info.value) == f"{tmp_path / 'Nope.sol'}: cannot read: No such file or directory"


def test_import_forms(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "lib/Things.sol": "struct Point { uint x; uint y; }\ncontract Shape { }\n",
            "lib/More.sol": "contract More { }\n",
            "lib/Star.sol": "contract Star { }\n",
            "Main.sol": (
                'import {Point, Shape as Form} from "./lib/Things.sol";\n'
                'import * as S from "lib/Star.sol";\n'
                'import "./lib/More.sol" as M;\n'
                'import {Missing} from "./lib/More.sol";\n'
                "import <0000000000000000000000000000000000000123>;\n"
                "import {someFunc} from <123>;\n"
                "contract Main is Shape { Point p; }\n"
            ),
        },
    )
    imports = find_imports((tmp_path / "Main.sol").read_text())
    assert [(i.target, i.is_file, i.items) for i in imports] == [
        ("./lib/Things.sol", True, ("Point", "Shape")),
        ("lib/Star.sol", True, ()),
        ("./lib/More.sol", True, ()),
        ("./lib/More.sol", True, ("Missing",)),
        ("<0000000000000000000000000000000000000123>", False, ()),
        ("<123>", False, ("someFunc",)),
    ]
    b = bundle(tmp_path / "Main.sol")
    assert [Path(n).name for n in names(b)] == ["Things.sol", "Star.sol", "More.sol", "Main.sol"]
    # imports of deployed code are the node's business: they stay in the text
    assert "import <0000000000000000000000000000000000000123>;" in b.source
    assert "import {someFunc} from <123>;" in b.source
    assert set(compile_source(b.source).contracts) == {"Shape", "Star", "More", "Main"}
    warned = [(w.line, w.column, w.message) for w in b.warnings]
    assert [(line, col) for line, col, _ in warned] == [(1, 25), (2, 13), (3, 28), (4, 23)]
    assert "alias 'Form' is ignored" in warned[0][2]
    assert "alias 'S' is ignored" in warned[1][2]
    assert "alias 'M' is ignored" in warned[2][2]
    assert "'Missing' is not declared in './lib/More.sol'" in warned[3][2]


def test_malformed_imports_are_errors_not_skipped(tmp_path: Path) -> None:
    cases = {
        "import foo;\ncontract A { }\n": (1, 8, "unsupported import"),
        'import {A from "./x.sol";\n': (1, 11, "unsupported import"),
        'import * from "./x.sol";\n': (1, 8, "unsupported import"),
        'contract A { }\nimport "./x.sol"\n': (2, 1, "expected ';' after import"),
    }
    for text, (line, col, message) in cases.items():
        with pytest.raises(BundleError) as info:
            find_imports(text, "m.sol")
        [problem] = info.value.problems
        assert (problem.line, problem.column) == (line, col), text
        assert message in problem.message


def test_imports_in_comments_and_strings_are_not_imports(tmp_path: Path) -> None:
    text = (
        '// import "./a.sol";\n'
        '/* import "./b.sol";\n   import "./c.sol"; */\n'
        'contract A { string s = "import \\"./d.sol\\";"; }\n'
    )
    assert find_imports(text) == []
    write(tmp_path, {"A.sol": text})
    assert bundle(tmp_path / "A.sol").source == text


def test_code_after_an_import_on_the_same_line_keeps_its_column(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "B.sol": "contract B { }",  # no final newline
            "A.sol": 'import "./B.sol"; contract A is B { uint x = nope; }\n',
        },
    )
    b = bundle(tmp_path / "A.sol")
    assert b.source == "contract B { }\n" + " " * 17 + " contract A is B { uint x = nope; }\n"
    with pytest.raises(ParseError) as info:
        compile_source(b.source)
    assert b.map_error(info.value).startswith(f"{tmp_path / 'A.sol'}:1:46: ")


def test_unsaved_buffers_take_the_place_of_files(project: Path) -> None:
    token = project / "abstract/Token.sol"
    edited = PROJECT["abstract/Token.sol"].replace("contract Token", "contract Coin")
    b = bundle(project / "concrete/pools/Pool.sol", {str(token): edited})
    assert "contract Coin is Ownable" in b.source
    assert "contract Token" not in b.source
    # only in memory: relative keys, nothing read from disk
    mem = {
        "src/Main.sol": 'import "../lib/L.sol";\ncontract Main { }\n',
        "lib/L.sol": "library L { }\n",
    }
    b = bundle("src/Main.sol", mem, disk=False)
    assert names(b) == ["lib/L.sol", "src/Main.sol"]
    with pytest.raises(BundleError) as info:
        bundle("src/Main.sol", {"src/Main.sol": mem["src/Main.sol"]}, disk=False)
    assert "missing import file '../lib/L.sol'" in str(info.value)


def test_a_dependency_must_close_its_braces_and_comments(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Open.sol": "contract Open {\n  uint x;\n",
            "Comment.sol": "contract C { }\n/* never closed\n",
            "Main.sol": 'import "./Open.sol";\nimport "./Comment.sol";\ncontract Main { }\n',
        },
    )
    with pytest.raises(BundleError) as info:
        bundle(tmp_path / "Main.sol")
    text = str(info.value)
    assert f"{tmp_path / 'Comment.sol'}:2:1: unterminated block comment" in text
    assert f"{tmp_path / 'Open.sol'}:1:15: '{{' is never closed in this file" in text


def test_positions_past_the_end_stay_in_the_last_file(project: Path) -> None:
    b = bundle(project / "concrete/pools/Pool.sol")
    last = b.files[-1]
    end = b.locate(last.first_line + last.lines, 1)
    assert Path(end.file).name == "Pool.sol"
    assert end.line == last.lines + 1
    assert Path(b.locate(0, 3).file).name == "Ownable.sol"


def test_absolute_import_paths_are_used_as_they_are(tmp_path: Path) -> None:
    write(tmp_path, {"elsewhere/Lib.sol": "library Lib { }\n"})
    lib = tmp_path / "elsewhere/Lib.sol"
    write(tmp_path, {"app/Main.sol": f'import "{lib}";\ncontract Main {{ }}\n'})
    b = bundle(tmp_path / "app/Main.sol")
    assert [f.name for f in b.files] == [str(lib), str(tmp_path / "app/Main.sol")]


def test_long_import_chains_need_no_recursion() -> None:
    depth = 5000
    mem = {f"f{i}.sol": f'import "./f{i + 1}.sol";\ncontract C{i} {{ }}\n' for i in range(depth)}
    mem[f"f{depth}.sol"] = "contract End { }\n"
    b = bundle("f0.sol", mem, disk=False)
    assert len(b.files) == depth + 1
    assert (b.files[0].name, b.files[-1].name) == (f"f{depth}.sol", "f0.sol")

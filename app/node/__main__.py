"""Command line of the sandbox node (``python -m app.node``, ``stratoscope-node``).

``serve`` runs the node; ``token``, ``users`` and ``oauth-client`` work on a data dir (also
while its node runs); ``check`` compiles SolidVM sources and lists what they contain; ``compile``
does the same for a root file bundled with its relative imports (``app.client.bundler``: pure
Python, shared with the desktop app's composer), errors mapped back to ``file:line:column``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .solidvm import VMS, ContractDef, SolidVMError, compile_source
from .solidvm.errors import ParseError
from .solidvm.types import Type
from .text import has_surrogate


def _describe_contract(c: ContractDef) -> list[str]:
    def params(ps: list[tuple[str | None, Type]]) -> str:
        return ", ".join(f"{t.name} {n}" if n else t.name for n, t in ps)

    lines = [f"  {c.kind} {c.name}"]
    if c.constructor is not None:
        lines.append(f"    constructor({params(list(c.constructor.params))})")
    for fns in c.functions.values():
        for f in fns:
            if f.getter_of is not None:
                continue
            mut = f" {f.mutability}" if f.mutability else ""
            rets = f" returns ({params(f.returns)})" if f.returns else ""
            sig = f"{f.name}({params(list(f.params))})"
            lines.append(f"    function {sig} {f.visibility}{mut}{rets}")
    if c.state_vars:
        shown = [f"{v.type.name} {'public ' if v.public else ''}{v.name}" for v in c.state_vars]
        lines.append("    state: " + "; ".join(shown))
    return lines


def cmd_check(opts: argparse.Namespace) -> int:
    status = 0
    for path in opts.files:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            print(f"{path}: cannot read: {exc.strerror}", file=sys.stderr)
            status = 1
            continue
        try:
            unit = compile_source(text, vm=opts.vm)
        except ParseError as exc:
            print(f"{path}:{exc.line}:{exc.column}: {exc.detail}", file=sys.stderr)
            status = 1
            continue
        except SolidVMError as exc:
            print(f"{path}: {exc.message}", file=sys.stderr)
            status = 1
            continue
        if opts.json:
            print(json.dumps(unit.xabis(), indent=2))
            continue
        n = len(unit.contracts)
        print(f"{path}: ok ({n} contract{'s' if n != 1 else ''})")
        for c in unit.contracts.values():
            print("\n".join(_describe_contract(c)))
    return status


def cmd_compile(opts: argparse.Namespace) -> int:
    from app.client.bundler import BundleError, bundle

    root = Path(opts.path)
    if not root.is_file():
        why = "is a folder" if root.is_dir() else "no such file"
        return _fail(f"cannot read {opts.path}: {why}")
    try:
        b = bundle(root)
    except BundleError as exc:
        if len(exc.problems) == 1 and exc.problems[0].line == 0:  # the root itself is unreadable
            return _fail(str(exc.problems[0]))
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    for warning in b.warnings:
        print(
            f"{warning.file}:{warning.line}:{warning.column}: warning: {warning.message}",
            file=sys.stderr,
        )
    if opts.bundle:
        sys.stdout.write(b.source)
    try:
        unit = compile_source(b.source, vm=opts.vm)
    except SolidVMError as exc:
        print(b.map_error(exc), file=sys.stderr)
        return 1
    if opts.bundle:
        return 0
    if opts.json:
        print(json.dumps(unit.xabis(), indent=2))
        return 0
    n, files = len(unit.contracts), len(b.files)
    print(
        f"{b.root}: ok ({n} contract{'s' if n != 1 else ''}"
        f" from {files} file{'s' if files != 1 else ''})"
    )
    for c in unit.contracts.values():
        lines = _describe_contract(c)
        if c.decl is not None:
            lines[0] += f"  ({b.locate(*c.decl.pos)})"
        print("\n".join(lines))
    return 0


def _fail(message: str, code: int = 2) -> int:
    print(f"stratoscope-node: {message}", file=sys.stderr)
    return code


def cmd_serve(opts: argparse.Namespace) -> int:
    from .config import NodeConfig
    from .server import NodeError, configure_logging, serve

    configure_logging()
    if not opts.request_timeout > 0:
        return _fail("--request-timeout must be a positive number of seconds")
    if opts.max_connections < 0:
        return _fail("--max-connections must be 0 (automatic) or more")
    if opts.trace_keep < 1:
        return _fail("--trace-keep must be 1 or more (turn traces off with --traces off)")
    config = NodeConfig(
        data_dir=Path(opts.data_dir),
        host=opts.host,
        port=opts.port,
        gas=opts.gas,
        index_evm=opts.index_evm,
        cirrus_names=opts.cirrus_names,
        resolve_timeout=opts.resolve_timeout,
        tx_time_limit=opts.tx_time_limit,
        compile_time_limit=opts.compile_time_limit,
        block_time=opts.block_time,
        allow_remote=opts.allow_remote,
        max_upload=int(opts.max_upload_mb * 1024 * 1024),
        file_storage=not opts.no_file_storage,
        exit_with_parent=opts.exit_with_parent,
        test_clock=opts.test_clock,
        parent_pid=os.getppid(),
        request_timeout=opts.request_timeout,
        max_connections=opts.max_connections,
        traces=opts.traces == "on",
        trace_keep=opts.trace_keep,
    )
    try:
        return serve(config)
    except NodeError as exc:
        return _fail(str(exc), 1)


def _open(opts: argparse.Namespace) -> tuple[Any, Any]:
    from .store import Store
    from .users import UserStore
    from .vault import Vault, load_node_secret

    data_dir = Path(opts.data_dir)
    store = Store(data_dir)
    return store, UserStore(store, Vault(load_node_secret(data_dir)))


def cmd_token(opts: argparse.Namespace) -> int:
    from .oidc import OidcIssuer
    from .server import read_state

    store, users = _open(opts)
    try:
        if users.get(opts.user) is None:
            return _fail(f"unknown user {opts.user!r} (see: users list)")
        issuer = OidcIssuer(Path(opts.data_dir), users)
        url = read_state(Path(opts.data_dir)).get("url") or "http://127.0.0.1:8080"
        issuer.base_url = str(url)
        print(issuer.issue(opts.user)["access_token"])
        return 0
    finally:
        store.close()


def cmd_users(opts: argparse.Namespace) -> int:
    from .users import UserError

    store, users = _open(opts)
    try:
        if opts.action == "list":
            keys = {r["name"]: r["address"] for r in store.all("SELECT name, address FROM keys")}
            for r in users.all():
                ident = "identity" if r["wants_identity"] else "no identity"
                print(
                    f"{r['name']:<16} {r['org']:<16} {r['unit']:<16} {ident:<12} "
                    f"{keys.get(r['name'], '(no key yet)')}"
                )
            return 0
        if opts.action == "add":
            with store.transaction():
                password = users.add(
                    opts.name,
                    opts.org,
                    opts.unit or "",
                    opts.password,
                    identity=not opts.no_identity,
                )
            if opts.password is None:
                print(f"user {opts.name} created; password: {password}")
            else:
                print(f"user {opts.name} created")
            return 0
        if opts.action == "passwd":
            users.set_password(opts.name, opts.password)
            print(f"password of {opts.name} changed")
            return 0
    except UserError as exc:
        return _fail(str(exc))
    finally:
        store.close()
    return _fail("unknown users action")


def cmd_oauth_client(opts: argparse.Namespace) -> int:
    from .users import UserError

    store, users = _open(opts)
    try:
        users.ensure_clients()
        client_id, secret = users.node_client()
        print(f"{client_id} {secret}")
        return 0
    except UserError as exc:
        return _fail(str(exc))
    finally:
        store.close()


def cmd_apps(opts: argparse.Namespace) -> int:
    """Add an asset application (through the running node, or offline when none runs)."""
    from .appgen import DefinitionError, load_definition_file, parse_definition
    from .server import read_state

    data_dir = Path(opts.data_dir)
    if opts.action == "list":
        store, _ = _open(opts)
        try:
            rows = (
                store.all("SELECT name, creator, realm, definition FROM apps ORDER BY name")
                if store.one("SELECT name FROM sqlite_master WHERE name='apps'")
                else []
            )
        finally:
            store.close()
        for r in rows:
            assets = ", ".join(a["name"] for a in json.loads(r["definition"])["assets"])
            print(f"{r['name']:<20} by {r['creator']:<10} assets: {assets}  realm {r['realm']}")
        return 0
    try:
        definition = load_definition_file(Path(opts.file))
        parse_definition(definition)
    except OSError as exc:
        return _fail(f"cannot read {opts.file}: {exc.strerror}")
    except DefinitionError as exc:
        return _fail(str(exc))
    state = read_state(data_dir)
    pid = state.get("pid")
    running = isinstance(pid, int) and _alive(pid)
    if running:
        import httpx

        token = _token_for(data_dir, opts.user)
        if token is None:
            return _fail(f"unknown user {opts.user!r}")
        r = httpx.post(
            f"{state['url']}/apps",
            json=definition,
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        )
        body = r.json()
        if r.status_code != 200:
            return _fail(f"{body.get('error')}: {body.get('details', '')}", 1)
        app = body["data"]
    else:
        from .config import NodeConfig
        from .server import Node, NodeError, data_dir_lock

        try:
            with data_dir_lock(data_dir):
                node = Node(NodeConfig(data_dir=data_dir))
                try:
                    node.open()
                    app = node.apps.create(opts.user, definition).to_json()
                    node.ledger.snapshot()
                finally:
                    node.close()
        except (NodeError, DefinitionError) as exc:
            return _fail(str(exc), 1)
    print(f"application {app['name']} created at {app['address']}, realm {app['realmChainId']}")
    return 0


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _token_for(data_dir: Path, user: str) -> str | None:
    from .oidc import OidcIssuer
    from .server import read_state
    from .store import Store
    from .users import UserStore
    from .vault import Vault, load_node_secret

    store = Store(data_dir)
    try:
        users = UserStore(store, Vault(load_node_secret(data_dir)))
        if users.get(user) is None:
            return None
        issuer = OidcIssuer(data_dir, users)
        issuer.base_url = str(read_state(data_dir).get("url") or "http://127.0.0.1:8080")
        return str(issuer.issue(user)["access_token"])
    finally:
        store.close()


def build_parser() -> argparse.ArgumentParser:
    from .config import default_data_dir

    ap = argparse.ArgumentParser(
        prog="stratoscope-node",
        description="Stratoscope sandbox node: a STRATO-compatible node for local work.",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    data_dir = str(default_data_dir())

    serve = sub.add_parser("serve", help="run the node")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080, help="0 picks a free port")
    serve.add_argument("--data-dir", default=data_dir)
    serve.add_argument("--gas", action="store_true", help="charge gas; the faucet funds accounts")
    serve.add_argument("--index-evm", action="store_true", help="index EVM contracts in Cirrus")
    serve.add_argument(
        "--traces",
        choices=("on", "off"),
        default="on",
        help="record each transaction's call trace (default on; served by "
        "GET /strato-api/eth/v1.2/transaction/trace?hash=)",
    )
    serve.add_argument(
        "--trace-keep",
        type=int,
        default=10_000,
        metavar="N",
        help="keep the traces of the N most recent transactions (default 10000)",
    )
    serve.add_argument(
        "--cirrus-names",
        choices=("both", "strato16", "seed"),
        default="both",
        help="Cirrus table names served: 'both' (default) serves the seed's (<Contract>, "
        "<Org>-<App>-<Contract>, <Contract>.<Event>, history@<Contract>) and STRATO 16's "
        "(storage, contract, mapping, event, event_array, history@storage, history@mapping, "
        "<creator>-<Contract>[-<var>|-<Event>[-<arg>]]); 'strato16' serves only STRATO 16's, "
        "as a STRATO 16 node does; 'seed' only the seed's, and writes none of STRATO 16's "
        "rows (faster writes; a later start with the others rebuilds them from state, without "
        "the history of the blocks in between)",
    )
    serve.add_argument("--resolve-timeout", type=float, default=60.0, metavar="SECONDS")
    serve.add_argument(
        "--tx-time-limit",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="wall-clock budget of one transaction, besides its step budget (0: none)",
    )
    serve.add_argument(
        "--compile-time-limit",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="wall-clock budget of compiling one source a request sends (0: none)",
    )
    serve.add_argument(
        "--block-time",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="seal blocks every N seconds (0: as soon as transactions arrive)",
    )
    serve.add_argument(
        "--allow-remote", action="store_true", help="allow listening on a non-loopback address"
    )
    serve.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="shut down cleanly when the parent process dies (the desktop app's sandbox)",
    )
    serve.add_argument(
        "--max-upload-mb",
        type=float,
        default=50.0,
        metavar="MB",
        help="largest file accepted by the file storage upload (default 50)",
    )
    serve.add_argument(
        "--no-file-storage",
        action="store_true",
        help="run without external file storage (the file routes answer 405, as on a STRATO "
        "node without a bucket)",
    )
    serve.add_argument(
        "--request-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="close a connection whose request headers are not complete this long after it "
        "opened (or after the previous answer), or whose body pauses this long (default 10)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=0,
        metavar="N",
        help="connections served at once; past it the one that waited longest on its client is "
        "closed (default: the open-file limit less 128, at most 4096)",
    )
    serve.add_argument(
        "--test-clock",
        action="store_true",
        help="the platform's test runner clock: each contract a transaction is sent to reads "
        "its own, from 0 at its creation (block number 0), moved by fastForward(seconds)",
    )
    serve.set_defaults(func=cmd_serve)

    token = sub.add_parser("token", help="print an access token for a user")
    token.add_argument("--data-dir", default=data_dir)
    token.add_argument("--user", required=True)
    token.set_defaults(func=cmd_token)

    users = sub.add_parser("users", help="add or list users")
    users.add_argument("--data-dir", default=data_dir)
    usub = users.add_subparsers(dest="action", required=True)
    add = usub.add_parser("add", help="add a user")
    add.add_argument("name")
    add.add_argument("--org", required=True)
    add.add_argument("--unit", default="")
    add.add_argument("--password", help="default: a random password, printed once")
    add.add_argument(
        "--no-identity",
        action="store_true",
        help="do not register an identity (the user cannot transact)",
    )
    ulist = usub.add_parser("list", help="list users")
    passwd = usub.add_parser("passwd", help="set a user's password")
    passwd.add_argument("name")
    passwd.add_argument("--password", required=True)
    for leaf in (add, ulist, passwd):  # accept --data-dir after the action too
        leaf.add_argument("--data-dir", default=argparse.SUPPRESS)
    users.set_defaults(func=cmd_users)

    apps = sub.add_parser("apps", help="add or list asset applications")
    apps.add_argument("--data-dir", default=data_dir)
    asub = apps.add_subparsers(dest="action", required=True)
    app_add = asub.add_parser("add", help="create an application from a JSON or TOML file")
    app_add.add_argument("file")
    app_add.add_argument("--user", default="alice", help="the creating user (default alice)")
    app_list = asub.add_parser("list", help="list applications")
    for leaf in (app_add, app_list):
        leaf.add_argument("--data-dir", default=argparse.SUPPRESS)
    apps.set_defaults(func=cmd_apps)

    oc = sub.add_parser("oauth-client", help="print the node's OAuth client id and secret")
    oc.add_argument("--data-dir", default=data_dir)
    oc.set_defaults(func=cmd_oauth_client)
    check = sub.add_parser("check", help="compile SolidVM sources and list their contracts")
    check.add_argument("files", nargs="+", help=".sol files")
    check.add_argument("--vm", choices=VMS, default="SolidVM")
    check.add_argument("--json", action="store_true", help="print the xabi as JSON")
    check.set_defaults(func=cmd_check)
    comp = sub.add_parser(
        "compile", help="bundle a root .sol file with its relative imports and compile it"
    )
    comp.add_argument("path", help="the root .sol file")
    comp.add_argument("--vm", choices=VMS, default="SolidVM")
    out = comp.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the xabi as JSON")
    out.add_argument(
        "--bundle", action="store_true", help="print the bundled source (the text the node gets)"
    )
    comp.set_defaults(func=cmd_compile)
    return ap


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    opts = parser.parse_args(argv)
    for name in ("name", "org", "unit", "password", "user"):  # text the node stores
        # argv bytes that are not UTF-8 arrive as lone surrogates (fine in a file's path)
        value = getattr(opts, name, None)
        if isinstance(value, str) and has_surrogate(value):
            parser.error(f"argument {name}: holds bytes that are not UTF-8 text")
    return int(opts.func(opts))


if __name__ == "__main__":
    sys.exit(main())

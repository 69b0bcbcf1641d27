"""The chain and the code: block hashes, code collections, account introspection.

``a.code`` is the source of the code collection the contract at ``a`` runs, ``a.code(name)`` the
declarations of its contract named ``name`` printed back as the platform does (``codeview``;
``a.code()``: the whole contract), ``a.codehash`` the collection's hash (hex), ``a.nonce`` its
nonce, ``a.creator`` / ``a.root`` the common name and address of the user at the root of its
creation tree.
"""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...codeview import code_of as code_lookup
from ...defs import ContractDef
from ...errors import ExecutionError
from ...ops import check_int, describe, keccak256, type_error
from ...runtime import Fn, Frame
from ...salted import code_hash, source_of
from ...types import ADDRESS, BYTES32, STRING, UINT, IntType, StringType, VariadicType
from ...values import Address
from ..base import CExpr, CompilerBase, const


class IntrospectionBuiltins(CompilerBase):
    """The chain and the code: block hashes, code collections, account introspection."""

    def b_blockhash(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error(f"blockhash takes one argument, {len(args)} given", e)
        f, t = self.expr(args[0])
        if self.uc.checks and t is not None and not isinstance(t, IntType):
            self.error(f"Type mismatch: blockhash takes an integer, not {t.name}", args[0])

        def run_blockhash(fr: Frame) -> Any:
            n = check_int(f(fr))
            if n < 0:
                raise ExecutionError(
                    "invalid arguments: blockhash() only accepts arguments greater than or "
                    f"equal to 0: [{n}]",
                    "invalid arguments",
                )
            if n > fr.ctx.block_number:
                raise ExecutionError(
                    f"invalid arguments: the block number given does not exist: [{n}]",
                    "invalid arguments",
                )
            return keccak256(str(n).encode())

        return run_blockhash, BYTES32

    def account_member(self, base: Fn, name: str, e: A.Member) -> CExpr | None:
        """``a.code``, ``a.codehash``, ``a.nonce``, ``a.creator``, ``a.root`` (None: not one)."""
        if name in ("code", "codehash"):

            def code_member(fr: Frame) -> Any:
                cdef = contract_at(fr, base(fr))
                src = source_of(cdef)
                return code_hash(src).hex() if name == "codehash" else src

            return code_member, STRING
        if name == "nonce":

            def nonce_of(fr: Frame) -> Any:
                a = base(fr)
                acct = fr.ctx.world.account_at(fr, a)
                chain = acct.chain if acct is not None else fr.acct.chain
                return fr.ctx.world.nonces.get((chain, a.value), 0)

            return nonce_of, UINT
        if name == "root":
            return (lambda fr: Address(fr.ctx.world.root_of(fr, base(fr)))), ADDRESS
        if name == "creator":

            def creator_of(fr: Frame) -> Any:
                world = fr.ctx.world
                cert = world.identities.get(world.root_of(fr, base(fr)))
                return cert.get("commonName", "") if cert else ""

            return creator_of, STRING
        return None

    def code_call(self, base: Fn, args: list[A.Expr], e: A.Call) -> CExpr:
        """``a.code(name)``: the declarations named ``name`` in the contract at ``a``."""
        if len(args) > 1:
            self.error(
                "Too many arguments were given, expected 1 argument/s, but received "
                f"{len(args)} arguments.",
                e,
            )
        term: Fn | None = None
        if args:
            term, t = self.expr(args[0])
            if t is not None and not isinstance(t, StringType | VariadicType):
                self.error(f"code(...) takes the name to look for (a string), not {t.name}", e)

        def code_of(fr: Frame) -> Any:
            cdef = contract_at(fr, base(fr))
            word = term(fr) if term is not None else ""
            if type(word) is not str:
                raise type_error(f"code(...) takes a string, got {describe(word)}")
            fr.ctx.steps += 1000  # as the platform charges: discourage code lookups in loops
            if fr.ctx.steps > fr.ctx.max_steps:
                raise fr.ctx.out_of_gas()
            return code_lookup(cdef, word)

        return code_of, STRING

    def type_member(self, tn: A.TypeName, name: str, e: A.Member) -> CExpr:
        """``type(C).name`` and ``type(C).creationCode`` / ``runtimeCode`` (the platform's
        ``runTimeCode`` spelling too): strings, as its typechecker types them; the code is the
        contract's source text."""
        if not isinstance(tn, A.UserTypeName) or tn.path[-1] not in self.uc.contracts:
            self.error("type(...) takes a contract name", e)
        target = self.uc.contracts[tn.path[-1]]
        if name == "name":
            return const(target.name), STRING
        if name in ("creationCode", "runtimeCode", "runTimeCode"):
            decl = target.decl
            assert decl is not None
            return const(source_slice(self.uc.source, decl.pos, decl.end)), STRING
        self.error(f"type({target.name}) has no member '{name}'", e)


def contract_at(fr: Frame, a: Any) -> ContractDef:
    acct = fr.ctx.world.account_at(fr, a)
    if acct is None or acct.cdef is None:
        shown = a.hex if isinstance(a, Address) else describe(a)
        raise ExecutionError(
            f"missing code collection: Address is not a SolidVM contract: {shown}",
            "missing code collection",
        )
    return acct.cdef


def source_slice(source: str, start: tuple[int, int], end: tuple[int, int]) -> str:
    """The text between two (line, column) positions, both included."""
    lines = source.split("\n")
    (l1, c1), (l2, c2) = start, end
    if l1 == l2:
        return lines[l1 - 1][c1 - 1 : c2]
    middle = lines[l1 : l2 - 1]
    return "\n".join([lines[l1 - 1][c1 - 1 :], *middle, lines[l2 - 1][:c2]])

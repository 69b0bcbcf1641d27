"""SolidVM's address values: :class:`Address` (an address or an account) and
:class:`ContractRef` (an address used as a contract type).

Their own module so that mypyc compiles them (``app/node/native.py``): addresses key the
world's mappings (a token's balances), and a Python-level ``__hash__``/``__eq__`` cost a call
each time a dict looks one up: some 50 calls per token transfer between the VM, the state
diff, the snapshot and Cirrus trackers, the trace and the pre-images. Compiled, the class's
hash and comparisons are C slots.
"""

from __future__ import annotations


class Address:
    """An address or an account: a 160-bit value plus, for accounts, the chain it lives on.

    ``chain`` is None (unspecified: the current chain), ``"main"`` or a 64-hex chain ID. Equality
    and hashing use the address only, so ``msg.sender`` (an account) and a stored ``address`` key
    the same mapping entry.
    """

    __slots__ = ("chain", "value")

    def __init__(self, value: int, chain: str | None = None) -> None:
        self.value = value
        self.chain = chain

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Address):
            return self.value == other.value
        if isinstance(other, int) and not isinstance(other, bool):
            return self.value == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __lt__(self, other: object) -> bool:
        return self.value < _addr_int(other)

    def __le__(self, other: object) -> bool:
        return self.value <= _addr_int(other)

    def __gt__(self, other: object) -> bool:
        return self.value > _addr_int(other)

    def __ge__(self, other: object) -> bool:
        return self.value >= _addr_int(other)

    @property
    def hex(self) -> str:
        return format(self.value, "040x")

    def account_text(self) -> str:
        if self.chain is None:
            return self.hex
        return f"{self.hex}:{self.chain}"

    def __repr__(self) -> str:
        return f"Address({self.account_text()})"


def _addr_int(o: object) -> int:
    if isinstance(o, Address):
        return o.value
    if isinstance(o, int):
        return o
    raise TypeError("cannot compare address with this value")


class ContractRef(Address):
    """A contract-typed value: an address that also names the contract type it is used as."""

    __slots__ = ("cname",)

    def __init__(self, cname: str, value: int, chain: str | None = None) -> None:
        super().__init__(value, chain)
        self.cname = cname

    def __repr__(self) -> str:
        return f"{self.cname}({self.account_text()})"

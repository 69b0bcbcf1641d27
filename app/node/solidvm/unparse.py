"""Statements and expressions printed back from the syntax tree, in the platform's layout.

``a.code(name)`` answers declarations as the platform prints them from its own syntax tree, not
as they were written: its printer drops parentheses, writes calls' arguments with "," and no
space, a ternary as ``c?a:b``, string literals between double quotes, numbers in decimal, and
indents nested blocks with its ``tab`` (a newline becomes a newline and two spaces). And it prints
the tree its optimiser left: integer and string literals folded (``13*56-3`` is ``725``),
``x += y`` written ``x = x + y``, ``++x`` written ``x = x + 1``, ``if (true)`` replaced by its
body, statements after ``return;``, ``break``, ``continue``, ``throw`` and ``revert`` dropped.
``fold`` and ``optimize`` do that on our tree (new nodes, the original is left alone); the
``*_text`` functions print. See ``codeview.py`` for declarations and contracts.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from . import ast as A

SETTERS = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="}  # the ones the optimiser rewrites


def tab(text: str) -> str:
    """The platform's ``tab``: every newline gets two spaces after it."""
    return text.replace("\n", "\n  ")


def unlines(parts: list[str]) -> str:
    return "".join(p + "\n" for p in parts)


def number_value(e: A.NumberLit) -> int:
    """The literal as written, without its unit (the platform keeps the unit aside)."""
    text = e.text.replace("_", "").lower()
    if text.startswith("0x"):
        return int(text, 16)
    if "e" in text:
        mant, _, exp = text.partition("e")
        if "." not in mant and mant.isdigit() and exp.isdigit():
            return int(mant) * int(10 ** int(exp))
        return int(e.value)
    try:
        return int(text)
    except ValueError:
        return int(e.value)


def _num(pos: A.Pos, n: int) -> A.NumberLit:
    return A.NumberLit(pos, n, str(n))


# ---------------------------------------------------------------- the optimiser's folding


def fold(e: A.Expr, decimal: bool = False) -> A.Expr:
    """``e`` as the platform's optimiser leaves it; ``decimal``: it initialises a decimal."""
    if isinstance(e, A.Assign):
        if e.op == "=":
            return A.Assign(e.pos, "=", e.target, fold(e.value, decimal))
        lhs, rhs = fold(e.target, decimal), fold(e.value, decimal)
        if e.op in SETTERS:
            return fold(A.Assign(e.pos, "=", lhs, A.Binary(e.pos, e.op[:-1], lhs, rhs)), decimal)
        return A.Assign(e.pos, e.op, lhs, rhs)
    if isinstance(e, A.Unary):
        x = fold(e.operand, decimal)
        if e.prefix and e.op in ("++", "--"):
            step = A.Binary(e.pos, e.op[0], x, _num(e.pos, 1))
            return fold(A.Assign(e.pos, "=", x, step), decimal)
        return A.Unary(e.pos, e.op, x, e.prefix)
    if isinstance(e, A.Binary):
        return _fold_binary(e, fold(e.left, decimal), fold(e.right, decimal), decimal)
    if isinstance(e, A.Call):
        return A.Call(e.pos, fold(e.func, decimal), e.args, e.names)  # arguments are left alone
    if isinstance(e, A.Member):
        return A.Member(e.pos, fold(e.obj, decimal), e.name)
    if isinstance(e, A.Index):
        idx = fold(e.index, decimal) if e.index is not None else None
        return A.Index(e.pos, fold(e.obj, decimal), idx)
    if isinstance(e, A.Ternary):
        return A.Ternary(
            e.pos, fold(e.cond, decimal), fold(e.then, decimal), fold(e.other, decimal)
        )
    if isinstance(e, A.TupleExpr):
        return A.TupleExpr(e.pos, [fold(i, decimal) if i is not None else None for i in e.items])
    if isinstance(e, A.ArrayLit):
        return A.ArrayLit(e.pos, [fold(i, decimal) for i in e.items])
    if isinstance(e, A.New) and e.salt is not None:
        return A.New(e.pos, e.type, fold(e.salt, decimal))
    return e


def _fold_binary(e: A.Binary, a: A.Expr, b: A.Expr, decimal: bool) -> A.Expr:
    op = e.op
    if isinstance(a, A.StringLit) and isinstance(b, A.StringLit) and op == "+":
        return A.StringLit(e.pos, a.value + b.value)
    if isinstance(a, A.NumberLit) and isinstance(b, A.NumberLit):
        x, y = number_value(a), number_value(b)
        if op == "+":
            return _num(e.pos, x + y)
        if op == "-":
            return _num(e.pos, x - y)
        if op == "*":
            return _num(e.pos, x * y)
        if op == "/" and y != 0:
            if decimal:  # the exact quotient rounded half to even to a whole number
                q = (Decimal(x) / Decimal(y)).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
                return A.DecimalLit(e.pos, int(q), 0, str(q))
            return _num(e.pos, x // y)
        if op == "%" and y != 0:
            return _num(e.pos, x % y)
    return A.Binary(e.pos, op, a, b)


def body_list(s: A.Stmt | None) -> list[A.Stmt]:
    """A statement used as a body, as the list of statements the platform keeps."""
    if s is None:
        return []
    return flatten(s.stmts if isinstance(s, A.Block) else [s])


def flatten(stmts: list[A.Stmt]) -> list[A.Stmt]:
    """Nested blocks (``{ ... }``, ``unchecked { ... }``) opened into their statements: the
    platform's grammar has no bare block."""
    out: list[A.Stmt] = []
    for s in stmts:
        if isinstance(s, A.Block):
            out += flatten(s.stmts)
        else:
            out.append(s)
    return out


def is_revert_call(s: A.Stmt) -> bool:
    """``revert(...)``: the platform's revert statement (``revert E(...)`` is ``RevertError``)."""
    return (
        isinstance(s, A.ExprStmt)
        and isinstance(s.expr, A.Call)
        and isinstance(s.expr.func, A.Ident)
        and s.expr.func.name == "revert"
    )


def optimize(stmts: list[A.Stmt]) -> list[A.Stmt]:
    """A function body as the platform's optimiser leaves it."""
    out: list[A.Stmt] = []
    for s in flatten(stmts):
        if isinstance(s, A.If):
            cond = fold(s.cond)
            if isinstance(cond, A.BoolLit):
                out += optimize(body_list(s.then if cond.value else s.other))
                continue
            other = None if s.other is None else A.Block(s.pos, optimize(body_list(s.other)))
            out.append(A.If(s.pos, cond, A.Block(s.pos, optimize(body_list(s.then))), other))
        elif isinstance(s, A.While):
            cond = fold(s.cond)
            if not (isinstance(cond, A.BoolLit) and not cond.value):
                out.append(A.While(s.pos, cond, A.Block(s.pos, optimize(body_list(s.body)))))
        elif isinstance(s, A.DoWhile):
            body = optimize(body_list(s.body))
            cond = fold(s.cond)
            if isinstance(cond, A.BoolLit) and not cond.value:
                out += body
            else:
                out.append(A.DoWhile(s.pos, A.Block(s.pos, body), cond))
        elif isinstance(s, A.For):
            test = fold(s.cond) if s.cond is not None else None
            post = fold(s.post) if s.post is not None else None
            loop = A.Block(s.pos, optimize(body_list(s.body)))
            out.append(A.For(s.pos, s.init, test, post, loop))
        elif isinstance(s, A.Try):
            expr = fold(s.expr) if s.expr is not None else None
            catches = [
                A.CatchClause(c.pos, c.name, c.params, c.names, _optimized_block(c.body))
                for c in s.catches
            ]
            out.append(A.Try(s.pos, expr, s.returns, _optimized_block(s.body), catches))
        elif isinstance(s, A.Break | A.Continue | A.Throw | A.RevertError) or is_revert_call(s):
            out.append(s)
            return out  # what follows is dropped
        elif isinstance(s, A.Return):
            out.append(A.Return(s.pos, fold(s.value)) if s.value is not None else s)
            if s.value is None:
                return out
        elif isinstance(s, A.ExprStmt):
            out.append(A.ExprStmt(s.pos, fold(s.expr)))
        elif isinstance(s, A.VarDecl) and not s.tuple_form and len(s.slots) == 1:
            init = fold(s.init) if s.init is not None else None
            out.append(A.VarDecl(s.pos, s.slots, init, s.tuple_form))
        else:
            out.append(s)
    return out


def _optimized_block(b: A.Block) -> A.Block:
    return A.Block(b.pos, optimize(b.stmts))


# ---------------------------------------------------------------- printing


def type_text(t: A.TypeName) -> str:
    """A type as the platform prints it (``uint`` stays ``uint``, ``byte`` is ``bytes1``)."""
    if isinstance(t, A.ElementaryTypeName):
        return "bytes1" if t.name == "byte" else t.name
    if isinstance(t, A.UserTypeName):
        return "TYPE_NOT_IMPLEMENTED" if t.path == ["variadic"] else ".".join(t.path)
    if isinstance(t, A.ArrayTypeName):
        if t.length is None:
            return type_text(t.base) + "[]"
        n = fold(t.length)
        size = str(number_value(n)) if isinstance(n, A.NumberLit) else expr_text(n)
        return f"{type_text(t.base)}[{size}]"
    if isinstance(t, A.MappingTypeName):
        return f"mapping ({type_text(t.key)} => {type_text(t.value)})"
    return "TYPE_NOT_IMPLEMENTED"


def decimal_text(e: A.DecimalLit) -> str:
    sign = "-" if e.mantissa < 0 else ""
    digits = str(abs(e.mantissa)).rjust(e.places + 1, "0")
    if not e.places:
        return sign + digits
    return f"{sign}{digits[: -e.places]}.{digits[-e.places :]}"


def expr_text(e: A.Expr | None) -> str:
    if e is None:
        return ""
    if isinstance(e, A.Assign):
        return f"{expr_text(e.target)} {e.op} {expr_text(e.value)}"
    if isinstance(e, A.Binary):
        return f"{expr_text(e.left)} {e.op} {expr_text(e.right)}"
    if isinstance(e, A.Unary):
        inner = expr_text(e.operand)
        return e.op + inner if e.prefix else inner + e.op
    if isinstance(e, A.Ident):
        return e.name
    if isinstance(e, A.Member):
        return f"{expr_text(e.obj)}.{e.name}"
    if isinstance(e, A.NumberLit):
        return str(number_value(e))
    if isinstance(e, A.DecimalLit):
        return decimal_text(e)
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.StringLit):
        return f'"{e.value}"'
    if isinstance(e, A.HexLit):
        return f'hex"{e.digits or e.value.hex()}"'
    if isinstance(e, A.TupleExpr):
        return "(" + ", ".join(expr_text(i) for i in e.items) + ")"
    if isinstance(e, A.Index):
        return f"{expr_text(e.obj)}[{expr_text(e.index)}]"
    if isinstance(e, A.Call):
        return expr_text(e.func) + "(" + ",".join(expr_text(a) for a in e.args) + ")"
    if isinstance(e, A.Ternary):
        return f"{expr_text(e.cond)}?{expr_text(e.then)}:{expr_text(e.other)}"
    if isinstance(e, A.New):
        return "new " + type_text(e.type) + expr_text(e.salt)
    if isinstance(e, A.ArrayLit):
        return "[" + ",".join(expr_text(i) for i in e.items) + "]"
    if isinstance(e, A.TypeExpr):
        t = e.type
        if isinstance(t, A.ElementaryTypeName) and t.payable and t.name == "address":
            return "payable"
        if isinstance(t, A.ElementaryTypeName):
            return t.name
        return type_text(t)
    return ""


def slot_text(slot: A.VarSlot | None) -> str:
    if slot is None:
        return ""
    t = type_text(slot.type) if slot.type is not None else "var"
    where = f" {slot.location} " if slot.location else " "
    return t + where + slot.name


def simple_text(s: A.Stmt | None) -> str:
    """A declaration or expression statement without its ``;`` (also a for loop's first part)."""
    if isinstance(s, A.VarDecl):
        slots = s.slots
        text = (
            slot_text(slots[0])
            if len(slots) == 1 and not s.tuple_form
            else ("(" + ", ".join(slot_text(x) for x in slots) + ")")
        )
        return text + (f" = {expr_text(s.init)}" if s.init is not None else "")
    if isinstance(s, A.ExprStmt):
        return expr_text(s.expr)
    return ""


def block_text(stmts: list[A.Stmt]) -> str:
    return tab(unlines([stmt_text(s) for s in flatten(stmts)]))


def stmt_text(s: A.Stmt) -> str:
    if is_revert_call(s):
        assert isinstance(s, A.ExprStmt) and isinstance(s.expr, A.Call)
        return "revert (" + ", ".join(expr_text(a) for a in s.expr.args) + ");\n"
    if isinstance(s, A.VarDecl | A.ExprStmt):
        return simple_text(s) + ";"
    if isinstance(s, A.If):
        text = f"if ({expr_text(s.cond)}) {{\n{block_text(body_list(s.then))}\n}}"
        if s.other is not None:
            text += f" else {{\n{block_text(body_list(s.other))}\n}}"
        return text
    if isinstance(s, A.While):
        return f"while ({expr_text(s.cond)}) {{\n{block_text(body_list(s.body))}\n}}"
    if isinstance(s, A.DoWhile):
        return f"do {{\n{block_text(body_list(s.body))}\n}} while ({expr_text(s.cond)});"
    if isinstance(s, A.For):
        head = f"for ({simple_text(s.init)}; {expr_text(s.cond)}; {expr_text(s.post)}) {{\n    "
        return head + block_text(body_list(s.body)) + "}"
    if isinstance(s, A.Return):
        return "return;" if s.value is None else f"return {expr_text(s.value)};"
    if isinstance(s, A.Break):
        return "break;"
    if isinstance(s, A.Continue):
        return "continue;"
    if isinstance(s, A.Placeholder):
        return "_;"
    if isinstance(s, A.Throw):
        return f"throw {expr_text(s.value)};"
    if isinstance(s, A.Emit):
        return f"emit {expr_text(s.event)}(" + ", ".join(expr_text(a) for a in s.args) + ");"
    if isinstance(s, A.RevertError):
        args = ", ".join(expr_text(a) for a in s.args)
        return f"revert {expr_text(s.error)}({args});\n"
    if isinstance(s, A.Try):
        return try_text(s)
    if isinstance(s, A.Block):
        return "\n".join(stmt_text(x) for x in flatten(s.stmts))
    return ""


def try_text(s: A.Try) -> str:
    """SolidVM's ``try {...} catch`` as the platform prints it (each clause ``catch Name[..]``,
    by name); Solidity's form is printed the same way after ``try <expr>`` (the platform dumps
    its internal structures there, which this does not copy)."""
    head = "try {\n" if s.expr is None else f"try {expr_text(s.expr)} {{\n"
    clauses = []
    for c in sorted(s.catches, key=lambda c: c.name):
        names = c.names or [p.name or "" for p in c.params or []]
        shown = "[" + ",".join(f'"{n}"' for n in names) + "]"
        clauses.append(f"catch {c.name}{shown} {{\n{block_text(c.body.stmts)}\n}}")
    return head + block_text(s.body.stmts) + "\n} catch " + " ".join(clauses)

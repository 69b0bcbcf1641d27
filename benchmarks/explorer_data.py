"""A big chain for the Explorer benchmark, written in bulk: N blocks and M transfers.

Running that many transactions through the node would take an hour; the Explorer only reads
blocks and transactions, so this writes their rows straight into the store of a data dir the
node made (its genesis, users and keys), then moves the snapshot mark to the new head so that
the node, started on it, serves the chain as its own without replaying anything. The transfers
carry value 0: balances and nonces stay as the snapshot has them.

    python benchmarks/explorer_data.py DATA_DIR [--blocks 100000] [--txs 200000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.node.store import Store, dumps  # noqa: E402

BATCH = 5_000  # blocks per SQLite transaction


def _hash(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()  # distinct, 64 hex digits


def grow(data_dir: Path, blocks: int, txs: int) -> tuple[int, int]:
    """Append ``blocks`` blocks holding ``txs`` transfers in all; returns the new head and the
    number of transactions written. The node must not be running on ``data_dir``."""
    store = Store(data_dir)
    try:
        users = store.all("SELECT name, address FROM keys ORDER BY name")
        if len(users) < 2:
            raise SystemExit(f"{data_dir}: start the node on it once first (it makes the users)")
        head = store.one("SELECT number, hash, timestamp FROM blocks ORDER BY number DESC LIMIT 1")
        number = int(head["number"]) if head else -1
        parent = str(head["hash"]) if head else "0" * 64
        seq_row = store.one("SELECT MAX(seq) FROM txs")
        seq = int(seq_row[0] or 0) if seq_row is not None else 0
        ts = int(time.time()) - blocks * 2
        written = 0
        per_block, extra = divmod(txs, blocks)
        for start in range(0, blocks, BATCH):
            block_rows = []
            tx_rows = []
            for b in range(start, min(start + BATCH, blocks)):
                number += 1
                ts += 2
                count = per_block + (1 if b < extra else 0)
                hashes = []
                for i in range(count):
                    seq += 1
                    sender = users[seq % len(users)]
                    to = users[(seq + 1) % len(users)]["address"]
                    h = _hash("tx", seq)
                    hashes.append(h)
                    payload = {"toAddress": to, "value": "0"}
                    request = {
                        "type": "TRANSFER",
                        "payload": payload,
                        "gasLimit": 100000000,
                        "gasPrice": 1,
                        "internal": False,
                        "signature": {},
                    }
                    result = {
                        "hash": h,
                        "status": "Success",
                        "txResult": {"status": "success", "blockHash": "", "gasUsed": "0x0"},
                    }
                    tx_rows.append(
                        (
                            seq,
                            h,
                            sender["address"],
                            sender["name"],
                            dumps(request),
                            dumps(result),
                            number,
                            i,
                            to,
                            seq,
                            ts - 1,
                        )
                    )
                block_hash = _hash("block", number, parent, hashes)
                block_rows.append((number, block_hash, parent, ts, count, 0))
                parent = block_hash
                written += count
            with store.transaction() as db:
                db.executemany(
                    "INSERT INTO blocks (number, hash, parent_hash, timestamp, tx_count, gas_used) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    block_rows,
                )
                db.executemany(
                    "INSERT INTO txs (seq, hash, sender, username, type, request, status, result, "
                    "block_number, tx_index, chain, to_address, nonce, submitted_at) "
                    "VALUES (?, ?, ?, ?, 'TRANSFER', ?, 'Success', ?, ?, ?, '', ?, ?, ?)",
                    tx_rows,
                )
        store.set_meta("snapshot_block", str(number))
        return number, written
    finally:
        store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--blocks", type=int, default=100_000)
    ap.add_argument("--txs", type=int, default=200_000)
    args = ap.parse_args()
    t0 = time.perf_counter()
    head, n = grow(args.data_dir, args.blocks, args.txs)
    print(f"head block {head}, {n} transactions written in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

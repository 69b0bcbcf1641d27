"""tools/run_platform_deploy.py: reading what the platform's deploy script printed.

The outputs are our own, shaped like deploy.js's (a summary between banners, then a ``.env``
snippet); the tool's run against a real checkout is not part of the test suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from run_platform_deploy import (
    check_printed,
    env_file,
    env_text,
    parse_deploy_output,
    state_addresses,
)

A, B, C = "a" * 40, "b" * 40, "c" * 40

GOOD = f"""Starting contract deployment process...
Deploying contract Mercata...
Contract deployed successfully!

====== Deployment Successful ======
Contract: Mercata
Address: {A}
Lending Pool: {B}
Save USDST Vault: {C}
===================================

DEPLOYED_CONTRACT_ADDRESS={A}

# ------------------------
# Paste these into your .env
# ------------------------
LENDING_POOL={B}
SAVE_USDST_VAULT={C}
MERCATA_CORE={A}
# ------------------------
"""


def test_a_complete_output_has_every_address() -> None:
    out = parse_deploy_output(GOOD)
    assert out.succeeded
    assert out.address == A
    assert out.labelled == {"Lending Pool": B, "Save USDST Vault": C}
    assert out.env == {"LENDING_POOL": B, "SAVE_USDST_VAULT": C, "MERCATA_CORE": A}
    assert check_printed(out) == []


def test_a_manager_missing_from_the_state_prints_undefined() -> None:
    text = GOOD.replace(f"Save USDST Vault: {C}", "Save USDST Vault: undefined").replace(
        f"SAVE_USDST_VAULT={C}", "SAVE_USDST_VAULT=undefined"
    )
    problems = check_printed(parse_deploy_output(text))
    assert "line Save USDST Vault: 'undefined' is not an address" in problems
    assert "env line SAVE_USDST_VAULT: 'undefined' is not an address" in problems


def test_a_failed_deployment_names_the_nodes_message() -> None:
    text = (
        "Deploying contract Mercata...\n"
        "Error: Request failed with status code 422: Error running the transaction: boom\n"
        '    data: "Error running the transaction: unknown function: contract Proxy has no '
        "public function 'initialize' taking 1 arguments\"\n"
        "  },\n"
        "Deployment failed: Error: Request failed with status code 422\n"
    )
    out = parse_deploy_output(text)
    assert not out.succeeded
    [problem] = check_printed(out)
    assert "Deployment failed: Error: Request failed with status code 422" in problem
    assert "the node said: Error running the transaction: unknown function: contract Proxy" in (
        problem
    )


def test_the_env_snippet_must_repeat_the_summary() -> None:
    text = GOOD.replace(f"LENDING_POOL={B}\n", "")
    problems = check_printed(parse_deploy_output(text))
    assert problems == [f"addresses printed as lines but not in the .env snippet: ['{B}']"]


def test_state_addresses_are_the_top_level_hex_values() -> None:
    state = {"lendingPool": B, "count": "5", "flag": "false", "nested": {"x": C}, "core": A}
    assert state_addresses(state) == {A, B}
    assert state_addresses(["not", "a", "dict"]) == set()


def test_env_text_points_oauth_at_the_discovery_document() -> None:
    text = env_text("http://127.0.0.1:9", "cid", "sec", "alice", "alice")
    assert "OAUTH_URL=http://127.0.0.1:9/auth/.well-known/openid-configuration\n" in text
    assert "OAUTH_CLIENT_ID=cid\nOAUTH_CLIENT_SECRET=sec\n" in text
    assert "GLOBAL_ADMIN_NAME=alice\nGLOBAL_ADMIN_PASSWORD=alice\n" in text


@pytest.mark.parametrize("existing", [None, b"NODE_URL=http://elsewhere\n"])
def test_env_file_puts_back_what_was_there(tmp_path: Path, existing: bytes | None) -> None:
    path = tmp_path / ".env"
    if existing is not None:
        path.write_bytes(existing)
    with env_file(tmp_path, "NODE_URL=http://sandbox\n"):
        assert path.read_text() == "NODE_URL=http://sandbox\n"
    if existing is None:
        assert not path.exists()
    else:
        assert path.read_bytes() == existing

"""Scenario files: placeholders for created contracts and users, validation of what is read."""

from __future__ import annotations

import pytest

from app.client.models import TxRequest, TxResult
from app.client.scenario import PLACEHOLDER_RE, Player, Recorder, Scenario, ScenarioError

ALICE = "a" * 40
CREATED = "c" * 39 + "1"


def upload_result(address: str) -> TxResult:
    return TxResult(
        "Success",
        "h" * 64,
        tag="Upload",
        contents={"address": address},
        contracts_created=[address],
    )


def test_recorder_replaces_created_contracts_and_users_by_placeholders() -> None:
    rec = Recorder({"alice": ALICE})
    rec.record([TxRequest.upload("C", "contract C {}", {"owner": ALICE})], [upload_result(CREATED)])
    call = TxRequest.call(CREATED, "give", {"to": "0x" + ALICE, "note": f"for {ALICE}!"})
    rec.record([call], [TxResult("Success", "h" * 64)], resolve=False, note="give")
    first, second = rec.scenario.steps
    assert first.txs[0]["payload"]["args"] == {"owner": "${user:alice}"}
    payload = second.txs[0]["payload"]
    assert payload["contractAddress"] == "${created:1}"
    assert payload["args"] == {"to": "${user:alice}", "note": "for ${user:alice}!"}
    assert second.resolve is False and second.note == "give"
    # unknown addresses stay as they are
    rec.record([TxRequest.transfer("b" * 40, 5)], [TxResult("Success", "h" * 64)])
    assert rec.scenario.steps[2].txs[0]["payload"]["toAddress"] == "b" * 40


def test_scenario_file_round_trip_and_validation() -> None:
    rec = Recorder()
    rec.record([TxRequest.transfer("b" * 40, 5)], [], tx_params={"gasLimit": 10})
    rec.scenario.recorded_by = "alice"
    text = rec.scenario.dumps()
    back = Scenario.loads(text)
    assert back.dumps() == text and back.steps[0].tx_params == {"gasLimit": 10}
    for bad, message in [
        ("{", "invalid JSON"),
        ("[]", "no steps"),
        ('{"version": 2, "steps": []}', "unsupported scenario version"),
        ('{"version": 1, "steps": [{"txs": []}]}', "non-empty list"),
        ('{"version": 1, "steps": [{"txs": [{"type": "X", "payload": {}}]}]}', "type of"),
        ('{"version": 1, "steps": [{"txs": [{"type": "TRANSFER"}]}]}', "payload"),
    ]:
        with pytest.raises(ScenarioError, match=message):
            Scenario.loads(bad)


def test_player_substitutes_and_refuses_unknown_placeholders() -> None:
    player = Player(None, {"bob": "b" * 40})  # type: ignore[arg-type]
    player.created = [CREATED]
    assert player._concrete("${created:1} to ${user:bob}") == f"{CREATED} to {'b' * 40}"
    with pytest.raises(ScenarioError, match="before 2 contract"):
        player._concrete("${created:2}")
    with pytest.raises(ScenarioError, match="no user named 'carol'"):
        player._concrete("${user:carol}")
    assert PLACEHOLDER_RE.findall("${created:12} ${user:x y}") == ["created:12", "user:x y"]

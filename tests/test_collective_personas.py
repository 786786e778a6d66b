"""Collectives of personas (`steer run --collective majority:N --personas
default|FILE`): member i answers as the file's i-th persona; its text opens the
member's conversations, its id is in the member's adaptation, and its sha256
keys the member's run; without personas nothing changes."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank_factory import write_test_bank
from openai_server import FakeOpenAI
from steer.adapt import opening
from steer.adapt._prompts import SYSTEM
from steer.errors import FileFormatError, InputError
from steer.run import crowd_gain, majority_vote, run_collective
from steer.run._personas import load_personas, shipped_personas
from steer.schema import Adaptation
from steer.score import load_responses, score

PERSONAS = [
    ("harbour-pilot", "You are a harbour pilot who guides ships into port in any weather."),
    ("archivist", "You are an archivist who catalogues letters from the nineteenth century."),
    ("beekeeper", "You keep forty hives and sell honey at the weekly market."),
]


def persona_toml(personas: list[tuple[str, str]]) -> str:
    return "".join(
        f"[[persona]]\nid = {json.dumps(i)}\ntext = {json.dumps(t, ensure_ascii=False)}\n\n"
        for i, t in personas
    )


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_test_bank(tmp_path / "bank.parquet", 30)


@pytest.fixture
def persona_file(tmp_path: Path) -> Path:
    path = tmp_path / "personas.toml"
    path.write_text(persona_toml(PERSONAS), encoding="utf-8")
    return path


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_shipped_personas() -> None:
    shipped = load_personas("default")
    assert "default" in shipped_personas() and shipped.source == "steer:default"
    assert len(shipped.personas) >= 8
    assert len({p.id for p in shipped.personas}) == len(shipped.personas)
    assert all(p.text.startswith("You ") for p in shipped.personas)
    assert shipped.sha256 == hashlib.sha256(shipped.path.read_bytes()).hexdigest()


def test_each_member_asks_as_its_persona(
    fake: tuple[FakeOpenAI, str], bank: Path, persona_file: Path, tmp_path: Path
) -> None:
    state, url = fake
    systems: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        assert messages[0]["role"] == "system"
        systems.append(messages[0]["content"])
        # Each persona answers its own letter: the vote is then a 3-way tie.
        for k, (_, text) in enumerate(PERSONAS):
            if messages[0]["content"].startswith(text):
                return "ABC"[k]
        return "D"

    state.reply = reply
    out = tmp_path / "crowd"
    done = run_collective(bank, "openai:gpt-x", out, "majority:3", limit=8, seed=5,
                          personas=persona_file, backend_options={"base_url": url})  # fmt: skip
    parts = done.members[0].responses.num_rows
    # What the server received: every request opens with one persona's text
    # before the system prompt, each persona on its member's requests only.
    assert Counter(systems) == {f"{text}\n\n{SYSTEM}": parts for _, text in PERSONAS}
    for i, member in enumerate(done.members):
        rows = member.responses
        assert set(rows["sample"].to_pylist()) == {i}
        assert {a["persona"] for a in rows["adaptation"].to_pylist()} == {PERSONAS[i][0]}
        assert set(rows["chosen_index"].to_pylist()) == {i}
        assert member.manifest.adaptation.persona == PERSONAS[i][0]
        assert member.manifest.generation["persona_sha256"] == sha(PERSONAS[i][1])
        journal = (out / "members" / f"m{i + 1:02d}" / "journal.jsonl").read_text()
        assert f'"persona":"{PERSONAS[i][0]}"' in journal.replace(" ", "")
    # The vote and the gain are computed as without personas; the vote is
    # nobody in particular.
    table = load_responses([out]).table
    member_rows = table.filter(pc.is_null(pc.struct_field(table["adaptation"], "collective")))
    again = majority_vote(member_rows, "majority:3", seed=5)
    assert again["chosen_index"].to_pylist() == done.vote["chosen_index"].to_pylist()
    assert crowd_gain(member_rows, done.vote, seed=5) == done.gain
    assert {a["persona"] for a in done.vote["adaptation"].to_pylist()} == {None}
    assert {a["collective"] for a in done.vote["adaptation"].to_pylist()} == {"majority:3"}
    record = json.loads((out / "collective.json").read_text())
    assert record["personas"] == str(persona_file.resolve())
    assert record["personas_sha256"] == hashlib.sha256(persona_file.read_bytes()).hexdigest()
    vote = json.loads((out / "vote" / "manifest.json").read_text())
    assert vote["generation"]["personas_sha256"] == record["personas_sha256"]
    assert "persona_sha256" not in vote["generation"] and "persona" not in vote["adaptation"]
    # Scored by adaptation, every member is its own row beside the collective.
    by = score(load_responses([out]), by=["adaptation"], metrics=["exact_match"], ci=None)
    base = "mc;shots=0;cot=none;prob=conditioning"
    assert set(by["adaptation"].to_pylist()) == {
        *(f"{base};persona={pid}" for pid, _ in PERSONAS),
        f"{base};collective=majority:3",
    }
    # Re-running resumes: nothing is asked twice.
    state.log.clear()
    resumed = run_collective(bank, "openai:gpt-x", out, "majority:3", limit=8, seed=5,
                             personas=persona_file, backend_options={"base_url": url})  # fmt: skip
    assert not state.log and resumed.n_new == 0 and resumed.vote.equals(done.vote)


def test_debaters_keep_their_personas(
    fake: tuple[FakeOpenAI, str], bank: Path, persona_file: Path, tmp_path: Path
) -> None:
    state, url = fake
    systems: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        systems.append(messages[0]["content"])
        return "It adds up. ANSWER: A"

    state.reply = reply
    done = run_collective(bank, "openai:gpt-x", tmp_path / "d", "debate:2,1", limit=4,
                          adaptation=Adaptation(format="together"), personas=persona_file,
                          backend_options={"base_url": url})  # fmt: skip
    parts = done.members[0].responses.num_rows
    # Two members (the file's first two personas), the opening round and one more.
    assert Counter(systems) == {f"{text}\n\n{SYSTEM}": 2 * parts for _, text in PERSONAS[:2]}
    debate = json.loads((tmp_path / "d" / "debate" / "r01" / "m02" / "manifest.json").read_text())
    assert debate["adaptation"]["persona"] == PERSONAS[1][0]
    assert debate["generation"]["persona_sha256"] == sha(PERSONAS[1][1])


def test_a_changed_persona_is_another_run(bank: Path, persona_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "c"
    run_collective(bank, "agent:human", out, "majority:3", personas=persona_file, limit=5)
    edited = [*PERSONAS]
    edited[1] = (edited[1][0], edited[1][1] + " You distrust round numbers.")
    persona_file.write_text(persona_toml(edited), encoding="utf-8")
    with pytest.raises(InputError, match=r"holds another collective run \(personas_sha256 was"):
        run_collective(bank, "agent:human", out, "majority:3", personas=persona_file, limit=5)
    with pytest.raises(InputError, match="holds another collective run"):
        run_collective(bank, "agent:human", out, "majority:3", limit=5)  # no personas now
    # Each member's run is keyed on its persona's text too: without the
    # collective's record, the member whose text changed is still refused.
    (out / "collective.json").unlink()
    with pytest.raises(InputError) as caught:
        run_collective(bank, "agent:human", out, "majority:3", personas=persona_file, limit=5)
    message = str(caught.value)
    assert f"{out / 'members' / 'm02'}: holds a different run" in message
    assert "generation.persona_sha256" in message


def test_without_personas_the_files_read_as_before(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "plain"
    done = run_collective(bank, "agent:random", out, "majority:2", limit=3)
    assert set(json.loads((out / "collective.json").read_text())) == {
        "collective_version", "collective", "members", "model", "seed",
    }  # fmt: skip
    for member in ("m01", "m02"):
        manifest = json.loads((out / "members" / member / "manifest.json").read_text())
        assert "persona" not in manifest["adaptation"]
        assert "persona_sha256" not in manifest["generation"]
        assert '"persona"' not in (out / "members" / member / "journal.jsonl").read_text()
    assert Adaptation().model_dump() == {
        "format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning", "order": None,
        "collective": None,
    }  # fmt: skip
    assert {a["persona"] for a in done.vote["adaptation"].to_pylist()} == {None}


def test_the_adaptation_carries_the_persona() -> None:
    plain = Adaptation(format="together")
    a = plain.with_persona("archivist", "You are an archivist.")
    assert a.label() == "together;shots=0;cot=none;prob=conditioning;persona=archivist"
    assert a.persona_text == "You are an archivist."
    assert opening([], a)[0] == {"role": "system", "content": f"You are an archivist.\n\n{SYSTEM}"}
    assert opening([], plain)[0] == {"role": "system", "content": SYSTEM}
    # The id is the key: read back from a file (text unknown) it is the same adaptation.
    back = Adaptation.model_validate_json(a.model_dump_json())
    assert back == a and hash(back) == hash(a) and back.persona_text is None
    assert a.model_copy(update={"order": "shuffle:2/1"}).persona_text == "You are an archivist."
    with pytest.raises(ValueError, match="has no text"):
        opening([], back)
    with pytest.raises(ValueError, match="lower-case letters"):
        Adaptation(persona="Not A Slug")
    with pytest.raises(ValueError, match="both its id and its text"):
        plain.with_persona("archivist")


BAD = {
    "duplicate": (
        '[[persona]]\nid = "a"\ntext = "One."\n\n[[persona]]\nid = "a"\ntext = "Two."\n',
        ":6: field 'persona[1].id': 'a' repeats the id of persona[0]",
    ),
    "empty-text": (
        '[[persona]]\nid = "a"\ntext = "One."\n\n[[persona]]\nid = "b"\ntext = "  "\n',
        ":7: field 'persona[1].text': is empty",
    ),
    "unknown-field": (
        '[[persona]]\nid = "a"\ntext = "One."\nage = 40\n',
        ":4: field 'persona[0].age': unknown key",
    ),
    "missing-text": ('[[persona]]\nid = "a"\n', ":1: field 'persona[0].text': is required"),
    "bad-id": ('[[persona]]\nid = "Mr X"\ntext = "One."\n', ":2: field 'persona[0].id':"),
    "top-level": ('name = "mine"\n', ":1: field 'name': unknown key"),
    "not-toml": ("[[persona]\n", ":1:10: invalid TOML"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_persona_files_are_one_line_and_exit_2(bank: Path, tmp_path: Path, case: str) -> None:
    body, message = BAD[case]
    path = tmp_path / "bad.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(FileFormatError):
        load_personas(path)
    out = tmp_path / "x"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "run", str(bank), "-m", "agent:random",
         "--collective", "majority:2", "--personas", str(path), "-o", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"{path}{message}" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--collective", "majority:4", "--personas", "FILE"], "FILE: has 3 personas, but "
         "--collective majority:4 needs 4 (one per member)"),
        (["--collective", "majority:11", "--personas", "default"], "has 10 personas, but "
         "--collective majority:11 needs 11"),
        (["--collective", "majority:2", "--personas", "defualt"],
         "unknown persona file 'defualt' — did you mean 'default'?"),
        (["--collective", "majority:2", "--personas", "nowhere.toml"],
         "nowhere.toml: no such persona file"),
        (["--personas", "default"], "--personas gives a collective's members their personas"),
    ],
)  # fmt: skip
def test_bad_persona_arguments_are_one_line_and_exit_2(
    bank: Path, persona_file: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "x"
    argv = [str(persona_file) if a == "FILE" else a for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "steer", "run", str(bank), "-m", "agent:random", *argv,
         "-o", str(out)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert message.replace("FILE", str(persona_file)) in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_the_cli_runs_a_crowd_of_the_shipped_personas(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "c"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "run", str(bank), "-m", "agent:human",
         "--collective", "majority:3", "--personas", "default", "-o", str(out),
         "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "accuracy: collective" in done.stdout
    shipped = [p.id for p in load_personas("default").personas]
    for i in range(3):
        manifest = json.loads((out / "members" / f"m{i + 1:02d}" / "manifest.json").read_text())
        assert manifest["adaptation"]["persona"] == shipped[i]
    assert json.loads((out / "collective.json").read_text())["personas"] == "steer:default"


_ids = st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)
_texts = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x7f"),
    min_size=1,
    max_size=60,
).filter(lambda t: t.strip() != "")


@settings(max_examples=12, deadline=None)
@given(
    personas=st.lists(st.tuples(_ids, _texts), min_size=2, max_size=5, unique_by=lambda p: p[0]),
    data=st.data(),
)
def test_valid_persona_files_round_trip_and_member_i_is_persona_i(
    personas: list[tuple[str, str]], data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("p")
    path = root / "personas.toml"
    path.write_text(persona_toml(personas), encoding="utf-8")
    loaded = load_personas(path)
    assert [(p.id, p.text) for p in loaded.personas] == [(i, t.strip()) for i, t in personas]
    n = data.draw(st.integers(2, len(personas)), label="members")
    bank = write_test_bank(root / "bank.parquet", 4)
    done = run_collective(bank, "agent:random", root / "c", f"majority:{n}", limit=2,
                          personas=path)  # fmt: skip
    for i, member in enumerate(done.members):
        pid, text = personas[i]
        assert {a["persona"] for a in member.responses["adaptation"].to_pylist()} == {pid}
        assert set(member.responses["sample"].to_pylist()) == {i}
        assert member.manifest.generation["persona_sha256"] == sha(text.strip())
        shown = member.manifest.adaptation.with_persona(pid, loaded.personas[i].text)
        assert opening([], shown)[0]["content"] == f"{text.strip()}\n\n{SYSTEM}"

"""The copy model (``model.candidates=analogy+copy``): it learns to copy a stem's known form
and choose the affix by it, hallucinates stems that keep their affixes, stores and reloads,
and joins the model in ranking a run's candidates."""

from __future__ import annotations

import json
import os
import random
import time

import pytest
import torch
import torch.nn.functional as F
from test_tables import HARMONY, write_table

from phonkit.data.hallucination import hallucinate, shared_part
from phonkit.data.lexicon import segment
from phonkit.model.copying import (
    OFFSETS,
    PAD,
    CopyModel,
    CopyNet,
    moved,
    offset_table,
    rows_of,
)
from phonkit.run.directory import Run
from phonkit.run.factory import load_copy_models
from phonkit.settings import ALIGNMENT_MOVES, CopyConfig
from phonkit.tables.candidates import known_forms
from phonkit.tables.copy_training import train_copy_model
from phonkit.tables.judges import posterior
from phonkit.tables.sizes import copy_config


@pytest.fixture(scope="module")
def harmony() -> CopyModel:
    rows = [line.split(",") for line in HARMONY.splitlines()]
    paradigms = {
        r[0]: {cell: segment(f) for cell, f in zip("12", r, strict=True) if f} for r in rows
    }
    return train_copy_model(paradigms, seed=1)


def test_copy_model_copies_the_stem_and_chooses_the_affix_by_its_vowels(harmony):
    for stem, right, wrong in (
        ("araba", "arabalar", "arabaler"),
        ("orman", "ormanlar", "ormanler"),
    ):
        known = {"1": segment(stem)}
        better, worse = harmony.nll(known, "2", [segment(right), segment(wrong)])
        assert better + 2 < worse  # e^2: more than seven times as probable
        assert "".join(harmony.greedy(known, "2")) == right


def test_copy_model_cannot_judge_an_unseen_cell_or_a_stem_with_nothing_known(harmony):
    assert harmony.nll({"1": segment("ev")}, "3", [segment("evler")]) is None
    assert harmony.nll({}, "2", [segment("evler")]) is None
    assert harmony.greedy({"2": segment("evler")}, "2") is None  # only the target is known


def test_copy_model_reloads_with_the_same_judgement(harmony):
    again = CopyModel.from_state(harmony.state())
    known, forms = {"1": segment("deniz")}, [segment("denizler"), segment("denizlar")]
    assert again.nll(known, "2", forms) == pytest.approx(harmony.nll(known, "2", forms))


def test_sized_copy_settings_follow_the_table_size():
    small = copy_config([[("a",), ("a", "b")]] * 5)
    assert (small.hallucinated, small.content) == (1.0, False)
    big = copy_config([[("a",)] * 4] * 50)  # 200 forms, 4 per stem, 50 stems
    assert big.content and big.hallucinated == pytest.approx(100 / 200)
    assert big.steps == 80 and big.stems_per_batch == 12
    bigger = copy_config([[("a",)] * 4] * 100)  # 400 forms: as many updates, no fewer
    assert bigger.steps == 80 and bigger.stems_per_batch == 12
    wide = copy_config([[("a",)] * 30] * 10)  # 30 forms per stem: ~4,000 passes bound them
    assert wide.steps == 70 and wide.stems_per_batch == 2
    given = copy_config([[("a",)] * 4] * 100, {"steps": 7, "lr": 0.01})  # given on top
    assert (given.steps, given.lr, given.stems_per_batch) == (7, 0.01, 12)
    assert OFFSETS == ALIGNMENT_MOVES == len(given.shift)


def test_a_copy_model_stored_with_its_seed_before_the_settings_were_declared_reloads(harmony):
    state = harmony.state()
    old = {**state, "config": {**state["config"], "seed": 1, "shift": tuple(CopyConfig.shift)}}
    known, forms = {"1": segment("deniz")}, [segment("denizler")]
    again = CopyModel.from_state(old)
    assert again.nll(known, "2", forms) == pytest.approx(harmony.nll(known, "2", forms))


def test_the_encoder_reads_each_form_as_a_packed_bidirectional_lstm_would():
    net = CopyNet(CopyConfig(), symbols=30, cells=5).eval()
    both = torch.nn.LSTM(net.encoder.input_size, net.encoder.hidden_size, batch_first=True,
                         bidirectional=True)  # fmt: skip
    for name, weight in both.named_parameters():
        reading = net.encoder_back if name.endswith("_reverse") else net.encoder
        weight.data = getattr(reading, name.removesuffix("_reverse")).data
    forms = torch.zeros(5, 9, dtype=torch.long)
    for number, length in enumerate([9, 3, 1, 6, 9]):
        forms[number, :length] = torch.randint(4, 30, (length,))
    present = forms != PAD
    x = net.embed(forms)
    packed = torch.nn.utils.rnn.pack_padded_sequence(
        x, present.sum(1), batch_first=True, enforce_sorted=False
    )
    expected = torch.nn.utils.rnn.pad_packed_sequence(both(packed)[0], batch_first=True)[0]
    torch.testing.assert_close(net.read_forms(x, present), expected)


def test_judging_reads_the_stem_once_as_a_copy_of_it_per_candidate_would(harmony):
    known = {"1": segment("deniz")}
    forms = [segment("denizler"), segment("denizlar"), segment("deniz")]
    row, example = harmony.query(known, "2")
    inputs, outputs = harmony.targets(forms)
    copies = [(number, example[1], example[2]) for number in range(len(forms))]
    with torch.no_grad():
        each = harmony.net(harmony.batch([row] * len(forms), copies), inputs, outputs)
        shared = harmony.net.judge(harmony.batch([row], [example]), inputs, outputs)
    torch.testing.assert_close(shared, each)


def test_a_copy_model_stored_with_a_bidirectional_encoder_reloads(harmony):
    state = harmony.state()
    weights = {
        f"encoder.{name.removeprefix('encoder_back.')}_reverse"
        if name.startswith("encoder_back.")
        else name: value
        for name, value in state["weights"].items()
    }
    known, forms = {"1": segment("deniz")}, [segment("denizler"), segment("denizlar")]
    again = CopyModel.from_state({**state, "weights": weights})
    assert again.nll(known, "2", forms) == harmony.nll(known, "2", forms)


def test_hallucinated_stems_keep_the_affixes_and_change_the_shared_part():
    row = [tuple("kitap"), tuple("kitaplar"), ()]
    assert shared_part([row[0], row[1]]) == ([0, 0], 5)
    made = hallucinate(row, ["x"], [1], CopyConfig().kept_at_junction, random.Random(1))
    assert made == [tuple("xxxxp"), tuple("xxxxplar"), ()]  # the junction's symbol kept


def test_posterior_over_candidates_sums_to_one():
    assert posterior([1.0, 1.0]) == [0.5, 0.5]
    assert sum(posterior([0.1, 3.0, 7.5])) == pytest.approx(1)


def test_fill_with_the_copy_model_keeps_it_in_the_run(cli, tmp_path):
    path = tmp_path / "harmony.csv"
    path.write_text(HARMONY, encoding="utf-8")
    out = tmp_path / "run"
    result = cli("fill", str(path), "--candidates", "analogy+copy", "--out", str(out),
                 "--set", "copy.dim=48")  # fmt: skip
    assert result.code == 0, result.err
    config = json.loads((out / "config.json").read_text())
    assert config["model"]["candidates"] == "analogy+copy"
    # The copy models' settings are the table's size's, the given one on top, recorded and
    # used by both copy models (trained in the forked process or in this one)
    table = rows_of(known_forms(Run(out).examples("train")))[1]
    assert config["copy"] == copy_config(table, {"dim": 48}).to_json()
    copies = load_copy_models(Run(out))
    assert len(copies) == 2 and not Run(out).missing_copy_models()
    assert [copy.config.dim for copy in copies] == [48, 48]
    assert [copy.net.to_uf.out_features for copy in copies] == [48, 48]
    filled = [line.split(",")[1] for line in result.out.splitlines()[16:]]
    assert all(form.endswith(("lar", "ler")) for form in filled)
    again = cli("predict", "-m", str(out), stdin=b"17\t2\t\n")  # araba
    assert again.code == 0 and again.out.split("\t")[2].strip() == filled[0]


def test_copy_candidates_are_a_choice_of_the_candidates_setting(cli, tmp_path):
    path = write_table(tmp_path / "t.csv", [["a", "ab"], ["c", ""]])
    result = cli("fill", str(path), "--candidates", "copy")
    assert result.code == 2 and "model, analogy, analogy+copy or ur" in result.err


def test_copy_models_judge_small_sets_of_table_sized_paradigms_only():
    from phonkit.tables.sizes import sized as sized_settings

    assert sized_settings(300, 13)["candidates"] == "analogy+copy"  # a textbook table
    assert sized_settings(200, 70)["candidates"] == "analogy"  # a UniMorph sample
    assert sized_settings(5_000, 5) == {}  # at scale nothing changes


def test_a_larger_table_trains_with_larger_batches():
    from phonkit.tables.sizes import LARGER_BATCHES
    from phonkit.tables.sizes import sized as sized_settings

    assert sized_settings(LARGER_BATCHES - 1)["batch_size"] == 16
    assert sized_settings(LARGER_BATCHES)["batch_size"] == 32  # Odden's Turkish: 298 forms
    assert "batch_size" not in sized_settings(2_000)  # the paper's scale keeps its settings


@pytest.mark.parametrize(("cells", "length"), [(1, 4), (3, 7), (13, 12)])
def test_the_alignment_moves_as_its_table_of_offsets_says(cells, length):
    generator = torch.Generator().manual_seed(cells)
    weight = torch.rand(5, cells * length, generator=generator)
    moves = F.pad(torch.rand(5, OFFSETS, generator=generator), (0, 1))  # move 10: none
    table = moves[:, offset_table(cells, length)]  # (examples, positions, positions)
    expected = torch.bmm(weight.unsqueeze(1), table)[:, 0]
    torch.testing.assert_close(moved(weight, moves, length), expected)


def test_the_model_s_process_takes_the_copy_model_the_child_has_not_begun(tmp_path, monkeypatch):
    import multiprocessing

    from phonkit.tables import copy_training

    trained = tmp_path / "trained"
    parent = os.getpid()
    taken = multiprocessing.get_context("fork").Event()  # the parent has taken its share

    def save(run, number):  # the child holds copy model 1 until the parent has taken 2
        if os.getpid() == parent:
            taken.set()
        else:
            assert taken.wait(30)
        with trained.open("a", encoding="utf-8") as handle:
            handle.write(f"{number} {'parent' if os.getpid() == parent else 'child'}\n")

    monkeypatch.setattr(copy_training, "save_copy_model", save)
    beside = copy_training.CopyModelsBeside(None, [1, 2])
    begun = time.monotonic() + 30
    while beside.taken.value == 0:  # the child has begun copy model 1
        assert time.monotonic() < begun and beside.child.is_alive()
        time.sleep(0.01)
    beside.end(None)
    assert beside.child.exitcode == 0
    assert sorted(trained.read_text().splitlines()) == ["1 child", "2 parent"]

"""The corpus-linguistics views: stats, paradigm, errors and concordance, on the tiny
lexicon and run of conftest, checked against the files they describe."""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest

from phonkit.data.lexicon import Entry, Example
from phonkit.views.error_analysis import Prediction, analyse, band, rewrite, wilson
from phonkit.views.pos import lemma_classes, part_of_speech


def tsv(text):
    return [line.split("\t") for line in text.splitlines()]


def lexicon_rows(path):
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def split_rows(run, split):
    return [line.split("\t") for line in (run / f"{split}.tsv").read_text().splitlines()]


def one_line_error(result, *parts):
    assert result.code == 2, result.err
    assert result.err.count("\n") == 1 and result.err.startswith("phonkit: error: ")
    assert "Traceback" not in result.err
    for part in parts:
        assert part in result.err


# -- stats ---------------------------------------------------------------------------------


def test_stats_describes_a_corpus(cli, lexicon_file):
    result = cli("stats", "--corpus", "tsv", "--path", str(lexicon_file))
    assert result.code == 0, result.err
    rows = tsv(result.out)
    assert rows[0] == ["section", "key", "value"]
    table = {(section, key): value for section, key, value in rows[1:]}
    lines = lexicon_rows(lexicon_file)
    lemmas = Counter(lemma for lemma, _, _ in lines)
    assert table["size", "entries"] == str(len(lines))
    assert table["size", "lemmas"] == str(len(lemmas)) == "12"
    assert table["size", "forms"] == str(len({form for _, form, _ in lines}))
    assert table["size", "bundles"] == str(len({bundle for _, _, bundle in lines}))
    assert ("size", "tokens") not in table  # no counts in a UniMorph table
    sizes = {int(k): int(v) for (s, k), v in table.items() if s == "paradigm_size"}
    assert sizes == dict(Counter(lemmas.values()))
    alphabet = {k: int(v) for (s, k), v in table.items() if s == "alphabet"}
    assert alphabet == dict(Counter("".join(form for _, form, _ in lines)))
    inventory = {k: int(v) for (s, k), v in table.items() if s == "feature"}
    assert inventory["N"] == sum("N" in bundle.split(";") for _, _, bundle in lines)
    # The default decomposition: the lemma and the whole bundle, two morphemes a word.
    per_word = {int(k): int(v) for (s, k), v in table.items() if s == "morphemes_per_word"}
    assert per_word == {2: len(lines)}
    features = {int(k): int(v) for (s, k), v in table.items() if s == "features_per_word"}
    assert features == dict(Counter(len(bundle.split(";")) for _, _, bundle in lines))
    inventory = [int(v) for s, _, v in rows[1:] if s == "bundle"]
    assert inventory == sorted(inventory, reverse=True)  # most frequent first
    assert "lemmas" in result.err and "alphabet" in result.err  # the summary, on stderr


def test_stats_counts_morphemes_as_the_decomposition_splits_words(cli, lexicon_file):
    result = cli(
        "stats",
        "--corpus",
        "tsv",
        "--path",
        str(lexicon_file),
        "--morphemes",
        "features",
        "--section",
        "morphemes_per_word",
    )
    assert result.code == 0, result.err
    per_word = {int(k): int(v) for _, k, v in tsv(result.out)[1:]}
    bundles = [bundle for _, _, bundle in lexicon_rows(lexicon_file)]
    assert per_word == dict(Counter(1 + len(bundle.split(";")) for bundle in bundles))
    bad = cli("stats", "--morphemes", "syllables")
    one_line_error(bad, "unknown morpheme decomposition 'syllables'")


def test_stats_counts_tokens_and_picks_one_section(cli, tmp_path):
    path = tmp_path / "counted.tsv"
    path.write_text("ev\tev\tN;SG\t10\nev\tevler\tN;PL\t2.5\nat\tat\tN;SG\t1\n")
    result = cli(
        "stats",
        "--corpus",
        "tsv",
        "--path",
        str(path),
        "--columns",
        "lemma,form,features,count",
        "--section",
        "size",
    )
    assert result.code == 0, result.err
    rows = tsv(result.out)[1:]
    assert {section for section, _, _ in rows} == {"size"}
    assert dict((key, value) for _, key, value in rows)["tokens"] == "13.5"


def test_stats_of_a_run_is_per_split_and_draws_a_figure(cli, trained_run, tmp_path):
    figure = tmp_path / "stats.png"
    result = cli("stats", "-m", str(trained_run), "--plot", str(figure))
    assert result.code == 0, result.err
    rows = tsv(result.out)
    assert rows[0] == ["split", "section", "key", "value"]
    entries = {split: int(v) for split, s, k, v in rows[1:] if (s, k) == ("size", "entries")}
    for split in ("train", "dev", "test"):
        assert entries[split] == len(split_rows(trained_run, split))
    assert entries["all"] == entries["train"] + entries["dev"] + entries["test"]
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--section", "nope"], "unknown section 'nope'; sections: size, pos,"),
        (["--plot", "x.txt"], "x.txt: choose a .png, .svg or .pdf file"),
        (["-m", "RUN", "--corpus", "sample"], "--corpus go with a corpus, not with -m"),
        (["-m", "RUN", "--morphemes", "features"], "--morphemes go with a corpus"),
    ],
)
def test_bad_stats_requests_are_one_line(cli, trained_run, args, message):
    args = [str(trained_run) if arg == "RUN" else arg for arg in args]
    one_line_error(cli("stats", *args), message)


# -- paradigm ------------------------------------------------------------------------------


def test_paradigm_lays_out_every_bundle_with_gold_and_the_models_forms(cli, trained_run):
    test = split_rows(trained_run, "test")
    lemma = test[0][0]
    result = cli("paradigm", "-m", str(trained_run), lemma)
    assert result.code == 0, result.err
    rows = tsv(result.out)
    header, rows = rows[0], rows[1:]
    assert header == [
        "lemma",
        "features",
        "gold",
        "source",
        "prediction",
        "correct",
        "surprisal",
        "gold_surprisal",
    ]
    cells = {row[1]: dict(zip(header, row, strict=True)) for row in rows}
    assert len(cells) == len(rows)  # one row per bundle
    # Every bundle that training saw for this class of lemma (all nouns here) is a row.
    assert set(cells) >= {row[2] for row in split_rows(trained_run, "train")}
    for split in ("train", "dev", "test"):
        for row_lemma, form, bundle, _ in split_rows(trained_run, split):
            if row_lemma == lemma:
                assert cells[bundle]["gold"] == form and split in cells[bundle]["source"]
    # The held-out cells agree with the run's own scoring of them.
    predictions = tsv((trained_run / "predictions.tsv").read_text())
    nll = predictions[0].index("nll")
    scored = {(row[0], row[1]): row for row in predictions[1:] if row[0] == lemma}
    assert scored
    for (_, bundle), row in scored.items():
        assert cells[bundle]["prediction"] == row[3]
        assert float(cells[bundle]["gold_surprisal"]) == pytest.approx(float(row[nll]), rel=2e-3)
    for cell in cells.values():
        assert cell["correct"] == (
            "" if not cell["gold"] else str(int(cell["gold"] == cell["prediction"]))
        )
        assert float(cell["surprisal"]) > 0
    assert lemma in result.err and "held-out" in result.err


def test_paradigm_shows_known_cells_and_marks_right_forms(cli, trained_run, tmp_path):
    lemma = split_rows(trained_run, "train")[0][0]
    first = tsv(cli("paradigm", "-m", str(trained_run), lemma).out)[1]
    bundle, prediction = first[1], first[4]
    known = tmp_path / "known.tsv"
    known.write_text(f"{lemma}\t{bundle}\t{prediction}\n")
    result = cli("paradigm", "-m", str(trained_run), lemma, "--known", str(known))
    assert result.code == 0, result.err
    row = next(row for row in tsv(result.out)[1:] if row[1] == bundle)
    assert "known" in row[3].split("/") and prediction in row[2].split(" / ")
    assert row[5] == "1"  # the prediction is one of the gold forms


def test_paradigm_of_a_new_lemma_is_fitted_to_its_known_cells(cli, trained_run, tmp_path):
    lemma, form, bundle, _ = split_rows(trained_run, "train")[0]
    others = [r for r in split_rows(trained_run, "train") if r[0] == lemma][:3]
    known = tmp_path / "known.tsv"
    known.write_text("".join(f"yeni{lemma}\t{b}\tyeni{f}\n" for _, f, b, _ in others))
    result = cli("paradigm", "-m", str(trained_run), "--known", str(known))
    assert result.code == 0, result.err
    rows = tsv(result.out)[1:]
    assert {row[0] for row in rows} == {f"yeni{lemma}"}
    given = {row[1]: row for row in rows if row[3] == "known"}
    assert set(given) == {b for _, _, b, _ in others}
    assert all(row[2] == f"yeni{f}" for _, f, b, _ in others for row in [given[b]])
    assert len(rows) > len(given)  # the rest of the paradigm is predicted
    assert "underlying form fitted" in result.err


def test_unknown_lemma_names_the_three_closest(cli, trained_run):
    lemma = split_rows(trained_run, "train")[0][0]
    result = cli("paradigm", "-m", str(trained_run), lemma + "x")
    one_line_error(result, f"lemma '{lemma}x' is not in the model", "closest: ")
    closest = result.err.rsplit("closest: ", 1)[1].strip().split(", ")
    assert len(closest) == 3 and closest[0] == lemma


def test_a_held_out_lemma_the_model_never_saw_asks_for_known_cells(cli, trained_run, tmp_path):
    # As in a --split lemmas run: the lemma is in the test split but not in the model.
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    lemma = split_rows(run, "test")[0][0]
    vocabulary = json.loads((run / "vocab.json").read_text())
    vocabulary["morphemes"].remove(f"lemma:{lemma}")
    (run / "vocab.json").write_text(json.dumps(vocabulary))
    result = cli("paradigm", "-m", str(run), lemma)
    one_line_error(result, f"lemma '{lemma}' is a held-out lemma", "--known FILE")


def test_bad_known_cells_name_the_line(cli, trained_run, tmp_path):
    bundle = split_rows(trained_run, "train")[0][2]
    known = tmp_path / "known.tsv"
    known.write_text(f"yeni\t{bundle}\tyeni\nyeni\tN;ZZZ\tyenizz\n")
    result = cli("paradigm", "-m", str(trained_run), "yeni", "--known", str(known))
    one_line_error(result, f"{known}:2: feature bundle 'N;ZZZ' is not in the model")


# -- errors --------------------------------------------------------------------------------


def test_rewrites_keep_the_shared_beginning_or_the_shared_ending():
    change = rewrite(tuple("evlerde"), tuple("evlerda"))
    assert (change.at, change.before, change.gold_part, change.predicted_part) == (
        "end",
        tuple("evlerd"),
        ("e",),
        ("a",),
    )
    assert rewrite(tuple("ev"), tuple("evler")).kind == ("end", (), tuple("ler"))
    # A missing prefix: the words differ from the first symbol on but end alike.
    prefix = rewrite(tuple("geboord"), tuple("boord"))
    assert prefix.kind == ("start", tuple("ge"), ())
    assert prefix.after == tuple("boord") and prefix.before == ()
    assert rewrite(tuple("begroet"), tuple("gebegroet")).kind == ("start", (), tuple("ge"))
    # Nothing shared at either end: the whole word is the ending.
    assert rewrite(tuple("gebersten"), tuple("berst")).kind == (
        "end",
        tuple("gebersten"),
        tuple("berst"),
    )
    assert [band(n)[1] for n in (0, 1, 2, 3, 4, 7, 8, 100)] == [
        "0",
        "1",
        "2-3",
        "2-3",
        "4-7",
        "4-7",
        "8-15",
        "64-127",
    ]


def test_accuracy_intervals_stay_within_0_and_100():
    low, high = wilson(5, 10)
    assert low == pytest.approx(100 - high) and 20 < low < 50 < high < 80
    assert wilson(10, 10)[1] == 100.0 and 60 < wilson(10, 10)[0] < 100
    assert wilson(0, 3)[0] == 0.0
    for cells in range(1, 200):
        for right in range(cells + 1):
            low, high = wilson(right, cells)
            assert 0 <= low <= 100 * right / cells <= high <= 100


def test_analysis_groups_cells_and_ranks_error_types():
    def cell(lemma, bundle, gold, predicted):
        return Prediction(lemma, tuple(bundle.split(";")), tuple(gold), tuple(predicted))

    cells = [
        cell("ev", "N;LOC", "evde", "evda"),
        cell("göl", "N;LOC", "gölde", "gölda"),
        cell("göl", "N;ABL", "gölden", "gölden"),
        cell("at", "N;LOC", "atta", "atda"),
    ]
    göller = Example(
        Entry("göl", ("N", "PL"), "göller"), tuple("göller"), ("lemma:göl", "feat:N;PL")
    )
    training = [göller] * 5
    analysis = analyse(cells, training)
    assert analysis.right == 1
    groups = {g.key: g for g in analysis.bundles}
    assert (groups["N;LOC"].cells, groups["N;LOC"].right) == (3, 0)
    assert groups["N;ABL"].accuracy == 100.0 and groups["N;ABL"].mld == 0.0
    bands = {g.key: g for g in analysis.bands}
    assert (bands["0"].cells, bands["4-7"].cells, bands["4-7"].train) == (2, 2, 5)
    first = analysis.types[0]
    assert (first.kind, len(first.errors)) == (("end", ("e",), ("a",)), 2)
    assert [item.lemma for item, _ in analysis.errors] == ["ev", "göl", "at"]


def test_errors_tables_add_up_to_the_predictions(cli, trained_run):
    predictions = tsv((trained_run / "predictions.tsv").read_text())[1:]
    wrong = [row for row in predictions if row[2] != row[3]]
    bundles = cli("errors", "-m", str(trained_run), "--table", "bundles")
    assert bundles.code == 0, bundles.err
    rows = tsv(bundles.out)
    assert rows[0][:2] == ["features", "cells"]
    assert sum(int(row[1]) for row in rows[1:]) == len(predictions)
    assert sum(int(row[4]) for row in rows[1:]) == len(predictions) - len(wrong)
    bands = tsv(cli("errors", "-m", str(trained_run), "--table", "bands").out)[1:]
    assert sum(int(row[1]) for row in bands) == len(predictions)
    rewrites = tsv(cli("errors", "-m", str(trained_run), "--table", "rewrites").out)[1:]
    assert sum(int(row[3]) for row in rewrites) == len(wrong)
    listing = cli("errors", "-m", str(trained_run), "--examples", "3")
    rows = tsv(listing.out)
    assert len(rows) - 1 == len(wrong)
    assert rows[0][4:9] == ["at", "before", "gold_part", "predicted_part", "after"]
    for row in rows[1:]:
        lemma, bundle, gold, predicted, at, before, gold_part, predicted_part, after = row[:9]
        assert before + gold_part + after == gold and before + predicted_part + after == predicted
        assert at in ("end", "start") and (not before if at == "start" else not after)
    assert "errors, aligned" in listing.err


def test_errors_filter_by_bundle_and_pattern(cli, trained_run, tmp_path):
    predictions = tsv((trained_run / "predictions.tsv").read_text())[1:]
    result = cli("errors", "-m", str(trained_run), "--bundle", "PL;N", "--table", "bundles")
    assert result.code == 0, result.err
    rows = tsv(result.out)[1:]
    assert rows and all({"N", "PL"} <= set(row[0].split(";")) for row in rows)
    expected = sum({"N", "PL"} <= set(row[1].split(";")) for row in predictions)
    assert sum(int(row[1]) for row in rows) == expected
    grep = cli(
        "errors", "-m", str(trained_run), "--grep", "ler$", "--plot", str(tmp_path / "e.png")
    )
    assert grep.code == 0, grep.err
    assert all(re.search("ler$", row[2]) or re.search("ler$", row[3]) for row in tsv(grep.out)[1:])
    assert (tmp_path / "e.png").read_bytes()[:4] == b"\x89PNG"


def test_errors_on_bad_input(cli, trained_run, tmp_path):
    one_line_error(
        cli("errors", "-m", str(trained_run), "--grep", "ler(("),
        "invalid regular expression 'ler(('",
        "at position",
    )
    one_line_error(cli("errors", "-m", str(trained_run), "--table", "x"), "unknown table 'x'")
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    for name in ("config.json", "vocab.json", "train.tsv", "dev.tsv", "test.tsv"):
        (unfinished / name).write_bytes((trained_run / name).read_bytes())
    one_line_error(cli("errors", "-m", str(unfinished)), "no test predictions", "--resume")


# -- concordance ---------------------------------------------------------------------------


def test_concordance_lists_every_matching_form_in_context(cli, lexicon_file):
    result = cli("concordance", "ler(im|in)", "--corpus", "tsv", "--path", str(lexicon_file))
    assert result.code == 0, result.err
    rows = tsv(result.out)
    assert rows[0] == ["lemma", "before", "match", "after", "features", "frequency"]
    lines = lexicon_rows(lexicon_file)
    matching = [
        (lemma, form, bundle) for lemma, form, bundle in lines if re.search("ler(im|in)", form)
    ]
    assert len(rows) - 1 == len(matching) > 0
    forms = Counter(form for _, form, _ in lines)
    found = []
    for lemma, before, match, after, bundle, frequency in rows[1:]:
        assert re.fullmatch("ler(im|in)", match)
        assert not re.search("ler(im|in)", before + match[:-1])  # the first match is marked
        found.append((lemma, before + match + after, bundle))
        assert int(frequency) == forms[before + match + after]
    assert sorted(found) == sorted(matching)
    assert [f for _, f, _ in found] == sorted(f for _, f, _ in found)  # sorted by form
    assert "match 'ler(im|in)'" in result.err


def test_concordance_sorts_by_ending_lemma_and_frequency(cli, tmp_path):
    path = tmp_path / "counted.tsv"
    path.write_text("ev\tevler\tN;PL\t3\nel\teller\tN;PL\t9\nbal\tballar\tN;PL\t1\nev\tev\tN\t5\n")
    common = ["--corpus", "tsv", "--path", str(path), "--columns", "lemma,form,features,count"]

    def forms(*args):
        result = cli("concordance", "l", *common, *args)
        assert result.code == 0, result.err
        return [row[1] + row[2] + row[3] for row in tsv(result.out)[1:]]

    assert forms("--sort", "ending") == ["ballar", "eller", "evler"]
    assert forms("--sort", "frequency") == ["eller", "evler", "ballar"]
    assert forms("--sort", "lemma") == ["ballar", "eller", "evler"]
    assert forms("--sort", "corpus") == ["evler", "eller", "ballar"]


def test_concordance_of_a_run_names_the_split(cli, trained_run):
    result = cli("concordance", "-m", str(trained_run), "--split", "test", "^.")
    assert result.code == 0, result.err
    rows = tsv(result.out)
    assert rows[0][0] == "split" and len(rows) - 1 == len(split_rows(trained_run, "test"))
    assert {row[0] for row in rows[1:]} == {"test"}


def test_invalid_pattern_is_quoted_with_its_position(cli):
    one_line_error(
        cli("concordance", "ab(c"),
        "invalid regular expression 'ab(c': missing ), unterminated subpattern at position 2",
    )


@pytest.mark.parametrize("command", ["stats", "concordance ."])
def test_views_into_a_closed_pipe_end_quietly(command):
    # Only the built-in plugins: what an installed plugin says when it loads is not ours.
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{sys.executable} -m phonkit {command} | head -2"],
        capture_output=True,
        env={**os.environ, "PHONKIT_LOAD_PLUGINS": ""},
    )
    assert done.returncode == 0
    assert done.stdout.count(b"\n") == 2
    assert b"Error" not in done.stderr and b"Traceback" not in done.stderr


# -- parts of speech -----------------------------------------------------------------------


def test_participles_belong_to_the_verbs_paradigm():
    entries = [
        Entry("zengen", ("V", "NFIN"), "zengen"),
        Entry("zengen", ("V.PTCP", "PST"), "gezengd"),
        Entry("zengen", ("V", "IND", "PST", "3", "SG"), "zengde"),
        Entry("huis", ("N", "PL"), "huizen"),
    ]
    assert part_of_speech(("V.PTCP", "PST")) == "V.PTCP"
    assert part_of_speech(("pl",)) == "-"
    assert lemma_classes(entries) == {"zengen": "V", "huis": "N"}

import functools
import gzip
import http.server
import lzma
import threading

import pytest

from conftest import SHARED
from phonkit.data.corpora import CorpusRequest
from phonkit.errors import InputError
from phonkit.plugins import lookup

TABLE = "ev\tevler\tN;PL\nev\tev\tN;SG\nkol\tkollar\tN;PL\n"


def read(corpus, **request):
    return lookup("corpora", corpus).read(CorpusRequest(**request))


@pytest.mark.parametrize("name", ["nld.tsv", "nld.tsv.xz", "nld.gz", "nld"])
def test_unimorph_reads_a_table_under_any_supported_name(tmp_path, name):
    folder = tmp_path / "unimorph"
    folder.mkdir()
    data = TABLE.encode()
    if name.endswith(".xz"):
        data = lzma.compress(data)
    elif name.endswith(".gz"):
        data = gzip.compress(data)
    (folder / name).write_bytes(data)
    assert len(read("unimorph", lang="nld", data_dir=tmp_path)) == 3
    assert lookup("corpora", "unimorph").languages(CorpusRequest(data_dir=tmp_path)) == ["nld"]


def test_unimorph_data_dir_comes_from_phonkit_data(tmp_path, monkeypatch):
    (tmp_path / "unimorph").mkdir()
    (tmp_path / "unimorph" / "tur.tsv").write_text(TABLE)
    monkeypatch.setenv("PHONKIT_DATA", str(tmp_path))
    assert len(read("unimorph", lang="tur")) == 3


@pytest.fixture
def server(tmp_path):
    """A local HTTP server on 127.0.0.1 serving tmp_path/served."""
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield served, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_unimorph_downloads_a_missing_table(tmp_path, server, monkeypatch):
    served, url = server
    (served / "kat").write_text(TABLE)
    monkeypatch.setenv("PHONKIT_UNIMORPH_URL", url + "/{lang}")
    data = tmp_path / "data"
    assert len(read("unimorph", lang="kat", data_dir=data)) == 3
    assert (data / "unimorph" / "kat").read_text() == TABLE
    assert not list((data / "unimorph").glob("*.part"))


def test_unimorph_without_network_says_where_to_put_the_file(tmp_path, server, monkeypatch):
    _, url = server
    monkeypatch.setenv("PHONKIT_UNIMORPH_URL", url + "/missing/{lang}")
    with pytest.raises(InputError) as raised:
        read("unimorph", lang="kat", data_dir=tmp_path)
    message = str(raised.value)
    assert "\n" not in message
    assert str(tmp_path / "unimorph" / "kat") in message
    assert not (tmp_path / "unimorph" / "kat").exists()


@pytest.mark.skipif(not (SHARED / "sigmorphon").is_dir(), reason="needs ../shared/data")
def test_conll2017_merges_task1_and_task2_without_duplicates():
    lexicon = read("conll2017", lang="tur", data_dir=SHARED)
    lines = set()
    for path in (SHARED / "sigmorphon" / "conll2017").glob("task*/turkish-*"):
        if "-covered-" in path.name:  # the task-2 inputs: the uncovered files' forms, blanked
            continue
        with lzma.open(path, "rt", encoding="utf-8") as handle:
            lines.update(line for line in handle.read().splitlines() if line)
    assert len(lexicon) == len(lines)
    assert "tur" in lookup("corpora", "conll2017").languages(CorpusRequest(data_dir=SHARED))


def test_conll2017_unknown_language_lists_the_available_ones(tmp_path):
    with pytest.raises(InputError, match="has no language 'xyz'; available: none"):
        read("conll2017", lang="xyz", data_dir=tmp_path)


def test_tsv_corpus_with_columns_and_counts(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("ev\tN;PL\tevler\t3\nev\tN;SG\tev\t10\n")
    lexicon = read("tsv", path=str(path), columns="lemma,features,form,count")
    assert [(e.form, e.count) for e in lexicon.entries] == [("evler", 3.0), ("ev", 10.0)]


def test_hf_reads_local_parquet_csv_and_saved_datasets(tmp_path):
    datasets = pytest.importorskip("datasets")
    records = {"lemma": ["ev", "ev"], "word": ["evler", "ev"], "tags": [["N", "PL"], ["N", "SG"]]}
    dataset = datasets.Dataset.from_dict(records)
    dataset.to_parquet(str(tmp_path / "d.parquet"))
    dataset.save_to_disk(str(tmp_path / "saved"))
    (tmp_path / "d.tsv").write_text("lemma\tword\ttags\nev\tevler\tN;PL\nev\tev\tN;SG\n")
    columns = "lemma=lemma,form=word,features=tags"
    for source in ("d.parquet", "saved", "d.tsv"):
        lexicon = read("hf", path=str(tmp_path / source), columns=columns)
        assert [(e.form, e.features) for e in lexicon.entries] == [
            ("evler", ("N", "PL")),
            ("ev", ("N", "SG")),
        ], source


def test_hf_names_a_missing_column(tmp_path):
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_dict({"lemma": ["ev"], "form": ["ev"]}).to_parquet(
        str(tmp_path / "d.parquet")
    )
    with pytest.raises(InputError, match="has no column 'features'; it has lemma, form"):
        read("hf", path=str(tmp_path / "d.parquet"))


def test_hf_hub_name_without_network_fails_with_one_line(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(InputError) as raised:
        read("hf", path="unimorph/no-such-dataset-here")
    assert "cannot load Hugging Face dataset 'unimorph/no-such-dataset-here'" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_bundled_sample_is_real_turkish():
    lexicon = read("sample", lang="tur")
    assert len(lexicon) == 14352
    assert len(lexicon.lemmas) == 200

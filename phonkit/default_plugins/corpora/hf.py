"""Any Hugging Face ``datasets`` dataset: a Hub name, a saved dataset, or local data files."""

from __future__ import annotations

from pathlib import Path

from phonkit.data.corpora import Corpus, CorpusRequest
from phonkit.data.lexicon import Lexicon, entry_from_fields, parse_columns
from phonkit.errors import InputError
from phonkit.hookspecs import hookimpl

BUILDERS = {
    ".parquet": "parquet",
    ".arrow": "arrow",
    ".csv": "csv",
    ".tsv": "csv",
    ".json": "json",
    ".jsonl": "json",
}


def load(source: str, lang: str | None, split: str | None):
    """Load a dataset (all splits concatenated unless one is named) with ``datasets``."""
    import datasets

    path = Path(source)
    if path.is_dir() and any(
        (path / name).exists() for name in ("dataset_info.json", "state.json", "dataset_dict.json")
    ):
        dataset = datasets.load_from_disk(str(path))
    elif path.is_file():
        builder = BUILDERS.get(path.suffix)
        if builder is None:
            raise InputError(f"cannot tell the format of {path}; use one of {', '.join(BUILDERS)}")
        extra = {"delimiter": "\t"} if path.suffix == ".tsv" else {}
        dataset = datasets.load_dataset(builder, data_files=str(path), **extra)
    elif _looks_local(source):
        raise InputError("no such file or directory", source)
    else:
        dataset = datasets.load_dataset(source, lang)
    if isinstance(dataset, datasets.DatasetDict):
        if split:
            if split not in dataset:
                raise InputError(
                    f"dataset {source!r} has no split {split!r}; it has {', '.join(dataset)}"
                )
            return dataset[split]
        return datasets.concatenate_datasets(list(dataset.values()))
    return dataset


def _looks_local(source: str) -> bool:
    """A path rather than a Hub name (``owner/name``): it names a data file by its suffix,
    starts at ``.``, ``~`` or ``/``, or has more than one ``/``."""
    return (
        Path(source).suffix in BUILDERS
        or source.startswith((".", "/", "~"))
        or source.count("/") > 1
    )


class HuggingFace(Corpus):
    name = "hf"
    description = (
        "a Hugging Face dataset (--path HUB_NAME|DIR|FILE, --lang CONFIG, "
        "--columns lemma=COL,form=COL,features=COL, -O split=NAME)"
    )

    def read(self, request: CorpusRequest) -> Lexicon:
        if not request.path:
            raise InputError(
                "corpus 'hf' needs data.path with a Hub dataset name or a local path",
                setting="data.path",
            )
        mapping, _ = parse_columns(request.columns or "lemma=lemma,form=form,features=features")
        try:
            dataset = load(request.path, request.lang, request.options.get("split"))
        except InputError:
            raise
        except Exception as error:  # datasets raises many types; the user needs one line
            first = (
                str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            )
            raise InputError(
                f"cannot load Hugging Face dataset {request.path!r}: {first}"
            ) from None
        missing = [column for column in mapping.values() if column not in dataset.column_names]
        if missing:
            raise InputError(
                f"dataset {request.path!r} has no column {missing[0]!r}; it has "
                f"{', '.join(dataset.column_names)} "
                "(map them with data.columns=lemma=...,form=...,features=...)",
                setting="data.columns",
            )
        entries = []
        for number, record in enumerate(dataset, start=1):
            values = {role: _text(record[column]) for role, column in mapping.items()}
            entries.append(entry_from_fields(values, f"{request.path}:row {number}"))
        return Lexicon.of(entries, f"hf/{request.path}")


def _text(value) -> str:
    """Feature columns may hold lists of tags; everything else is taken as text."""
    if isinstance(value, list | tuple):
        return ";".join(str(item) for item in value)
    return "" if value is None else str(value)


@hookimpl
def register_corpora(register):
    register(HuggingFace())

"""A job's corpus as training reads it: what its reader is asked for, which transcriber
gives its forms, and its examples (each entry with its surface symbols and morphemes).
Commands that only read a corpus (``stats``) take them from here, without the training's
imports."""

from __future__ import annotations

from dataclasses import replace

from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import DEFAULT_DECOMPOSITION, Example, Lexicon
from phonkit.errors import InputError
from phonkit.jobs import TrainRequest
from phonkit.plugins import lookup
from phonkit.progress import say


def request_of(job: TrainRequest) -> CorpusRequest:
    """What the job asks its corpus reader for, in the reader's default language where it
    names none (the sample's: Turkish)."""
    default = getattr(lookup("corpora", job.corpus), "default_lang", None)
    return job.request if job.request.lang or not default else replace(job.request, lang=default)


def choose_transcriber(corpus: str, transcriber: str, ipa: bool) -> str:
    """The transcriber asked for; with ``ipa``, the one that gives the corpus's forms in IPA:
    its own (a corpus reader may name one as ``ipa_transcriber``, e.g. CELEX's DISC table),
    else epitran's G2P."""
    if ipa and transcriber != "none":
        raise InputError(
            f"ipa and transcriber={transcriber} ask for two transcribers",
            setting=("ipa", "transcriber"),
        )
    if ipa:
        transcriber = getattr(lookup("corpora", corpus), "ipa_transcriber", None) or "epitran"
    lookup("transcribers", transcriber)
    return transcriber


def surface_examples(
    lexicon: Lexicon,
    transcriber_name: str,
    lang: str | None,
    morphemes: str = DEFAULT_DECOMPOSITION,
) -> list[Example]:
    """Attach surface symbols (by the chosen transcriber) and morphemes (by the chosen
    decomposition) to every entry."""
    transcriber = lookup("transcribers", transcriber_name)
    decomposition = lookup("decompositions", morphemes)
    surfaces = transcriber.transcribe(lang or "", [entry.form for entry in lexicon.entries])
    examples = [
        Example(entry, surface, decomposition.morphemes(entry))
        for entry, surface in zip(lexicon.entries, surfaces, strict=True)
        if surface
    ]
    if len(examples) < len(lexicon.entries):
        say(
            f"warning: {transcriber_name} gave no symbols for "
            f"{len(lexicon.entries) - len(examples):,} forms; they are left out"
        )
    return examples

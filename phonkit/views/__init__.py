"""Corpus-linguistics views: describe a lexicon (``stats``), lay out one lemma's paradigm
with the model's forms (``paradigm``), analyse a model's errors (``errors``) and list the
forms that match a pattern (``concordance``). Each view is a library function returning
records; :mod:`phonkit.cli.views` prints them as TSV on stdout and rich tables on stderr."""

"""Data: lexicons and their TSV files, corpus readers' and transcribers' base classes,
surface symbols and vocabularies, and the splits. The directory also holds the bundled
sample (``tur-sample.tsv.xz``, see its README.md)."""

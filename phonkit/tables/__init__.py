"""Small data: filling a phonologist's paradigm table of 20-300 forms.

Below :data:`phonkit.tables.sizes.SMALL` training forms a run takes the settings of its size
(:mod:`~phonkit.tables.sizes`); copy models train beside the model
(:mod:`~phonkit.tables.copy_training`); a gap's candidates are the affix rewrites the table
shows between the stem's known cells and the gap's (:mod:`~phonkit.tables.rewrites`,
:mod:`~phonkit.tables.candidates`), and the model and the copy models judge them
(:mod:`~phonkit.tables.judges`). docs/architecture.md draws the path; docs/results/tables.md
measures it.
"""

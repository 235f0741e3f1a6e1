"""The model: the phonology network and its variants' base, its settings, decoding, training,
and fitting the underlying forms of new lemmas."""

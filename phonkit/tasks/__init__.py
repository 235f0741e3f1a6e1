"""What phonkit does with a model: train it, predict paradigm gaps, evaluate it (with its
metrics), score lemmas new to it, and the edit baseline."""

"""The run directory: what a trained model is on disk, and the lock of its one writer."""

"""Looking at what a model learned: underlying forms, vowel attributes, significance tests."""

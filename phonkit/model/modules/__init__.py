"""Parts that models compose: an encoder of symbol sequences, a monotonic alignment over the
forms a word reads, and an emission that generates or copies (after yoyodyne's
``models/modules/``)."""

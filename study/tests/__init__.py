"""Tests of the study (their own lane: ``python -m pytest study/tests``)."""

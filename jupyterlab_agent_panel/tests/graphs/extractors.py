"""Test extractors for the demo graph's ``demo_lookup`` tool."""
import json


class AnswerOnlyExtractor:
    """Replaces the demo's own extractor: keeps just the answer."""

    tool_name = "demo_lookup"
    extracted_type = "answer_only"

    def extract(self, content):
        return {"answer": json.loads(content)["answer"]}


def unserializable():
    """A factory whose extractor returns data JSON cannot encode (a set)."""

    class SetExtractor:
        tool_name = "demo_lookup"
        extracted_type = "a_set"

        def extract(self, content):
            return {"answers": {json.loads(content)["answer"]}}

    return [SetExtractor()]


def non_finite():
    """A factory whose extractor returns NaN and ±Infinity, which JSON has no words for."""

    class StatsExtractor:
        tool_name = "demo_lookup"
        extracted_type = "stats"

        def extract(self, content):
            nan = float("nan")
            return {"answer": json.loads(content)["answer"], "mean": nan, "range": [float("-inf"), float("inf")]}

    return [StatsExtractor()]

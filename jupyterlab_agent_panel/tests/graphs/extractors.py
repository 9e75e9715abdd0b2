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

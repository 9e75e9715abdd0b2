"""Images reach a model that reads them, and only such a model (docs/protocol.md §16.7).

An image attachment of a chat and the images of a ``read_cell`` result go to
``gpt-4.1-mini`` (LangChain's profile: it reads images) as image parts, and
to ``local-llama`` (no profile) not at all; the scripted server counts the
image parts of what it is sent.
"""

from __future__ import annotations

import json

import pytest

from builtin_helpers import LOCAL, MODEL, PNG, interrupts, json_body, new_thread, tool_results
from helpers import text_of
from notebook_panel import Cell, Notebook, NotebookPanel, image_output, stream_output

IMAGE_TEXT = "[image output: image/png, 70 bytes; not sent as an image]"


def image_attachment(data: str = PNG) -> dict:
    return {
        "kind": "image",
        "source": "cell 2 of a.ipynb",
        "text": IMAGE_TEXT,
        "image": {"mime_type": "image/png", "data": data},
    }


def read_cell_result(images: int) -> str:
    cell = {"index": 1, "cell_id": "c-2", "cell_type": "code", "source": "plot()", "source_length": 6}
    outputs = [{"output_type": "display_data", "data": {"image/png": f"omitted ({len(PNG)} characters)"}}] * images
    found = [{"mime_type": "image/png", "data": PNG, "output_index": i} for i in range(images)]
    return json.dumps(
        {"status": "ok", "path": "a.ipynb", **cell, "fingerprint": "f", "outputs": outputs, "images": found}
    )


@pytest.fixture
def agent_panel_config(model_env):
    return {"model": MODEL}


@pytest.mark.parametrize(("model", "seen"), [(MODEL, 1), (LOCAL, 0)])
async def test_an_attached_image_reaches_a_model_that_reads_images(run_turn, model_env, model, seen):
    body = {
        "message": "how many images?",
        "thread_id": new_thread(),
        "model": model,
        "attachments": [image_attachment()],
    }

    frames = await run_turn("chat", body)

    assert text_of(frames) == f"I see {seen} image(s)."
    [user] = [m for m in model_env.requests[-1]["messages"] if m["role"] == "user"]
    assert IMAGE_TEXT in json.dumps(user)  # the text that describes it goes either way


@pytest.mark.parametrize(("model", "seen"), [(MODEL, 2), (LOCAL, 0)])
async def test_the_images_of_a_read_cell_result_follow_its_text(run_turn, model_env, model, seen):
    plots = [image_output(PNG), stream_output("done\n"), image_output(PNG)]
    nb = NotebookPanel([Notebook("a.ipynb", [Cell("c-1", "x"), Cell("c-2", "plot()", outputs=plots)])], "a.ipynb")
    thread_id = new_thread()
    paused = await run_turn("chat", {"message": "look at cell c-2", "thread_id": thread_id, "model": model})
    [pending] = interrupts(paused)
    assert pending["action_requests"][0]["name"] == "read_cell"

    decisions = nb.decisions(pending)
    assert [i["output_index"] for i in json.loads(decisions[0]["message"])["images"]] == [0, 2]
    resumed = await run_turn("resume", {"thread_id": thread_id, "decisions": decisions, "model": model})

    assert text_of(resumed) == f"I read cell c-2 and see {seen} image(s)."
    [result] = tool_results(model_env.requests[-1])
    # The result's text reaches every model without the bytes; a vision model gets the images after it.
    text = result["content"] if isinstance(result["content"], str) else result["content"][0]["text"]
    assert "images" not in json.loads(text) and json.loads(text)["cell_id"] == "c-2"
    [shown] = [f for f in resumed if "tool_result" in f]
    assert PNG not in shown["tool_result"]


async def test_at_most_four_images_of_a_result_are_sent(run_turn, model_env):
    thread_id = new_thread()
    await run_turn("chat", {"message": "look at cell c-2", "thread_id": thread_id})

    decisions = [{"type": "respond", "message": read_cell_result(images=6)}]
    resumed = await run_turn("resume", {"thread_id": thread_id, "decisions": decisions})

    assert text_of(resumed) == "I read cell c-2 and see 4 image(s)."


@pytest.mark.parametrize(
    ("image", "problem"),
    [
        (
            {"mime_type": "image/bmp", "data": PNG},
            "mime_type must be one of image/png, image/jpeg, image/gif, image/webp",
        ),
        (
            {"mime_type": "image/png", "data": "A" * (1024 * 1024 * 4 // 3 + 8)},
            "the image is larger than 1,048,576 bytes",
        ),
        ({"mime_type": "image/png"}, 'must be {"mime_type", "data"} with the bytes in base64'),
    ],
)
async def test_an_image_that_cannot_go_to_a_model_is_a_bad_request(post_json, image, problem):
    attachment = {**image_attachment(), "image": image}
    refused = await post_json("chat", {"message": "hi", "thread_id": new_thread(), "attachments": [attachment]})

    assert refused.code == 400
    assert json_body(refused)["message"] == f"attachments[0].image: {problem}"

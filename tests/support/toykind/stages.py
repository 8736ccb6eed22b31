"""The toy stage: a note about the run's clip, stored as an artifact of a new kind."""

from __future__ import annotations

from webapp.clips.services import artifact_save
from webapp.runs.stages import Context, Progress

TOY_STAGE = "toy"
TOY_NOTE = "toy_note"  # an artifact kind no migration of webapp/clips knows


def toy_stage(context: Context, progress: Progress) -> None:
    """Store ``"<word> <clip name>"`` as the run's ``toy_note`` and record the word and
    its length (``parameters["word"]``, default ``"hello"``)."""
    run = context.run
    word = str(run.parameters.get("word", "hello"))
    progress(0.25, "Writing the toy note")
    note = f"{word} {run.clip.name}".encode()
    artifact_save(run=run, kind=TOY_NOTE, filename="toy-note.txt", data=note)
    progress(0.75, "Recording the toy result")
    context.record_result({"word": word, "letters": len(word)})

"""Importers for the per-sample logs of two evaluation frameworks.

* **lm-evaluation-harness** ``--log_samples``: ``<output_path>/<model>/samples_<task>_<date>.jsonl``, one JSON
  object per (document, filter) with ``doc_id``, ``filter``, ``metrics`` (the metric names) and one key per
  metric holding that document's value. The model is the folder name (lm-eval's sanitised model name),
  the item is ``doc_id`` (``<task>/<doc_id>`` when several tasks are read), and several files for the same
  model and task (repeated runs, told apart by their date stamp) become replicates 0, 1, … in date order.
* **inspect_ai** logs: ``.eval`` (a zip archive with ``header.json`` or ``_journal/start.json`` and one
  ``samples/<id>_epoch_<n>.json`` per sample and epoch; members may be deflate- or zstd-compressed) and
  ``.json`` (the whole log in one object with ``eval`` and ``samples``). The model is ``eval.model``, the
  item is the sample ``id`` (``<task>/<id>`` for several tasks), epoch ``n`` becomes replicate ``n - 1`` and
  further logs of the same model and task continue the replicate count. Score values ``C``/``I``/``P``/``N``
  (correct, incorrect, partial, no answer) become 1/0/0.5/0; numbers and booleans are kept as numbers.
  A run stopped early by an early-stopping manager simply lacks the stopped samples (they are not errors);
  its ``results.early_stopping`` summary is kept in ``attrs["early_stopping"]`` (one entry per log).

Both build a raw long frame and call `validate_table`; its errors are re-located to the file and line (or
sample) they came from.

One module per framework (`lm_eval`, `inspect_logs`); `_shared` holds the final validation both use.
"""

from __future__ import annotations

from .inspect_logs import inspect_early_stopping, inspect_log_files, is_inspect_json, load_inspect
from .lm_eval import is_lm_eval_samples_file, lm_eval_files, load_lm_eval

__all__ = ["load_lm_eval", "load_inspect", "lm_eval_files", "inspect_log_files", "is_lm_eval_samples_file",
           "is_inspect_json", "inspect_early_stopping"]

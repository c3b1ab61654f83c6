"""`campaign next` writes down what it hands out without computing under the write lock (issue 33 item 2): when
another writer moves the head between its read and its lock, the list is computed again outside the lock, and
whatever it hands out is remembered (so it stays acceptable)."""

from __future__ import annotations

from _locks import lock_is_free

from certirank import Campaign


def test_next_restores_and_computes_outside_the_lock_when_the_head_moves(tmp_path, monkeypatch):
    from certirank.campaign import _engines, _rollouts

    db = tmp_path / "next.campaign"
    Campaign.init(db, ["a", "b", "c"], alpha=0.1, n_max=50).close()
    reader, other = Campaign.open(db), Campaign.open(db)
    seen: list[bool] = []
    moves = {"left": 3}  # the head moves under every try: the last one must still not compute under the lock
    original_needed, original_restore = _rollouts._needed, _engines.AnyRankEngine.restore

    def needed(camp, count):
        seen.append(lock_is_free(db))
        out = original_needed(camp, count)
        if camp is reader and moves["left"]:
            moves["left"] -= 1
            other.note(f"move {moves['left']}")  # another operator writes meanwhile
        return out

    def restore(*args):
        seen.append(lock_is_free(db))
        return original_restore(*args)

    monkeypatch.setattr(_rollouts, "_needed", needed)
    monkeypatch.setattr(_engines.AnyRankEngine, "restore", staticmethod(restore))
    shown = reader.next()
    assert shown and moves["left"] == 0 and len(seen) >= 3
    assert all(seen), seen
    # what was handed out was written down: each is accepted although the campaign moved on since
    for s in shown:
        reader.record(s.policy, s.trial, 1.0)
    assert reader.status().records == len(shown)
    reader.close()
    other.close()

# regress/oracle/reduce.py: delta debugging (ddmin) of a failing statement
# log. The last entry (the failing check) is kept; the others are removed in
# ever smaller chunks as long as replaying what is left still fails the same
# way. Bounded by a time budget: the best log found so far is returned.
import time


def ddmin(entries, fails, budget_s, note=print):
    """entries[-1] is the failure; fails(list) -> bool replays a candidate."""
    deadline = time.monotonic() + budget_s
    body, last = list(entries[:-1]), entries[-1]
    # cheap candidates first: the failing statement alone, the failing
    # connection's own statements, the last few statements
    mine = [e for e in body if e["c"] == last["c"]]
    for cand in ([], mine[-20:], body[-20:], mine, body[-100:], body[-400:]):
        if len(cand) >= len(body) or time.monotonic() >= deadline:
            continue
        if fails(cand + [last]):
            body = list(cand)
            note("  reduce: %d statements left (cheap candidate)" % (len(body) + 1))
            break
    n = 2
    tries = 0
    while len(body) >= 1 and time.monotonic() < deadline:
        chunk = max(1, len(body) // n)
        reduced = False
        for start in range(0, len(body), chunk):
            if time.monotonic() >= deadline:
                break
            cand = body[:start] + body[start + chunk:]
            tries += 1
            if fails(cand + [last]):
                body = cand
                n = max(n - 1, 2)
                reduced = True
                note("  reduce: %d statements left (try %d)" % (len(body) + 1, tries))
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(body), n * 2)
    complete = time.monotonic() < deadline
    return body + [last], complete

"""PASS/FAIL lines and the closing "N passed, N failed" of a check script.

    t = Tally()
    t.verdict(ok, "what was checked", "detail when it matters")
    return t.done()        # prints the counts; 1 if anything failed, else 0
"""


class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def verdict(self, ok, what, detail=""):
        print("%s %s%s" % ("PASS" if ok else "FAIL", what, (": " + detail) if detail else ""))
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def done(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0

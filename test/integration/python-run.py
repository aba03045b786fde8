# SPDX-License-Identifier: BSD-2-Clause
"""Runs Python's own tests with selectors.DefaultSelector on one backend.

usage: python python-run.py kqueue|epoll OUTFILE NAME...

NAME is a test module, class or test id (test.test_asyncio,
test.test_kqueue.TestKQueue.test_close).  asyncio's event loops make their
selector from selectors.DefaultSelector when they are created, so replacing
it here puts every loop these tests make on that backend.  On epoll, names
that use kqueue by name are left out: they would run on kqueue again.
OUTFILE gets the id of every test that failed or raised, one per line (a
class or module whose set-up failed is named instead), and the last line of
stdout is "ran N".  Exit 0 once everything ran, whatever failed.
"""
import re
import selectors
import sys
import unittest


def ident(test):
    test = getattr(test, 'test_case', test)   # a failed subTest
    name = test.id()
    # setUpClass / setUpModule failures: "setUpClass (test.mod.Class)"
    m = re.match(r'^\w+ \((.+)\)$', name)
    if m:
        return m.group(1)
    # a name that would not import
    prefix = 'unittest.loader._FailedTest.'
    return name[len(prefix):] if name.startswith(prefix) else name


def main():
    backend, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    if backend == 'kqueue':
        selectors.DefaultSelector = selectors.KqueueSelector
    else:
        selectors.DefaultSelector = selectors.EpollSelector
        names = [n for n in names if 'kqueue' not in n.lower()]
    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    failed = sorted({ident(t) for t, _ in result.failures + result.errors} |
                    {ident(t) for t in result.unexpectedSuccesses})
    with open(out, 'w') as f:
        f.writelines(n + '\n' for n in failed)
    print('ran', result.testsRun, flush=True)


main()

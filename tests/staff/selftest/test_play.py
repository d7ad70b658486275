#!/usr/bin/env python3
"""test_play.py - plays `grundy play` in a terminal, as a person would.

usage: tests/staff/selftest/test_play.py BIN_GRUNDY [PLAY_DRIVER [STUB_DRIVER]]

Each session runs the program on a pseudo-terminal (so it sees a real
terminal, echo included), waits for each prompt before typing, and checks
what a person must be told: whose turn it is, the position, the numbered
legal moves, a clear message for an illegal choice, the solver's reply
and who won; and that q quits. Legality of what the program shows is
checked against `grundy moves` and `grundy outcome` (the oracle), not
against the program's own word.

PLAY_DRIVER is `make play`'s program built with the reference (build/
reference/play): the same session against "your solver". STUB_DRIVER is it
built with the untouched stubs, which must say which functions to write.
Ends with "N passed, M failed"; exits 1 if anything failed.
"""
import os
import pty
import re
import select
import subprocess
import sys
import time

PASSED, FAILED = [], []


def check(name, condition, detail=""):
    (PASSED if condition else FAILED).append(name)
    if not condition:
        print(f"FAIL: {name}" + (f"\n      {detail}" if detail else ""))


class Terminal:
    """A program on a pseudo-terminal, with expect/send like a person."""

    def __init__(self, argv):
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        self.seen = ""      # everything the program wrote, echo included
        self.unread = ""    # what expect() has not consumed yet

    def expect(self, pattern, timeout=10.0):
        """Waits until `pattern` (a regex) appears; returns the match or None."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(pattern, self.unread)
            if match:
                self.unread = self.unread[match.end():]
                return match
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                return None

    def _read(self, timeout):
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 4096).decode(errors="replace").replace("\r\n", "\n")
        except OSError:  # the program exited and closed the terminal
            return False
        self.seen += data
        self.unread += data
        return bool(data)

    def send(self, line):
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout=10.0):
        """Reads what is left and returns the exit status (None: still running)."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        while self._read(0.05):
            pass
        status = self.process.poll()
        if status is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)
        return status


def oracle(grundy, *args):
    return subprocess.run([grundy, *args], capture_output=True, text=True, check=True).stdout


def heaps_of(text):
    """'{3=2, 5=1}' -> ['3', '3', '5'] (arguments for the grundy command)."""
    heaps = []
    for height, count in re.findall(r"(\d+)=(\d+)", text):
        heaps += [height] * int(count)
    return heaps


def legal(grundy, before, after):
    """Is `after` one move from `before`? Both as '{...}' text."""
    moves = oracle(grundy, "moves", *heaps_of(before)) if heaps_of(before) else ""
    return after in moves.splitlines()


def play_to_the_end(grundy, argv, solver, name):
    """Plays from {10}, a P-position: whatever the person does, a perfect
    solver wins. Makes two illegal choices on the way."""
    t = Terminal(argv)
    illegal_done = False
    position = "{10=1}"
    for turn in range(20):
        shown = t.expect(r"Position: (\{[^}]*\})\n")
        check(f"{name}: turn {turn}: the position is shown", shown is not None, t.unread[-300:])
        if shown is None:
            break
        check(f"{name}: turn {turn}: the position is the one expected", shown.group(1) == position,
              f"shown {shown.group(1)}, expected {position}")
        ending = t.expect(r"Your move\. The legal moves:\n|You cannot move: (.*) wins\.\n")
        if ending is None:
            check(f"{name}: turn {turn}: whose move it is", False, t.unread[-300:])
            break
        if ending.group(1) is not None:
            check(f"{name}: the solver wins from a P-position", ending.group(1) == solver, ending.group(0))
            check(f"{name}: the person really has no move", position == "{}", position)
            break
        listing = t.expect(r"((?:\s+\d+\) split \d+ into \d+ \+ \d+\s+-> \{[^}]*\}\n)+)Your choice \(([^)]*)\): ")
        check(f"{name}: turn {turn}: the legal moves are numbered, then a prompt", listing is not None,
              t.unread[-300:])
        if listing is None:
            break
        moves = re.findall(r"(\d+)\) split (\d+) into (\d+) \+ (\d+)\s+-> (\{[^}]*\})", listing.group(1))
        expected = oracle(grundy, "moves", *heaps_of(position)).splitlines()
        check(f"{name}: turn {turn}: exactly the legal moves are listed",
              sorted(m[4] for m in moves) == sorted(expected), f"listed {moves}, oracle {expected}")
        if not illegal_done:
            t.send(str(len(moves) + 3))
            check(f"{name}: a number beyond the list is refused, saying why",
                  t.expect(rf"There is no move {len(moves) + 3}: the moves are numbered 1 to {len(moves)}\.")
                  is not None, t.unread[-300:])
            t.expect(r"Your choice \([^)]*\): ")
            t.send("two")
            check(f"{name}: a word is refused, saying why",
                  t.expect(r'"two" is not a move: type the number of a move') is not None, t.unread[-300:])
            t.expect(r"Your choice \([^)]*\): ")
            illegal_done = True
        pick = moves[turn % len(moves)]
        t.send(pick[0])
        said = t.expect(r"You split (\d+) into (\d+) \+ (\d+)\.\n")
        check(f"{name}: turn {turn}: the person's move is confirmed",
              said is not None and said.groups() == pick[1:4], t.unread[-300:])
        position = pick[4]
        shown = t.expect(r"Position: (\{[^}]*\})\n")
        check(f"{name}: turn {turn}: the new position is shown", shown is not None and shown.group(1) == position,
              t.unread[-300:])
        reply = t.expect(rf"{re.escape(solver.capitalize())} plays: split (\d+) into (\d+) \+ (\d+), a winning move")
        check(f"{name}: turn {turn}: the solver replies with a winning move", reply is not None, t.unread[-300:])
        if reply is None:
            break
        shown = t.expect(r"Position: (\{[^}]*\})\n")
        if shown is None:
            check(f"{name}: turn {turn}: the position after the reply", False, t.unread[-300:])
            break
        check(f"{name}: turn {turn}: the reply is legal", legal(grundy, position, shown.group(1)),
              f"{position} -> {shown.group(1)}")
        check(f"{name}: turn {turn}: the reply leaves a P-position",
              oracle(grundy, "outcome", *heaps_of(shown.group(1))).strip() == "P" if heaps_of(shown.group(1))
              else True, shown.group(1))
        position = shown.group(1)
        t.unread = shown.group(0) + t.unread  # the loop reads this position again
    status = t.finish()
    check(f"{name}: an illegal choice was tried", illegal_done)
    check(f"{name}: the game ends with exit status 0", status == 0, f"status {status}")
    check(f"{name}: the typed choices are echoed by the terminal", "two" in t.seen)


def quit_session(argv, name):
    t = Terminal(argv)
    check(f"{name}: prompt", t.expect(r"Your choice \(1-4, or q to quit\): ") is not None, t.unread[-300:])
    t.send("q")
    check(f"{name}: q quits with a message", t.expect(r"You quit\. Goodbye\.") is not None, t.unread[-300:])
    check(f"{name}: quitting exits with status 0", t.finish() == 0)


def main():
    if len(sys.argv) not in (2, 3, 4):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    grundy = sys.argv[1]
    play_to_the_end(grundy, [grundy, "play", "10"], "the solver", "grundy play 10")
    quit_session([grundy, "play", "10"], "grundy play 10, then q")
    t = Terminal([grundy, "play", "--solver-first", "3"])
    check("--solver-first: the solver moves first and wins at once",
          t.expect(r"The solver plays: split 3 into 1 \+ 2, a winning move") is not None
          and t.expect(r"You cannot move: the solver wins\.") is not None, t.unread[-300:])
    check("--solver-first: exit status 0", t.finish() == 0)
    if len(sys.argv) >= 3:
        play_to_the_end(grundy, [sys.argv[2], "10"], "your solver", "make play (reference)")
        quit_session([sys.argv[2], "10"], "make play (reference), then q")
    if len(sys.argv) == 4:
        t = Terminal([sys.argv[3], "10"])
        check("make play (stubs): names the functions to write",
              t.expect(r"not implemented yet: grundy_new.*make play needs Tasks 0-2 and Task 5") is not None,
              t.unread[-300:])
        check("make play (stubs): exit status 1", t.finish() == 1)
    print(f"{len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())

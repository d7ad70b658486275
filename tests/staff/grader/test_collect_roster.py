"""grader/ci/collect-roster fetches the files of the configured term, not a
fixed two: a term with Part 2 tasks gets their files too, and a repository
that lacks one is reported as missing it (no silent zero for its task)."""

import csv
import os
import shutil
import subprocess
import tempfile
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", ".."))
COLLECT = os.path.join(REPO, "grader", "ci", "collect-roster")
SOME_TASKS = os.path.join(REPO, "tests", "staff", "fixtures", "lab-some-tasks.ini")   # Tasks 0-2, 5, 7
GIT_ENV = {"GIT_AUTHOR_NAME": "s", "GIT_AUTHOR_EMAIL": "s@example.edu", "GIT_COMMITTER_NAME": "s",
           "GIT_COMMITTER_EMAIL": "s@example.edu", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def term_files(definition):
    """The files of a term, read by the grader's own definition loader."""
    done = subprocess.run(["python3", "-c", "import sys; sys.path.insert(0, sys.argv[1])\n"
                           "from gradelib import labdef\nprint(' '.join(labdef.lab().files))",
                           os.path.join(REPO, "grader")], capture_output=True, text=True, check=True,
                          env=dict(os.environ, GRUNDY_LAB_DEFINITION=definition))
    return done.stdout.split()


class CollectRoster(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="collect-roster-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def repository(self, name, files):
        repo = os.path.join(self.dir, "repos", name)
        os.makedirs(os.path.join(repo, "student"))
        env = dict(os.environ, **GIT_ENV)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True, env=env)
        for f in files:
            shutil.copyfile(os.path.join(REPO, "reference", f), os.path.join(repo, "student", f))
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
        subprocess.run(["git", "commit", "-q", "-m", "mine"], cwd=repo, check=True, env=env)
        return repo

    def collect(self, roster):
        path = os.path.join(self.dir, "roster.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("".join(f"{name} {repo}\n" for name, repo in roster))
        dest = os.path.join(self.dir, "collected")
        done = subprocess.run([COLLECT, path, dest], capture_output=True, text=True,
                              env=dict(os.environ, GRUNDY_LAB_DEFINITION=SOME_TASKS, **GIT_ENV))
        with open(os.path.join(dest, "collected.tsv"), encoding="utf-8", newline="") as handle:
            rows = {row["name"]: row for row in csv.DictReader(handle, delimiter="\t")}
        return done, dest, rows

    def test_every_file_of_the_term_is_fetched_and_a_missing_one_reported(self):
        files = term_files(SOME_TASKS)
        self.assertIn("grundy_table.c", files)   # the term has Task 7: the test means something
        whole = self.repository("whole", files)
        partial = self.repository("partial", [f for f in files if f != "grundy_table.c"])
        done, dest, rows = self.collect([("whole", whole), ("partial", partial)])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(dest, "whole"))), sorted(files))
        self.assertEqual(rows["whole"]["status"], "ok")
        self.assertEqual(rows["partial"]["status"], "missing grundy_table.c")
        self.assertNotIn("grundy_table.c", os.listdir(os.path.join(dest, "partial")))


if __name__ == "__main__":
    unittest.main()

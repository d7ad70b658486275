"""The course's files beside the gradebook: canvas.csv and regrade.md.

Called by grader/class-report and grader/grade-all after the gradebook is
written: canvas.csv when [policy] names a roster (lms.py), regrade.md and
regrade.csv with --compare OLD_OUT (regrade.py). Messages go to stdout,
prefixed with the tool's name; a bad [policy] is one line on stderr and
exit status 2.
"""

import sys

from . import labdef, lms, regrade


def write(students, report_dir, compare=None, name="class-report"):
    """Returns 0, or 2 when the policy cannot be read."""
    try:
        policy = labdef.policy()
    except labdef.LabDefinitionError as error:
        print(f"{name}: {error}", file=sys.stderr)
        return 2
    if policy.roster:
        mismatch = lms.write(report_dir, policy, students)
        print(f"{name}: canvas.csv for the {len(policy.roster)} students of {policy.roster_path}"
              + ("" if mismatch else ", every one graded"), flush=True)
        for line in mismatch.splitlines():
            print(f"{name}: roster mismatch: {line}", flush=True)
    if compare:
        new = {s.name: s.results for s in students if s.results is not None}
        print(f"{name}: regrade.md: {regrade.write(compare, new, report_dir, report_dir)}", flush=True)
    return 0

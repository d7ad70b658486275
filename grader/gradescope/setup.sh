#!/usr/bin/env bash
# Gradescope's setup.sh: runs once, as root, when Gradescope builds the
# autograder image from autograder.zip (Ubuntu 22.04 or 24.04 base image).
# The zip is unpacked into /autograder/source, this directory.
#
#   1. installs the grader's packages with apt-get (AUTOGRADER_SKIP_APT=1
#      skips this, for a machine that has them: tests/staff/ops/check-gradescope);
#   2. makes sure gcovr is at least 5.1 (Ubuntu 22.04 ships 5.0, which
#      lacks --cobertura and reports fractions, not percentages);
#   3. builds the grader's harness once (`make grader-harness`), so every
#      submission is graded against the same prebuilt objects;
#   4. makes the source tree, and what lies beside it in /autograder but the
#      submission, root's alone (chmod go-rwx): Gradescope's
#      container has no bubblewrap, so nothing masks the hidden suites and
#      the model solution from the grading's sandbox user but permissions,
#      and the grader refuses to grade while they are reachable;
#   5. grades the reference solution and fails the image build unless it
#      scores full marks: the term's, the points of the tasks that
#      grader/lab.ini switches on (a broken image is found now, not on a
#      student's submission; AUTOGRADER_SKIP_SELFTEST=1 skips it).
set -euo pipefail
source_dir=$(cd "$(dirname "$0")" && pwd)

PACKAGES=(
    build-essential   # gcc, make
    libcriterion-dev  # the test framework (universe)
    libjansson-dev    # the grader's report hook
    libseccomp-dev    # the seccomp filter around every student process
    valgrind          # the memory phase
    gcovr             # the coverage phase
    bubblewrap        # the sandbox (used where the container allows it)
    python3           # the grader
    python3-pip       # only if gcovr must come from PyPI (below)
    ca-certificates
)

if [ -z "${AUTOGRADER_SKIP_APT:-}" ]; then
    export DEBIAN_FRONTEND=noninteractive
    if command -v add-apt-repository >/dev/null; then
        add-apt-repository -y universe >/dev/null 2>&1 || true
    fi
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"
fi

gcovr_ok() {
    local version
    version=$(gcovr --version 2>/dev/null | sed -n 's/^gcovr \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' | head -n 1)
    [ -n "$version" ] || return 1
    set -- $version
    [ "$1" -gt 5 ] || { [ "$1" -eq 5 ] && [ "$2" -ge 1 ]; }
}
if ! gcovr_ok; then
    echo "setup: gcovr $(gcovr --version 2>/dev/null | head -n 1) is older than 5.1; installing gcovr 7.2 from PyPI"
    python3 -m pip install --quiet 'gcovr==7.2' ||
        python3 -m pip install --quiet --break-system-packages 'gcovr==7.2'
    hash -r
    gcovr_ok || { echo "setup: gcovr is still older than 5.1" >&2; exit 1; }
fi

# The CPUs this container may use: the grader's own reading (its CFS quota,
# cgroup v2 then v1, and the affinity mask: grader/gradelib/cgroup.py,
# available_cpus), rounded up; not nproc, which counts the host's.
cpus() {
    (cd "$source_dir/grader" && python3 -c 'import math
from gradelib import cgroup
print(max(1, math.ceil(cgroup.available_cpus()[0])))' 2>/dev/null) || nproc
}
make -C "$source_dir" --no-print-directory -j"$(cpus)" grader-harness
chmod 755 "$source_dir/run_autograder" "$source_dir/grader/grade"
chmod -R go-rwx "$source_dir"
# And what Gradescope puts beside it (/autograder/run_autograder, a copy of
# ours): without bubblewrap the grader audits the file system as its
# sandbox's user and refuses while a file outside the system is readable
# (grader/gradelib/sandbox.py, audit). The submission is the student's own.
for entry in "$(dirname "$source_dir")"/*; do
    case "$entry" in
        "$source_dir" | */submission) ;;
        *) chmod -R go-rwx "$entry" 2>/dev/null || true ;;
    esac
done

if [ -z "${AUTOGRADER_SKIP_SELFTEST:-}" ]; then
    selftest=$(mktemp -d)
    trap 'rm -rf "$selftest"' EXIT
    "$source_dir/grader/grade" "$source_dir/reference" --out "$selftest/out" --seed 1 >"$selftest/log" 2>&1 || {
        cat "$selftest/log" >&2
        echo "setup: the grader failed on the reference solution" >&2
        exit 1
    }
    python3 - "$selftest/out/results.json" "$source_dir/grader" <<'PY'
import json
import sys
sys.path.insert(0, sys.argv[2])
from gradelib import labdef
result = json.load(open(sys.argv[1]))
failing = [t["name"] for t in result["tests"] if t.get("status") != "passed"]
full = sum(t.points for t in labdef.lab().tasks)   # the term's (lab.ini: [lab] tasks, points)
graded = sum(t.get("max_score", 0) for t in result["tests"])
if abs(result["score"] - full) > 1e-6 or abs(graded - full) > 1e-6 or failing:
    sys.exit(f"setup: the reference solution scored {result['score']} of {graded:g}, not the "
             f"term's {full:g}; failing: {failing}")
# Coverage earns no points, so a score cannot show it lost: say it here.
if not isinstance(result.get("extra_data", {}).get("coverage_line_percent"), (int, float)):
    sys.exit("setup: the reference solution graded without coverage (is gcovr installed and "
             "working? see the grader's log)")
print(f"setup: the reference solution scores {result['score']:g} of the term's {full:g}; "
      f"sandbox: {result.get('extra_data', {}).get('sandbox')}")
PY
fi
# What the self-test wrote into the source (Python's caches of the modules
# it imported first, such as gradelib/checks/) is closed like the rest.
chmod -R go-rwx "$source_dir"
echo "setup: done"

"""Coverage of the submission's two files under the public suites (gcovr).

The files are compiled again with --coverage, linked with the public suites
only and gcov_on_crash.o (so a test that crashes still contributes the
lines it ran), and run in the sandbox. gcovr then reads the counters, as the
grader's own user, outside the sandbox.
"""

import json
import os
import shutil
import subprocess

from . import build, config, suites


def measure(mode, scratch, builds, out_dir, seed, log):
    """{"line_percent", "branch_percent", "html"} or None when nothing ran.

    Writes OUT/coverage/index.html (gcovr's HTML) and OUT/coverage/cobertura.xml
    (for GitLab's coverage visualization)."""
    cov = os.path.join(scratch, "coverage")
    objects = {}
    for name, b in builds.items():
        if not b.accepted:
            continue
        copy = build.FileBuild(name, present=True)
        build.compile_file(mode, scratch, copy, config.COVERAGE_CFLAGS, cov, log, check=False)
        if copy.accepted:
            objects[name] = copy.object
    if not objects:
        return None
    for task in config.TASKS:
        own = config.FILE_OF_TASK[task]
        if own not in objects:
            continue
        pair = [objects.get(f, build.reference_object(scratch, f)) for f in config.SUBMISSION_FILES]
        runner = os.path.join(cov, f"runner_task{task}")
        ok, _ = build.link(mode, scratch, runner,
                           pair + build.harness_objects(scratch, coverage=True,
                                                        with_suites=build.suites_of_task(scratch, task, public_only=True)),
                           log, extra=config.RUNNER_LIBS, coverage=True)
        if ok:
            suites.run_runner(mode, scratch, runner, f"coverage-task{task}", seed, writable_extra=[cov])
    html_dir = os.path.join(out_dir, "coverage")
    os.makedirs(html_dir, exist_ok=True)
    summary = os.path.join(cov, "summary.json")
    argv = ["gcovr", "--root", scratch, "--object-directory", cov,
            "--filter", os.path.join(scratch, "src") + "/",
            "--json-summary", summary, "--html-details", os.path.join(html_dir, "index.html"),
            "--cobertura", os.path.join(html_dir, "cobertura.xml")]   # GitLab's coverage report
    result = subprocess.run(argv, cwd=scratch, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        log(f"gcovr failed: {result.stderr.strip()[:2000]}")
        shutil.rmtree(html_dir, ignore_errors=True)
        return None
    with open(summary, encoding="utf-8") as handle:
        data = json.load(handle)
    return {"line_percent": round(float(data.get("line_percent", 0.0)), 1),
            "branch_percent": round(float(data.get("branch_percent", 0.0)), 1),
            "html": "coverage/index.html"}

"""grundy-lab's grader: builds a submission in isolation, runs the suites
against it from outside, checks timing, memory and coverage, and writes
Gradescope results, JUnit and feedback. Entry point: grader/grade."""

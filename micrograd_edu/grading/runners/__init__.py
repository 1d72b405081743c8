"""What a submission's process may import of the grader: the runners.

A runner builds a check's inputs from a case (plain data, inputs only), calls the
student's functions and returns what they computed. Nothing here is an answer: no
oracle, reference, judge, expected value or mistake model. Those live in the chapter
modules next to this package, which the sandbox does not mount (see ``sandbox.py``),
so a submission can neither read them nor use them to forge what it reports.
"""

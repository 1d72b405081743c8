"""The course's support: the command line (``cli``), ``doctor``, the data sets, the
experiments the lectures run, and the student's workspace."""

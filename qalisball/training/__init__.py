"""Referee training (issue 24): sessions on a finished match's log, trainees' answers graded by the engine."""

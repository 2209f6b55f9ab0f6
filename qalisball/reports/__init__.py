"""Post-match reports and statistics from the event log (API.md "Pages and reports").

``pages.py`` serves them (the blueprint ``reports``: HTML, PDF, CSV, JSON); ``stats.py`` computes them;
``render.py``, ``charts.py`` and ``labels.py`` lay them out; ``pdf_worker.py`` makes the PDF. Importing
the package loads none of them, so that a feature may use the reports' functions without their web module.
"""

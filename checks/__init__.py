"""Checking code that the tests and the benchmarks both use: generated input diagrams
(``generate``), the quality counts of laid-out BPMN (``di_quality``, ``bpmn_crossings``) and
bpmn.io's reader in node as a client of our BPMN (``bpmn_io``).

It sits between them and the product (docs/architecture.md): ``checks`` imports
``interchange``, ``renderer`` and ``layouts``; ``tests`` and ``benchmarks`` import
``checks``; ``tests`` never import ``benchmarks`` (tests/test_import_structure.py). Not
installed with the product: like the tests and benchmarks, it runs from a clone.
"""

"""squadmem's benchmarks and studies, run from the repository's top as ``python -m bench.NAME``.

Each module prints tables; none asserts. Shared helpers: ``bench.harness`` builds
scratch repositories (and a sealed home to run them in), takes every timing
(whole processes, alternating with a yardstick, medians of many rounds), prints
the tables and parses the common options, ``bench.gitrun`` runs git and squadmem, ``bench.generate`` writes a
synthetic history and ``bench.squad_team`` a Squad team's.
"""

"""The files jaxlint reads and writes: which files are checked (``discovery``), notebooks
read as modules (``notebook``), files read from outside (``untrusted``), and the result
cache (``cache``)."""

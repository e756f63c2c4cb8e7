"""The language server (``jaxlint server``): pygls over stdio, static rules on change,
the dynamic phase on save in a separate process, quick fixes and noqa actions, notebook
documents.
"""

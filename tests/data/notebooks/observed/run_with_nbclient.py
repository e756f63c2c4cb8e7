"""Runs train.ipynb the way a script or a test harness does, with nbclient's API."""
import nbformat
from nbclient import NotebookClient

nb = nbformat.read("train.ipynb", as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": "."}}).execute()
print("executed", sum(1 for c in nb.cells if c.cell_type == "code"), "code cells")

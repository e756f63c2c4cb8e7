"""What happens to findings once made: measured findings made diagnostics
(``measured``), the run's result (``result``), one problem one finding (``supersede``),
``# noqa`` comments (``noqa``), suppressions and the merge of measured over static
findings (``suppress``), and the baseline (``baseline``)."""

"""numpy functions that jax.numpy provides under the same name.

Generated from numpy 2.4.6 and jax 0.10.2: callables in both namespaces (and
``linalg``/``fft``), minus I/O, printing, scalar type hierarchies, in-place mutators
(``put``, ``place``, ``fill_diagonal``) and shape/dtype queries that are fine on tracers.
Used only to offer ``np.f`` -> ``jnp.f`` rewrites; kept as data so the static phase
never imports jax.
"""
from __future__ import annotations

JNP_SAME_NAME = frozenset(
    """
    abs absolute acos acosh add all allclose amax amin angle any append apply_along_axis apply_over_axes
    arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort
    argwhere around array array_equal array_equiv array_split asarray asin asinh astype atan atan2 atanh
    atleast_1d atleast_2d atleast_3d average bartlett bincount bitwise_and bitwise_count bitwise_invert
    bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman block bool bool_
    broadcast_arrays broadcast_to cbrt cdouble ceil choose clip column_stack complex128 complex64
    compress concat concatenate conj conjugate convolve copy copysign corrcoef correlate cos cosh
    count_nonzero cov cross csingle cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete
    diag diag_indices diag_indices_from diagflat diagonal diff digitize divide divmod dot double dsplit
    dstack ediff1d einsum empty empty_like equal exp exp2 expand_dims expm1 extract eye fabs flatnonzero
    flip fliplr flipud float16 float32 float64 float_power floor floor_divide fmax fmin fmod frexp
    fromfunction full full_like gcd geomspace gradient greater greater_equal hamming hanning heaviside
    histogram histogram2d histogram_bin_edges histogramdd hsplit hstack hypot i0 identity imag indices
    inner insert int16 int32 int64 int8 int_ interp intersect1d invert isclose iscomplex isfinite isin
    isinf isnan isneginf isposinf isreal ix_ kaiser kron lcm ldexp left_shift less less_equal lexsort
    linspace log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor
    logspace mask_indices matmul matrix_transpose matvec max maximum mean median meshgrid min minimum
    mod modf moveaxis multiply nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean
    nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar negative nextafter nonzero
    not_equal ones ones_like outer packbits pad partition percentile permute_dims piecewise poly polyadd
    polyder polydiv polyfit polyint polymul polysub polyval positive pow power prod ptp quantile rad2deg
    radians ravel ravel_multi_index real reciprocal remainder repeat reshape resize right_shift rint
    roll rollaxis roots rot90 round searchsorted select setdiff1d setxor1d sign signbit sin sinc single
    sinh sort sort_complex spacing split sqrt square squeeze stack std subtract sum swapaxes take
    take_along_axis tan tanh tensordot tile trace transpose trapezoid tri tril tril_indices
    tril_indices_from trim_zeros triu triu_indices triu_indices_from true_divide trunc uint uint16
    uint32 uint64 uint8 union1d unique unique_all unique_counts unique_inverse unique_values unpackbits
    unravel_index unstack unwrap vander var vdot vecdot vecmat vsplit vstack where zeros zeros_like
    linalg.cholesky linalg.cond linalg.cross linalg.det linalg.diagonal linalg.eig linalg.eigh
    linalg.eigvals linalg.eigvalsh linalg.inv linalg.lstsq linalg.matmul linalg.matrix_norm
    linalg.matrix_power linalg.matrix_rank linalg.matrix_transpose linalg.multi_dot linalg.norm
    linalg.outer linalg.pinv linalg.qr linalg.slogdet linalg.solve linalg.svd linalg.svdvals
    linalg.tensordot linalg.tensorinv linalg.tensorsolve linalg.trace linalg.vecdot linalg.vector_norm
    fft.fft fft.fft2 fft.fftfreq fft.fftn fft.fftshift fft.hfft fft.ifft fft.ifft2 fft.ifftn
    fft.ifftshift fft.ihfft fft.irfft fft.irfft2 fft.irfftn fft.rfft fft.rfft2 fft.rfftfreq fft.rfftn
    """.split()
)

#: numpy functions that are fine on tracers: they read only the shape or dtype.
SHAPE_QUERIES = frozenset({
    "shape", "ndim", "size", "result_type", "isscalar", "iterable", "dtype", "issubdtype", "iinfo",
    "finfo", "can_cast", "promote_types", "broadcast_shapes", "isdtype", "iscomplexobj", "isrealobj",
})

#: numpy functions that, given something other than an ndarray as their first argument,
#: call that argument's own method of the same name (numpy's ``_wrapreduction`` /
#: ``_wrapfunc`` and the ``mean``/``std``/``var`` wrappers): on a tracer they run jax's
#: method and trace. Measured under ``jax.jit`` with numpy 2.4.6 and jax 0.10.2 (each
#: returned a result; ``clip``, ``take``, ``sort``, ``ravel``, ``nonzero`` and the others
#: of ``JNP_SAME_NAME`` raised), and kept in numpy 1.x.
METHOD_DISPATCH = frozenset({
    "sum", "prod", "max", "min", "amax", "amin", "all", "any", "mean", "std", "var", "argmax", "argmin",
    "cumsum", "cumprod", "round", "around", "transpose", "reshape", "squeeze", "swapaxes", "repeat",
})

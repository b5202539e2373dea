"""The aggregation library: combine several dicts of named tensors into one.

`aggregate` (mean, median, trimmed mean, Krum) and `outer` (DiLoCo's outer Nesterov step)
serve the cross-island sync, `jupiter merge` (soups, weighted averaging) and federated
training alike; none of them knows where the tensors came from.
"""

"""The machines of cluster.yaml: reaching them (ssh), checking them, training on them."""

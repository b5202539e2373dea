"""Federated training on Flower: `jupiter federated server` runs a SuperLink and the
ServerApp (server_app.py), each `jupiter federated client` a SuperNode whose ClientApp
(client_app.py) trains on its own workspace's data. Only the adapter (or the trainable
weights) travels; aggregation is merge/aggregate.py's; differential privacy and its
accounting are privacy.py's."""

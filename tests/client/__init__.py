"""Client tests (a package, so helpers are imported as ``tests.client.client_helpers``)."""

"""Protobuf tests (a package: the shared corpus is ``tests.proto.proto_corpus``)."""

"""The wire's own encodings: Connect framing and protobuf values (the simulator borrows these)."""

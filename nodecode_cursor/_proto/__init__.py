"""Generated protobuf modules for Cursor's agent protocol.

Generated code, do not edit. The sources are proto/agent.proto (agent.v1)
and proto/aiserver.proto (aiserver.v1); regenerate with tools/gen_proto.py.
"""

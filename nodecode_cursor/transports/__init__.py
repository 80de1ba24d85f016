"""The wires a run travels: HTTP/2 ``Run``, RunSSE/RunPoll with BidiAppend, and the HTTP kit."""

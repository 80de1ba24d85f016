"""A round's pure core: history in, run request out; server messages in, parts and replies out."""

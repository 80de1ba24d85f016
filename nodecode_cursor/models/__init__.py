"""Which model a round runs: the bundled rows, the account's roster and catalog, resolved once."""

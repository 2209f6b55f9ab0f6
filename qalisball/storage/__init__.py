"""The storage kernel: the append-only event log in SQLite (store), its hash chain and checks (integrity), role tokens."""

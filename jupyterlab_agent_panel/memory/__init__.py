"""A served agent's durable memory: its checkpointer, its threads' checkpoints, forks and pruning
(docs/protocol.md §14, §5.10)."""

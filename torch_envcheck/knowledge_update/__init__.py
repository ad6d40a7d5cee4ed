"""Keeping the knowledge current: the one room that reaches the network.

    index     package indexes read with bounded waits and sizes (PyPI JSON, PEP 691/503, file://,
              wheel metadata by PEP 658 or HTTP range)
    learn     what the indexes say about torch and TensorFlow releases and their builds
    update    `knowledge update`: keep what the shipped tables lack as the user's dated overlay
    check     `knowledge check` (maintainers): the shipped tables against the indexes
    summary   `knowledge show`: each table's date and newest row, and the overlay's
    pin_hashes  `pin --hashes`: the sha256 hashes an index publishes for pinned builds

knowledge/ answers questions from the tables (and reads the overlay); it never imports this room."""

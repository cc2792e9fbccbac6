"""Sealed evidence bundles: blobs, records, a BLAKE3 Merkle root, a DSSE-signed in-toto statement,
redaction that keeps digests, and campaigns with inclusion proofs (docs/bundle-format.md)."""
